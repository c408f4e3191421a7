// Request templates of the gemini kind. A template is the whole JSON body of the call its model
// takes: an image model's `generateContent` body ({contents, generationConfig}), a Veo model's
// `predictLongRunning` body ({instances, parameters}). Placeholders are those of every cloud
// kind (templates/placeholders.ts), with two rules of this kind:
//
// - {{aspect_ratio}} is the nearest of the ratios the Gemini API names (1:1 ... 21:9): the
//   models' own sizes do not reduce to their names (16:9 renders 1344x768, which is 7:4), and a
//   ratio it does not name is refused. {{ratio}} stays the exact W:H.
// - {{image_N}} stands only as the whole value of an image field: a part's `inlineData`
//   (generateContent), or a Veo instance's `image`, `lastFrame` or `referenceImages[].image`.
//   Filled, it becomes the object the API takes there ({mimeType, data} for a part,
//   {bytesBase64Encoded, mimeType} for Veo: the SDK's imageToMldev); a placeholder the request
//   has no image for is left out with its part (or its key), so one template serves a model's
//   generations and its edits, and text-to-video and image-to-video alike.
import type { ModelRecord } from '../../../../shared/api-types.js';
import { invalid } from '../../errors.js';
import { checkPlaceholders, fillTemplate, IMAGE_PLACEHOLDERS, placeholdersIn, TEMPLATE_PLACEHOLDERS, wholePlaceholder, type JsonValue, type PlaceholderValues, type Workflow } from '../templates/placeholders.js';
import { referencesAllowed, referencesUsed } from '../templates/template-check.js';

const PARAM = 'template';

/** The aspect ratios the Gemini API names (imageConfig.aspectRatio; Veo takes 16:9 and 9:16 of them). */
export const GEMINI_RATIOS = ['1:1', '2:3', '3:2', '3:4', '4:3', '4:5', '5:4', '9:16', '16:9', '21:9'] as const;

/** Keys whose whole value may be an image placeholder: a part's inlineData; Veo's image fields. */
const PART_IMAGE_KEY = 'inlineData';
const VEO_IMAGE_KEYS = ['image', 'lastFrame'];

export interface TemplateImage {
  mime: string;
  bytes: Buffer;
}

export interface TemplateRequest {
  prompt: string;
  width: number;
  height: number;
  seed: number;
  /** The references, in order. */
  images: TemplateImage[];
  /** A video's length; images have none. */
  seconds?: number;
}

/** The named ratio nearest to width:height (by the log of their quotients). */
export function nearestRatio(width: number, height: number): string {
  const wanted = Math.log(width / height);
  let best: string = GEMINI_RATIOS[0];
  let distance = Infinity;
  for (const ratio of GEMINI_RATIOS) {
    const [w, h] = ratio.split(':').map(Number) as [number, number];
    const d = Math.abs(Math.log(w / h) - wanted);
    if (d < distance) [best, distance] = [ratio, d];
  }
  return best;
}

/** The body of one request: the owner's template filled (see the rules above). */
export function fillBody(template: Workflow, request: TemplateRequest): Workflow {
  const values: PlaceholderValues = {
    prompt: request.prompt,
    width: request.width,
    height: request.height,
    seed: request.seed,
    aspect_ratio: nearestRatio(request.width, request.height),
    ratio: `${request.width}:${request.height}`,
    ...(request.seconds !== undefined ? { seconds: request.seconds } : {}),
  };
  const images = new Map<string, TemplateImage>();
  request.images.slice(0, IMAGE_PLACEHOLDERS.length).forEach((image, i) => images.set(IMAGE_PLACEHOLDERS[i]!, image));
  // Image placeholders are swapped for the API's objects after the fill: give them a marker value.
  for (const name of images.keys()) values[name] = `{{${name}}}`;
  const missing = IMAGE_PLACEHOLDERS.filter((name) => !images.has(name));
  const kept = (withoutImages(template, missing) ?? {}) as Workflow;
  return withImages(fillTemplate(kept, values), images) as Workflow;
}

/**
 * The generateContent body when the model has no template: the prompt, then every reference as
 * an inlineData part (the docs' order), an image answer only, and the aspect ratio asked; an edit
 * without a size asks none, so the model keeps the first reference's shape (its documented default).
 */
