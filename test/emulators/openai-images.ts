// OpenAI Images API handlers: POST /v1/images/generations (JSON) and POST /v1/images/edits
// (multipart, files under `image` or `image[]`). Shapes follow the API reference
// (https://platform.openai.com/docs/api-reference/images/create and .../images/createEdit) and the
// `ImagesResponse` type of the openai npm package (v6.49): {created, background, data:
// [{b64_json, revised_prompt, url}], output_format, quality, size, usage: {input_tokens,
// input_tokens_details: {text_tokens, image_tokens}, output_tokens, total_tokens}}.
// DALL-E models answer by URL unless response_format is b64_json, with no usage; their URLs are
// served here without auth (the real ones are on a CDN of another host).
// Refused like the real API (400 {error: {message, type: 'invalid_request_error', param, code}}),
// per model, from the API reference's parameter docs and the `ImageGenerateParams` /
// `ImageEditParams` docs of the openai package:
//  - size: gpt-image-1 / gpt-image-1-mini 1024x1024, 1536x1024, 1024x1536, auto; dall-e-2 256x256,
//    512x512, 1024x1024; dall-e-3 1024x1024, 1792x1024, 1024x1792 -> code 'invalid_value';
//  - quality: low/medium/high/auto (GPT image), standard/hd/auto (dall-e-3), standard/auto (dall-e-2);
//  - n: 1..10, only 1 for dall-e-3 -> 'integer_above_max_value' / 'integer_below_min_value';
//  - a parameter the endpoint or model does not take -> "Unknown parameter: 'x'." code
//    'unknown_parameter' (what gpt-image-1 answers to response_format, dall-e-3 to moderation);
//  - dall-e-3 has no edits.
// Guesses: an unknown model -> 404 'model_not_found' (as for other endpoints); missing model -> 400
// (the real API defaults it; strictness here catches gateways that drop it); `stream` is taken
// but the answer is never streamed; token counts below.
import type { UploadedFile } from './types.js';
import type { RequestContext } from './serve.js';
import { type Reply, headerValue, json, parseJsonObject, sleep, streamed } from './http-kit.js';
import { badParam, integerOutOfRange, invalidType, invalidValue, openaiError, unknownParameter } from './openai-errors.js';
import { isMultipart, parseMultipart } from './multipart.js';
import { cachedPng, capSize } from './png.js';
import { parseSize } from './mp4.js';

import { randomUUID } from 'node:crypto';

export const IMAGE_MODELS = ['gpt-image-1', 'gpt-image-1-mini', 'dall-e-2', 'dall-e-3'] as const;
const URL_DEFAULT_MODELS = new Set(['dall-e-2', 'dall-e-3']);

/** Images answered by URL, by file name (served at GET /images/{name}). */
export type ImageFiles = Map<string, Buffer>;

export interface ImageSettings {
  /** Return PNGs of exactly the requested size instead of capping the longer side. */
  exactSize: boolean;
  /** Longer side of returned PNGs when !exactSize (keeps big sizes cheap). */
  maxSide: number;
  /** Added before every image answer. */
  latencyMs: number;
}

interface ImageModelSpec {
  sizes: readonly string[];
  qualities: readonly string[];
  maxN: number;
  /** Body parameters of POST /images/generations. */
  generation: ReadonlySet<string>;
  /** Body parameters (form fields and files) of POST /images/edits; undefined: no edits. */
  edit: ReadonlySet<string> | undefined;
}

const GPT_IMAGE_SIZES = ['1024x1024', '1024x1536', '1536x1024', 'auto'] as const;
const GPT_GENERATION = ['prompt', 'model', 'background', 'moderation', 'n', 'output_compression', 'output_format', 'partial_images', 'quality', 'size', 'stream', 'user'];
const GPT_EDIT = ['image', 'image[]', 'mask', 'prompt', 'model', 'background', 'input_fidelity', 'n', 'output_compression', 'output_format', 'partial_images', 'quality', 'size', 'stream', 'user'];
const GPT_SPEC: ImageModelSpec = { sizes: GPT_IMAGE_SIZES, qualities: ['low', 'medium', 'high', 'auto'], maxN: 10, generation: new Set(GPT_GENERATION), edit: new Set(GPT_EDIT) };

