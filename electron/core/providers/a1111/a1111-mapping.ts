// Request bodies for AUTOMATIC1111 / Forge (`/sdapi/v1/txt2img`, `/sdapi/v1/img2img`) and the
// reading of their answers. Field names follow the engine's own request models
// (modules/api/models.py: StableDiffusionTxt2ImgProcessingAPI / ...Img2ImgProcessingAPI, built
// from the StableDiffusionProcessing* constructors in modules/processing.py).
//
// Generation settings come from the model record's capabilities when the owner set them:
//   capabilities.steps              sampling steps, a whole number 1-500       (default 20)
//   capabilities.cfg_scale          classifier-free guidance, a number 0-50    (default 7)
//   capabilities.sampler            a sampler name as /sdapi/v1/samplers lists (default 'Euler a');
//                                   capabilities.sampler_name, the engine's own word, when it is not set
//   capabilities.denoising_strength edits: how far from the reference, 0-1    (default 0.6)
// A value of the wrong type or out of range is ignored (the default is used): the engine would
// refuse it, or worse, run it.
import type { ModelRecord } from '../../../../shared/api-types.js';
import { sniffImage } from '../../images/image-sniff.js';
import type { ImageEditJob, ImageJob } from '../provider.js';
import { invalidResponse } from '../upstream/upstream-errors.js';
import { fitEditSize, initImageOf } from './a1111-init-image.js';

export const A1111_DEFAULTS = { steps: 20, cfgScale: 7, sampler: 'Euler a', denoisingStrength: 0.6 } as const;

/**
 * How many reference images an edit takes: the engine edits one init image, so several are
 * combined into one side by side (a1111-init-image.ts). Three: the built-in engine's collage
 * keeps up to three in a row (more become a grid), and the other local engines take three too.
 */
export const A1111_MAX_REFERENCES = 3;

export interface A1111Settings {
  steps: number;
  cfg_scale: number;
  sampler_name: string;
  denoising_strength: number;
}

export interface Txt2ImgBody {
  prompt: string;
  negative_prompt: string;
  width: number;
  height: number;
  steps: number;
  cfg_scale: number;
  sampler_name: string;
  seed: number;
  batch_size: 1;
  n_iter: 1;
  override_settings: { sd_model_checkpoint: string };
  override_settings_restore_afterwards: true;
  send_images: true;
  save_images: false;
}

export interface Img2ImgBody extends Txt2ImgBody {
  init_images: string[];
  denoising_strength: number;
  /** 1: "crop and resize" (keep the aspect, fill the size, crop the excess) rather than 0's stretch. */
  resize_mode: 1;
}

export function settingsOf(record: ModelRecord): A1111Settings {
  const c = record.capabilities;
  return {
    steps: Number.isInteger(c.steps) && (c.steps as number) >= 1 && (c.steps as number) <= 500 ? (c.steps as number) : A1111_DEFAULTS.steps,
    cfg_scale: inRange(c.cfg_scale, 0, 50) ?? A1111_DEFAULTS.cfgScale,
    // `sampler_name` is what the engine's own API and its users call it: taken too, `sampler` first.
    sampler_name: samplerOf(c.sampler) ?? samplerOf(c.sampler_name) ?? A1111_DEFAULTS.sampler,
    denoising_strength: inRange(c.denoising_strength, 0, 1) ?? A1111_DEFAULTS.denoisingStrength,
  };
}

function samplerOf(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

function inRange(value: unknown, min: number, max: number): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max ? value : null;
}

export function txt2imgBody(job: ImageJob): Txt2ImgBody {
  const s = settingsOf(job.model);
  return {
    prompt: job.prompt,
    negative_prompt: '',
    width: job.width,
    height: job.height,
    steps: s.steps,
    cfg_scale: s.cfg_scale,
    sampler_name: s.sampler_name,
    // -1: the engine draws the seed (it reports it in `info`).
    seed: -1,
    batch_size: 1,
    n_iter: 1,
    // The checkpoint per request; the engine's loaded one is put back afterwards. An unknown
    // title is silently dropped by the engine (process_images), so discovery stores the exact title.
    override_settings: { sd_model_checkpoint: job.upstreamModel },
    override_settings_restore_afterwards: true,
    send_images: true,
    save_images: false,
  };
}

