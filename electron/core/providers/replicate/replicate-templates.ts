// Request templates of the replicate kind: a model's `input` object with placeholders (see
// templates/placeholders.ts), the default ones for models that need none, the check of an
// owner's template when a model is put, and its filling per request.
//
// Reference images fill {{image_1}}..{{image_3}} in order; a placeholder the request has no
// image for is left out with what holds it (its array item, or its key), so one template serves
// a model's generations and its edits, and text-to-video and image-to-video alike.
import type { ModelRecord } from '../../../../shared/api-types.js';
import { countOr } from '../../catalog/capability-read.js';
import { invalid } from '../../errors.js';
import { checkPlaceholders, fillTemplate, IMAGE_PLACEHOLDERS, placeholdersIn, sizeRatios, TEMPLATE_PLACEHOLDERS, type JsonValue, type PlaceholderValues, type Workflow } from '../templates/placeholders.js';
import { isObject } from './replicate-mapping.js';

const PARAM = 'template';

export interface TemplateRequest {
  prompt: string;
  width: number;
  height: number;
  seed: number;
  /** The references as the model takes them (data: URLs or uploaded files' URLs), in order. */
  images: string[];
  /** A video's length; images have none. */
  seconds?: number;
}

/** The model's input for one request: the template filled, references it has no image for left out. */
export function fillInput(template: Workflow, request: TemplateRequest): Record<string, JsonValue> {
  const values: PlaceholderValues = {
    prompt: request.prompt,
    width: request.width,
    height: request.height,
    seed: request.seed,
    ...sizeRatios(request.width, request.height),
    ...(request.seconds !== undefined ? { seconds: request.seconds } : {}),
  };
  request.images.forEach((url, i) => {
    if (i < IMAGE_PLACEHOLDERS.length) values[IMAGE_PLACEHOLDERS[i]!] = url;
  });
  const missing = IMAGE_PLACEHOLDERS.filter((name) => values[name] === undefined);
  return fillTemplate(withoutImages(template, missing) as Workflow, values);
}

/**
 * The input when the model has no template of its own. Images: the inputs Flux (schnell, dev,
 * 1.1 pro), Seedream 4 and Nano Banana share: prompt, aspect_ratio, seed; an edit adds every
 * reference as image_input (Seedream 4, Nano Banana) and, without a size, keeps the first
 * reference's shape ("match_input_image", which Seedream 4 and Flux Kontext take).
 */
export function defaultImageInput(request: TemplateRequest, sizeGiven: boolean): Record<string, JsonValue> {
  const keepShape = request.images.length > 0 && !sizeGiven;
  const input: Record<string, JsonValue> = {
    prompt: request.prompt,
    aspect_ratio: keepShape ? 'match_input_image' : commonRatio(request.width, request.height),
    seed: request.seed,
  };
  if (request.images.length > 0) input.image_input = [...request.images];
  return input;
}

/** Videos: Seedance's inputs (prompt, duration, aspect_ratio, image: the first frame), which Veo 3 and Kling 2.5 share. */
export function defaultVideoInput(request: TemplateRequest): Record<string, JsonValue> {
  const input: Record<string, JsonValue> = {
    prompt: request.prompt,
    duration: request.seconds ?? 5,
    aspect_ratio: commonRatio(request.width, request.height),
  };
  if (request.images[0] !== undefined) input.image = request.images[0];
  return input;
}

/** The aspect ratios the common models list (Flux, Seedream, Seedance, Veo take these or some of them). */
const COMMON_RATIOS = ['1:1', '16:9', '9:16', '4:3', '3:4', '3:2', '2:3', '4:5', '5:4', '21:9', '9:21'];

/**
 * The size's ratio as the default inputs send it: reduced when it is a common one (1280x720 ->
 * 16:9), else the nearest common one (480p, 854x480 -> 16:9), since no model takes "427:240".
 * An owner's template gets the exact {{aspect_ratio}}.
 */