export const IMAGE_MODEL_SPECS: Record<(typeof IMAGE_MODELS)[number], ImageModelSpec> = {
  'gpt-image-1': GPT_SPEC,
  'gpt-image-1-mini': GPT_SPEC,
  'dall-e-2': {
    sizes: ['256x256', '512x512', '1024x1024'],
    qualities: ['standard', 'auto'],
    maxN: 10,
    generation: new Set(['prompt', 'model', 'n', 'quality', 'response_format', 'size', 'user']),
    edit: new Set(['image', 'image[]', 'mask', 'prompt', 'model', 'n', 'response_format', 'size', 'user']),
  },
  'dall-e-3': {
    sizes: ['1024x1024', '1792x1024', '1024x1792'],
    qualities: ['standard', 'hd', 'auto'],
    maxN: 1,
    generation: new Set(['prompt', 'model', 'n', 'quality', 'response_format', 'size', 'style', 'user']),
    edit: undefined,
  },
};

/** Enum parameters shared by the models that take them (checked only when the model takes them). */
const ENUMS: Record<string, readonly string[]> = {
  background: ['transparent', 'opaque', 'auto'],
  moderation: ['low', 'auto'],
  output_format: ['png', 'jpeg', 'webp'],
  input_fidelity: ['high', 'low'],
  response_format: ['url', 'b64_json'],
  style: ['vivid', 'natural'],
};

// Output tokens of one gpt-image-1 image (OpenAI pricing page, per quality, 1024x1024 and
// 1024x1536/1536x1024); other sizes scale with the area. Input image tokens are a guess.
const OUTPUT_TOKENS: Record<string, { square: number; wide: number }> = {
  low: { square: 272, wide: 408 },
  medium: { square: 1056, wide: 1584 },
  high: { square: 4160, wide: 6240 },
};
const INPUT_IMAGE_TOKENS = 323;

function outputTokens(width: number, height: number, quality: string): number {
  const row = OUTPUT_TOKENS[quality] ?? { square: 1056, wide: 1584 };
  if (width === height && width === 1024) return row.square;
  if (width * height === 1024 * 1536) return row.wide;
  return Math.max(1, Math.round((row.square * width * height) / (1024 * 1024)));
}

interface ImageJob {
  model: string;
  byUrl: boolean;
  prompt: string;
  size: string;
  quality: string;
  n: number;
  inputImages: number;
}

type Checked = { ok: true; job: ImageJob } | { ok: false; reply: Reply };
const refuse = (reply: Reply): Checked => ({ ok: false, reply });

/**
 * Checks a generation (JSON values) or an edit (form fields: strings; `fileFields` the names of
 * its file parts) against the model's parameters, in the real API's order: prompt, model, then
 * any parameter the model does not take, then each value.
 */
function check(values: Record<string, unknown>, inputImages: number, endpoint: 'generation' | 'edit', fileFields: readonly string[] = []): Checked {
  const form = endpoint === 'edit';
  const { model, prompt } = values;
  if (typeof prompt !== 'string' || prompt.trim() === '') return refuse(badParam('prompt', "Missing required parameter: 'prompt'.", 'missing_required_parameter'));
  if (typeof model !== 'string' || model === '') return refuse(badParam('model', "Missing required parameter: 'model'.", 'missing_required_parameter'));
  if (!(IMAGE_MODELS as readonly string[]).includes(model)) {
    return refuse(openaiError(404, `The model \`${model}\` does not exist or you do not have access to it.`, { code: 'model_not_found', param: 'model' }));
  }
  const spec = IMAGE_MODEL_SPECS[model as (typeof IMAGE_MODELS)[number]];
  const taken = form ? spec.edit : spec.generation;
  if (!taken) {
    const editModels = IMAGE_MODELS.filter((id) => IMAGE_MODEL_SPECS[id].edit);
    return refuse(invalidValue('model', model, editModels));
  }
  for (const name of [...Object.keys(values), ...fileFields]) {
    if (!taken.has(name)) return refuse(unknownParameter(name));
  }
  const given = (name: string) => values[name] !== undefined && values[name] !== null;
  for (const [name, allowed] of Object.entries(ENUMS)) {
    if (given(name) && !allowed.includes(String(values[name]))) return refuse(invalidValue(name, values[name], allowed));
  }
  if (given('size') && typeof values.size !== 'string') return refuse(invalidType('size', `one of ${spec.sizes.map((v) => `'${v}'`).join(', ')}`, values.size));
  const size = given('size') ? String(values.size) : 'auto';
  if (given('size') && !spec.sizes.includes(size)) return refuse(invalidValue('size', size, spec.sizes));
  const served = size === 'auto' ? '1024x1024' : size;
  let n = 1;
  if (given('n')) {
    const raw = values.n;
    n = form && typeof raw === 'string' && /^-?\d+$/.test(raw) ? Number(raw) : (raw as number);
    if (typeof n !== 'number' || !Number.isInteger(n)) return refuse(invalidType('n', 'an integer', raw));
    if (n < 1 || n > spec.maxN) return refuse(integerOutOfRange('n', n, 1, spec.maxN));
  }
  const rawQuality = given('quality') ? String(values.quality) : 'auto';
  if (!spec.qualities.includes(rawQuality)) return refuse(invalidValue('quality', rawQuality, spec.qualities));
  const quality = rawQuality === 'auto' || rawQuality === 'standard' || rawQuality === 'hd' ? 'medium' : rawQuality;
  const format = given('response_format') ? String(values.response_format) : URL_DEFAULT_MODELS.has(model) ? 'url' : 'b64_json';
  return { ok: true, job: { model, byUrl: format === 'url', prompt, size: served, quality, n, inputImages } };
}

