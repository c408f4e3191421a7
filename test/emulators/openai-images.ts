// OpenAI Images API handlers: POST /v1/images/generations (JSON) and POST /v1/images/edits
// (multipart, files under `image` or `image[]`). Shapes follow the API reference
// (https://platform.openai.com/docs/api-reference/images/create and .../images/createEdit) and the
// `ImagesResponse` type of the openai npm package (v6.49): {created, background, data:
// [{b64_json, revised_prompt, url}], output_format, quality, size, usage: {input_tokens,
// input_tokens_details: {text_tokens, image_tokens}, output_tokens, total_tokens}}.
// DALL-E models answer by URL unless response_format is b64_json, with no usage; their URLs are
// served here without auth (the real ones are on a CDN of another host).
// Guesses: an unknown model -> 404 'model_not_found' (as for other endpoints); missing model -> 400
// (the real API defaults it; strictness here catches gateways that drop it); token counts below.
import type { UploadedFile } from './types.js';
import type { RequestContext } from './serve.js';
import { type Reply, headerValue, json, parseJsonObject, sleep } from './http-kit.js';
import { badParam, openaiError } from './openai-errors.js';
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

function check(values: Record<string, unknown>, inputImages: number): Checked {
  const { model, prompt } = values;
  if (typeof prompt !== 'string' || prompt.trim() === '') return { ok: false, reply: badParam('prompt', "Missing required parameter: 'prompt'.", 'missing_required_parameter') };
  if (typeof model !== 'string' || model === '') return { ok: false, reply: badParam('model', "Missing required parameter: 'model'.", 'missing_required_parameter') };
  if (!(IMAGE_MODELS as readonly string[]).includes(model)) {
    return { ok: false, reply: openaiError(404, `The model \`${model}\` does not exist or you do not have access to it.`, { code: 'model_not_found', param: 'model' }) };
  }
  const size = values.size === undefined || values.size === 'auto' ? '1024x1024' : values.size;
  if (typeof size !== 'string' || !parseSize(size)) return { ok: false, reply: badParam('size', `Invalid value for 'size': ${String(values.size)}.`) };
  const n = values.n === undefined ? 1 : Number(values.n);
  if (!Number.isInteger(n) || n < 1 || n > 10) return { ok: false, reply: badParam('n', `Invalid value for 'n': must be an integer between 1 and 10.`) };
  const rawQuality = values.quality === undefined ? 'auto' : String(values.quality);
  if (!['auto', 'low', 'medium', 'high'].includes(rawQuality)) return { ok: false, reply: badParam('quality', `Invalid value for 'quality': ${rawQuality}.`) };
  const quality = rawQuality === 'auto' ? 'medium' : rawQuality;
  const format = values.response_format ?? (URL_DEFAULT_MODELS.has(model) ? 'url' : 'b64_json');
  if (format !== 'url' && format !== 'b64_json') return { ok: false, reply: badParam('response_format', `Invalid value for 'response_format': ${String(format)}.`) };
  return { ok: true, job: { model, byUrl: format === 'url', prompt, size, quality, n, inputImages } };
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
  if (URL_DEFAULT_MODELS.has(job.model)) return json(200, { created: Math.floor(Date.now() / 1000), data });
  const textTokens = Math.max(1, Math.ceil(job.prompt.length / 4));
  const imageTokens = job.inputImages * INPUT_IMAGE_TOKENS;
  const output = outputTokens(requested.width, requested.height, job.quality) * job.n;
  return json(200, {
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
  });
}

export async function handleGenerations(ctx: RequestContext, settings: ImageSettings, files: ImageFiles): Promise<Reply> {
  if (settings.latencyMs > 0) await sleep(settings.latencyMs);
  const values = parseJsonObject(ctx.body);
  if (!values) return openaiError(400, 'We could not parse the JSON body of your request.', { code: 'invalid_json' });
  const checked = check(values, 0);
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
  const checked = check(form.fields, images.length);
  return checked.ok ? imagesResponse(checked.job, settings, ctx, files) : checked.reply;
}
