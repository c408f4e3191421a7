// Request templates of the runway kind: the body of a Runway request (everything but `model`,
// which is always the catalog entry's upstream model) with placeholders (templates/
// placeholders.ts); the default ones for models that need none; the check of an owner's template
// when a model is put; and its filling per request.
//
// References fill {{image_1}}..{{image_3}} in order, as data URIs. A placeholder the request has
// no image for is left out with what stands for that image: a top-level key, an array item, or
// the object in an array that holds it ({"uri": "{{image_2}}", "tag": "image_2"}); an array left
// empty so goes too. One template thus serves a model's generations and its edits, and
// text-to-video and image-to-video alike.
import type { ModelRecord } from '../../../../shared/api-types.js';
import { invalid } from '../../errors.js';
import { fillTemplate, IMAGE_PLACEHOLDERS, placeholdersIn, sizeRatios, type JsonValue, type PlaceholderValues, type Workflow } from '../templates/placeholders.js';
import { checkTemplateBody } from '../templates/template-check.js';
import { isObject, runwayRatio, takesSeed, type Endpoint } from './runway-mapping.js';

const PARAM = 'template';

export interface BodyRequest {
  endpoint: Endpoint;
  upstreamModel: string;
  prompt: string;
  width: number;
  height: number;
  seed: number;
  /** The references as data URIs, in order. */
  images: string[];
  /** A video's length; images have none. */
  seconds?: number;
}

/**
 * The default template of a model: Runway's request fields for its endpoint, a seed for the
 * Gen-4 models (the partner models take none), reference tags (image_1...) where the model
 * takes them (every text-to-image model but Seedream), so a prompt may name them (@image_1).
 */
export function defaultTemplate(endpoint: Endpoint, upstreamModel: string): Workflow {
  const seed: Workflow = takesSeed(upstreamModel) ? { seed: '{{seed}}' } : {};
  if (endpoint === 'text_to_image') {
    const tagged = !upstreamModel.startsWith('seedream');
    const referenceImages: JsonValue[] = IMAGE_PLACEHOLDERS.map((name): Workflow => (tagged ? { uri: `{{${name}}}`, tag: name } : { uri: `{{${name}}}` }));
    return { promptText: '{{prompt}}', ratio: '{{ratio}}', ...seed, referenceImages };
  }
  return { promptImage: '{{image_1}}', promptText: '{{prompt}}', ratio: '{{ratio}}', duration: '{{seconds}}', ...seed };
}

/** The request body: the template (or the model's default) filled, images it has none for left out, `model` set. */
export function requestBody(template: Workflow | null, request: BodyRequest): Record<string, JsonValue> {
  const values: PlaceholderValues = {
    prompt: request.prompt,
    width: request.width,
    height: request.height,
    seed: request.seed,
    aspect_ratio: sizeRatios(request.width, request.height).aspect_ratio,
    ratio: runwayRatio(request.endpoint, request.upstreamModel, request.width, request.height),
    ...(request.seconds !== undefined ? { seconds: request.seconds } : {}),
  };
  request.images.slice(0, IMAGE_PLACEHOLDERS.length).forEach((uri, i) => {
    values[IMAGE_PLACEHOLDERS[i]!] = uri;
  });
  const missing = IMAGE_PLACEHOLDERS.filter((name) => values[name] === undefined);
  const pruned = pruneTop(template ?? defaultTemplate(request.endpoint, request.upstreamModel), missing);
  return { model: request.upstreamModel, ...fillTemplate(pruned, values) };
}

const namesMissing = (text: string, missing: readonly string[]): boolean => placeholdersIn(text).some((name) => missing.includes(name));

function pruneTop(template: Workflow, missing: readonly string[]): Workflow {
  const out: Workflow = {};
  for (const [key, value] of Object.entries(template)) {
    const kept = prune(value, missing);
    if (kept !== undefined) out[key] = kept;
  }
  return out;
}

/** `value` without what stands for a missing image (undefined: the whole value goes). */
function prune(value: JsonValue, missing: readonly string[]): JsonValue | undefined {
  if (typeof value === 'string') return namesMissing(value, missing) ? undefined : value;
  if (Array.isArray(value)) {
    const items = value.map((item) => pruneItem(item, missing)).filter((item): item is JsonValue => item !== undefined);
    return value.length > 0 && items.length === 0 ? undefined : items;
  }
  if (isObject(value)) return pruneTop(value as Workflow, missing);
  return value;
}

/** An array item: an object naming a missing image directly is that image's entry, and goes whole. */
function pruneItem(item: JsonValue, missing: readonly string[]): JsonValue | undefined {
  if (isObject(item) && Object.values(item).some((v) => typeof v === 'string' && namesMissing(v, missing))) return undefined;
  return prune(item, missing);
}

/**
 * The check of an owner's template when a model is put: a JSON object without `model`, then the
 * rules every cloud kind shares (templates/template-check.ts).
 */
export function checkTemplate(template: unknown, record: ModelRecord): Workflow {
  if (!isObject(template)) throw invalid('The template must be a JSON object: the body of the model\u2019s Runway request (promptText, ratio, ...).', PARAM);
  if ('model' in template) {
    throw invalid('The template sets "model": the gateway sends the model\u2019s upstream name (--upstream-model) there; leave "model" out.', PARAM);
  }
  return checkTemplateBody(template as Workflow, record, {
    prompt: 'put it where the model takes its prompt ("promptText": "{{prompt}}")',
    images: 'where the model takes its images (promptImage, referenceImages[].uri)',
  });
}