function imagesResponse(job: ImageJob, settings: ImageSettings, ctx: RequestContext, files: ImageFiles): Reply {
  const requested = parseSize(job.size) ?? { width: 1024, height: 1024 };
  const served = settings.exactSize ? requested : capSize(requested.width, requested.height, settings.maxSide);
  const data = Array.from({ length: job.n }, (_, i) => {
    const png = cachedPng(served.width, served.height, (i * 53 + 40) & 0xff);
    // revised_prompt (and url: null) are here on purpose: a gateway must not pass them through.
    const revised_prompt = `${job.prompt} (revised by emulator)`;
    if (!job.byUrl) return { b64_json: png.toString('base64'), revised_prompt, url: null };
    const name = `${randomUUID()}.png`;
    files.set(name, png);
    return { url: `http://${headerValue(ctx.req, 'host')}/images/${name}`, revised_prompt };
  });
  if (URL_DEFAULT_MODELS.has(job.model)) return streamed(json(200, { created: Math.floor(Date.now() / 1000), data }));
  const textTokens = Math.max(1, Math.ceil(job.prompt.length / 4));
  const imageTokens = job.inputImages * INPUT_IMAGE_TOKENS;
  const output = outputTokens(requested.width, requested.height, job.quality) * job.n;
  return streamed(json(200, {
    created: Math.floor(Date.now() / 1000),
    background: 'opaque',
    data,
    output_format: 'png',
    quality: job.quality,
    size: job.size,
    usage: {
      input_tokens: textTokens + imageTokens,
      input_tokens_details: { text_tokens: textTokens, image_tokens: imageTokens },
      output_tokens: output,
      total_tokens: textTokens + imageTokens + output,
    },
  }));
}

export async function handleGenerations(ctx: RequestContext, settings: ImageSettings, files: ImageFiles): Promise<Reply> {
  if (settings.latencyMs > 0) await sleep(settings.latencyMs);
  const values = parseJsonObject(ctx.body);
  if (!values) return openaiError(400, 'We could not parse the JSON body of your request.', { code: 'invalid_json' });
  const checked = check(values, 0, 'generation');
  return checked.ok ? imagesResponse(checked.job, settings, ctx, files) : checked.reply;
}

export async function handleEdits(ctx: RequestContext, settings: ImageSettings, files: ImageFiles, onFiles: (files: UploadedFile[]) => void): Promise<Reply> {
  if (settings.latencyMs > 0) await sleep(settings.latencyMs);
  const contentType = headerValue(ctx.req, 'content-type');
  if (!contentType || !isMultipart(contentType)) return openaiError(400, 'Image edits require a multipart/form-data body.', { code: 'invalid_content_type' });
  let form;
  try {
    form = await parseMultipart(contentType, ctx.body);
  } catch {
    return openaiError(400, 'Could not parse the multipart form body.', { code: 'invalid_multipart' });
  }
  const uploaded: UploadedFile[] = form.files.map(({ field, name, type, size }) => ({ field, name, type, size }));
  ctx.record.files = uploaded;
  const images = uploaded.filter((file) => file.field === 'image' || file.field === 'image[]');
  onFiles(images);
  if (images.length === 0) return badParam('image', "Missing required parameter: 'image'.", 'missing_required_parameter');
  if (images.length > 16) return badParam('image', 'You can provide up to 16 images.');
  if (images.some((file) => file.size === 0)) return badParam('image', 'An uploaded image is empty.');
  const checked = check(form.fields, images.length, 'edit', [...new Set(uploaded.map((file) => file.field))]);
  return checked.ok ? imagesResponse(checked.job, settings, ctx, files) : checked.reply;
}
