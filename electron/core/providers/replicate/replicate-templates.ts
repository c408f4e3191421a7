// Request templates of the replicate kind: a model's `input` object with placeholders (see
// templates/placeholders.ts), the default ones for models that need none, the check of an
// owner's template when a model is put, and its filling per request.
//
// Reference images fill {{image_1}}..{{image_3}} in order; a placeholder the request has no
// image for is left out with what holds it (its array item, or its key), so one template serves
// a model's generations and its edits, and text-to-video and image-to-video alike.
import type { ModelRecord } from '../../../../shared/api-types.js';
import { invalid } from '../../errors.js';
import { fillTemplate, IMAGE_PLACEHOLDERS, placeholdersIn, sizeRatios, type JsonValue, type PlaceholderValues, type Workflow } from '../templates/placeholders.js';
import { checkTemplateBody } from '../templates/template-check.js';
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
 * The check of an owner's template when a model is put: the model's input object (not wrapped in
 * "input"), then the rules every cloud kind shares (templates/template-check.ts).
 */
export function checkTemplate(template: unknown, record: ModelRecord): Workflow {
  if (!isObject(template)) throw invalid('The template must be a JSON object: the model\u2019s input, as its API page on Replicate shows it.', PARAM);
  const keys = Object.keys(template);
  if (keys.length === 1 && keys[0] === 'input' && isObject(template.input)) {
    throw invalid('The template is the model\u2019s input object itself: give what is inside "input" (the gateway wraps it).', PARAM);
  }
  return checkTemplateBody(template as Workflow, record, {
    prompt: 'put it as the value of the model\u2019s prompt input ("prompt": "{{prompt}}")',
    images: 'where the model takes its images',
  });
}