export function defaultImageBody(request: TemplateRequest, sizeGiven: boolean): Workflow {
  const parts: JsonValue[] = [{ text: request.prompt }, ...request.images.map((image) => ({ [PART_IMAGE_KEY]: inlineData(image) }))];
  const keepShape = request.images.length > 0 && !sizeGiven;
  return {
    contents: [{ role: 'user', parts }],
    generationConfig: {
      responseModalities: ['IMAGE'],
      ...(keepShape ? {} : { imageConfig: { aspectRatio: nearestRatio(request.width, request.height) } }),
    },
  };
}

/**
 * The predictLongRunning body when a Veo model has no template: the prompt and the first
 * reference as the starting frame (image-to-video), the aspect ratio and the duration; 1080p is
 * asked when the size is 1080 lines or more (720p is Veo's default).
 */
export function defaultVideoBody(request: TemplateRequest): Workflow {
  const first = request.images[0];
  const instance: Workflow = { prompt: request.prompt, ...(first ? { image: veoImage(first) } : {}) };
  const parameters: Workflow = { aspectRatio: nearestRatio(request.width, request.height), durationSeconds: request.seconds ?? 8 };
  if (Math.min(request.width, request.height) >= 1080) parameters.resolution = '1080p';
  return { instances: [instance], parameters };
}

/**
 * The built-in bodies written as templates, as the docs show them. The built-in ones differ in
 * what a template cannot say: they send every reference (not three), leave the aspect ratio out
 * of an edit without a size, and ask 1080p for a size of 1080 lines or more.
 */
export const DEFAULT_IMAGE_TEMPLATE: Workflow = {
  contents: [{ role: 'user', parts: [{ text: '{{prompt}}' }, { inlineData: '{{image_1}}' }, { inlineData: '{{image_2}}' }, { inlineData: '{{image_3}}' }] }],
  generationConfig: { responseModalities: ['IMAGE'], imageConfig: { aspectRatio: '{{aspect_ratio}}' } },
};
export const DEFAULT_VIDEO_TEMPLATE: Workflow = {
  instances: [{ prompt: '{{prompt}}', image: '{{image_1}}' }],
  parameters: { aspectRatio: '{{aspect_ratio}}', durationSeconds: '{{seconds}}' },
};

const inlineData = (image: TemplateImage): Workflow => ({ mimeType: image.mime, data: image.bytes.toString('base64') });
const veoImage = (image: TemplateImage): Workflow => ({ bytesBase64Encoded: image.bytes.toString('base64'), mimeType: image.mime });

/** A copy without the values naming a placeholder in `missing`; a part whose inlineData went goes too. */
function withoutImages(value: JsonValue, missing: readonly string[]): JsonValue | undefined {
  if (typeof value === 'string') return placeholdersIn(value).some((name) => missing.includes(name)) ? undefined : value;
  if (Array.isArray(value)) return value.map((item) => withoutImages(item, missing)).filter((item): item is JsonValue => item !== undefined);
  if (isJsonObject(value)) {
    const out: { [key: string]: JsonValue } = {};
    for (const [key, item] of Object.entries(value)) {
      const kept = withoutImages(item, missing);
      if (kept !== undefined) out[key] = kept;
      // A part is its inlineData, a Veo reference item its image: without it, the item goes too.
      else if (key === PART_IMAGE_KEY || (key === 'image' && 'referenceType' in value)) return undefined;
    }
    return out;
  }
  return value;
}

/** The image markers left by fillBody, replaced by the object the API takes at each key. */
function withImages(value: JsonValue, images: Map<string, TemplateImage>, key = ''): JsonValue {
  if (typeof value === 'string') {
    const name = /^\{\{(image_[1-3])\}\}$/.exec(value)?.[1];
    const image = name ? images.get(name) : undefined;
    if (!image) return value;
    return key === PART_IMAGE_KEY ? inlineData(image) : veoImage(image);
  }
  if (Array.isArray(value)) return value.map((item) => withImages(item, images, key));
  if (isJsonObject(value)) return Object.fromEntries(Object.entries(value).map(([k, item]) => [k, withImages(item, images, k)]));
  return value;
}