export function commonRatio(width: number, height: number): string {
  const exact = sizeRatios(width, height).aspect_ratio;
  if (COMMON_RATIOS.includes(exact)) return exact;
  const target = Math.log(width / height);
  const distance = (ratio: string) => {
    const [w, h] = ratio.split(':').map(Number) as [number, number];
    return Math.abs(Math.log(w / h) - target);
  };
  return COMMON_RATIOS.reduce((best, ratio) => (distance(ratio) < distance(best) ? ratio : best));
}

/** A copy without the values that name an image placeholder in `missing` (array items and keys). */
function withoutImages(value: JsonValue, missing: readonly string[]): JsonValue | undefined {
  if (typeof value === 'string') return placeholdersIn(value).some((name) => missing.includes(name)) ? undefined : value;
  if (Array.isArray(value)) return value.map((item) => withoutImages(item, missing)).filter((item): item is JsonValue => item !== undefined);
  if (isObject(value)) {
    const out: { [key: string]: JsonValue } = {};
    for (const [key, item] of Object.entries(value as { [key: string]: JsonValue })) {
      const kept = withoutImages(item, missing);
      if (kept !== undefined) out[key] = kept;
    }
    return out;
  }
  return value;
}

/**
 * The check of an owner's template when a model is put: the model's input object, known
 * placeholders only, a prompt, and references that agree with the record: an image model that
 * edits with N references (capabilities.max_reference_images, default 1) uses {{image_1}}..
 * {{image_N}}, one that does not edit uses none; a video model uses as many as its record allows
 * (default 0). Every reference a request may bring is then sent, and every placeholder can be filled.
 */
export function checkTemplate(template: unknown, record: ModelRecord): Workflow {
  if (!isObject(template)) throw invalid('The template must be a JSON object: the model\u2019s input, as its API page on Replicate shows it.', PARAM);
  const keys = Object.keys(template);
  if (keys.length === 1 && keys[0] === 'input' && isObject(template.input)) {
    throw invalid('The template is the model\u2019s input object itself: give what is inside "input" (the gateway wraps it).', PARAM);
  }
  const workflow = template as Workflow;
  const used = checkPlaceholders(workflow, TEMPLATE_PLACEHOLDERS, PARAM);
  if (!used.includes('prompt')) throw invalid('The template has no {{prompt}}: put it as the value of the model\u2019s prompt input ("prompt": "{{prompt}}").', PARAM);
  let references = 0;
  IMAGE_PLACEHOLDERS.forEach((name, i) => {
    if (used.includes(name)) references = i + 1;
  });
  for (let i = 0; i < references; i++) {
    if (!used.includes(IMAGE_PLACEHOLDERS[i]!)) {
      throw invalid(`The template uses {{image_${references}}} but not {{${IMAGE_PLACEHOLDERS[i]}}}: reference images fill {{image_1}}, {{image_2}}, ... in order.`, PARAM);
    }
  }
  const caps = record.capabilities;
  if (caps.video_generation === true) {
    const allowed = countOr(caps.max_reference_images, 0);
    if (references !== allowed) throw invalid(referenceMismatch(references, allowed, 'capabilities.max_reference_images'), PARAM);
    return workflow;
  }
  if (used.includes('seconds')) throw invalid('The template uses {{seconds}}, which only video models fill; set capabilities.video_generation for a video model.', PARAM);
  const allowed = caps.image_edit === true ? countOr(caps.max_reference_images, 1) : 0;
  if (references !== allowed) throw invalid(referenceMismatch(references, allowed, caps.image_edit === true ? 'capabilities.max_reference_images' : 'capabilities.image_edit'), PARAM);
  return workflow;
}

function referenceMismatch(used: number, allowed: number, field: string): string {
  if (used === 0) return `The record allows ${allowed} reference image${allowed === 1 ? '' : 's'}, but the template uses no {{image_1}}, so they would be ignored; put {{image_1}}... where the model takes its images, or change ${field}.`;
  if (allowed === 0) return `The template takes reference images ({{image_1}}...), but the record allows none; set ${field} (capabilities.image_edit with max_reference_images for an image model, max_reference_images for a video model).`;
  return `The template uses ${used} reference image placeholder${used === 1 ? '' : 's'}, but the record allows ${allowed}; make them agree (${field}).`;
}