export async function img2imgBody(job: ImageEditJob): Promise<Img2ImgBody> {
  const init = await initImageOf(job.images);
  // Without a size, the edit keeps its init image's shape: the reference's, or the collage's.
  const { width, height } = job.sizeGiven ? job : fitEditSize(init.width, init.height);
  return {
    ...txt2imgBody({ ...job, width, height }),
    init_images: [init.bytes.toString('base64')],
    denoising_strength: settingsOf(job.model).denoising_strength,
    resize_mode: 1,
  };
}

export interface A1111Image {
  bytes: Buffer;
  /** The engine's base64 when it is canonical (no re-encode needed). */
  b64: string | null;
  /** The seed the engine drew, when its `info` says. */
  seed: number | null;
  /** The answer's `info`, when it was JSON. */
  info: Record<string, unknown> | null;
}

/**
 * The first image of a txt2img/img2img answer (`images`: base64 strings; PNG unless the owner
 * set another samples_format), decoded for real. Anything else is a 502.
 */
export async function imageOfAnswer(body: unknown): Promise<A1111Image> {
  const images = isObject(body) ? body.images : undefined;
  if (!Array.isArray(images) || images.length === 0) throw invalidResponse('the answer has no image');
  let text = images[0];
  if (typeof text !== 'string' || text.length === 0) throw invalidResponse('the answer has no image');
  // The engine sends bare base64; a data URI is tolerated.
  const comma = text.startsWith('data:') ? text.indexOf(',') : -1;
  if (comma >= 0) text = text.slice(comma + 1);
  const bytes = Buffer.from(text, 'base64');
  if (!sniffImage(bytes) || !(await decodes(bytes))) throw invalidResponse('the image does not decode');
  const canonical = text.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(text);
  const info = infoOf(isObject(body) ? body.info : undefined);
  const seed = info?.seed;
  return { bytes, b64: canonical ? text : null, seed: Number.isSafeInteger(seed) ? (seed as number) : null, info };
}

/**
 * What the engine used in place of what was asked, as its `info` tells: it silently falls back
 * to its first sampler for a name it does not know (sd_samplers.get_sampler_and_scheduler) and
 * to the loaded checkpoint for a title it does not know (process_images). For the owner's log:
 * the image is what the engine made, and the hash forms differ across versions to fail on.
 */
export function substitutions(info: Record<string, unknown> | null, sent: Txt2ImgBody): string[] {
  if (!info) return [];
  const found: string[] = [];
  if (typeof info.sampler_name === 'string' && info.sampler_name !== sent.sampler_name) found.push(`sampler "${info.sampler_name}" for "${sent.sampler_name}"`);
  const hash = /\[([0-9a-f]{8,})\]$/i.exec(sent.override_settings.sd_model_checkpoint)?.[1];
  if (hash && typeof info.sd_model_hash === 'string' && info.sd_model_hash !== '' && info.sd_model_hash.toLowerCase() !== hash.toLowerCase()) {
    found.push(`checkpoint ${info.sd_model_hash} for "${sent.override_settings.sd_model_checkpoint}"`);
  }
  return found;
}

/**
 * The answer's `info`: a JSON string (Processed.js()) on a normal run. It can be "" or not JSON
 * (an extension's script, an interrupted run): read when it can be, never a failure.
 */
export function infoOf(info: unknown): Record<string, unknown> | null {
  if (typeof info !== 'string' || info.trim() === '') return isObject(info) ? info : null;
  try {
    const parsed: unknown = JSON.parse(info);
    return isObject(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

async function decodes(bytes: Buffer): Promise<boolean> {
  const { default: sharp } = await import('sharp');
  try {
    await sharp(bytes, { failOn: 'error' }).resize(64, 64, { fit: 'inside' }).raw().toBuffer();
    return true;
  } catch {
    return false;
  }
}

export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