/**
 * Checks an owner's template when a model is put. An image model's is a generateContent body
 * (contents), a video model's a predictLongRunning body (instances); Imagen's :predict is not a
 * call this kind makes. Image placeholders stand only at image fields, numbered from 1, and agree
 * with the references the record allows: every reference it allows must have its placeholder.
 */
export function checkTemplate(template: unknown, record: ModelRecord): Workflow {
  if (!isJsonObject(template)) throw invalid('The template must be a JSON object: the body of the Gemini API call (generateContent for an image model, predictLongRunning for a Veo model).', PARAM);
  const video = record.capabilities.video_generation === true;
  if (video) {
    if (!Array.isArray(template.instances) || !isJsonObject(template.instances[0])) throw invalid('A video model\u2019s template is a predictLongRunning body: {"instances": [{"prompt": "{{prompt}}", ...}], "parameters": {...}}.', PARAM);
  } else if (!Array.isArray(template.contents)) {
    if (Array.isArray(template.instances)) throw invalid('The template is a :predict body (Imagen); the gemini kind calls generateContent for images, which Imagen models do not take.', PARAM);
    throw invalid('An image model\u2019s template is a generateContent body: {"contents": [{"parts": [{"text": "{{prompt}}"}, ...]}], "generationConfig": {...}}.', PARAM);
  }
  const used = checkPlaceholders(template, TEMPLATE_PLACEHOLDERS, PARAM);
  if (!used.includes('prompt')) throw invalid('The template has no {{prompt}}: put it as the text of a part (generateContent) or as the instance\u2019s prompt (Veo).', PARAM);
  if (!video && used.includes('seconds')) throw invalid('The template uses {{seconds}}, which only video models fill; set capabilities.video_generation for a Veo model.', PARAM);
  checkImageFields(template, video);
  checkReferences(record, video, referencesUsed(used));
  return template;
}

function checkImageFields(template: JsonValue, video: boolean): void {
  const where = video ? 'a Veo image field ("image", "lastFrame" or a referenceImages item\u2019s "image")' : 'a part\u2019s "inlineData" ({"inlineData": "{{image_1}}"})';
  const allowed = video ? VEO_IMAGE_KEYS : [PART_IMAGE_KEY];
  const visit = (value: JsonValue, key: string): void => {
    if (typeof value === 'string') {
      const images = placeholdersIn(value).filter((name) => (IMAGE_PLACEHOLDERS as readonly string[]).includes(name));
      // Compared by name, as the fill reads it: `{{ image_1 }}` stands whole like `{{image_1}}`.
      if (images.length > 0 && (!allowed.includes(key) || wholePlaceholder(value) !== images[0])) {
        throw invalid(`{{${images[0]}}} must be the whole value of ${where}: the gateway puts the image there as the Gemini API takes it.`, PARAM);
      }
    } else if (Array.isArray(value)) value.forEach((item) => visit(item, key));
    else if (isJsonObject(value)) for (const [k, item] of Object.entries(value)) visit(item, k);
  };
  visit(template, '');
}

function checkReferences(record: ModelRecord, video: boolean, references: number): void {
  // This kind's own rule (the others want an exact match): every reference the record allows
  // must have its placeholder, which caps the record at three.
  const takes = referencesAllowed(record);
  if (references > 0 && takes === 0) {
    const how = video ? 'set capabilities.max_reference_images' : 'set capabilities.image_edit to true and max_reference_images';
    throw invalid(`The template takes reference images ({{image_1}}...), but the record allows none; ${how}.`, PARAM);
  }
  if (takes > IMAGE_PLACEHOLDERS.length) {
    throw invalid(`The record allows ${takes} reference images, but a template takes at most ${IMAGE_PLACEHOLDERS.length} ({{image_1}}..{{image_3}}); set capabilities.max_reference_images to ${IMAGE_PLACEHOLDERS.length} or less, or leave the template out (the default sends every reference).`, PARAM);
  }
  if (references < takes) {
    throw invalid(`The record allows ${takes} reference images, but the template places only ${references}; the others would be dropped. Add {{image_${references + 1}}}${takes > references + 1 ? `..{{image_${takes}}}` : ''}, or lower capabilities.max_reference_images.`, PARAM);
  }
}

export const isJsonObject = (value: unknown): value is { [key: string]: JsonValue } => typeof value === 'object' && value !== null && !Array.isArray(value);
