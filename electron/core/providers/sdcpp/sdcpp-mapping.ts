// Requests and answers of the stable-diffusion.cpp server (examples/server/):
//
// Images go through its OpenAI-style routes (routes_openai.cpp), which ignore `model` (the server
// runs the one model it was started with):
//   POST /v1/images/generations  JSON {prompt, n, size "WxH", output_format}
//   POST /v1/images/edits        multipart: prompt, image[] (every reference; `image` is its
//                                legacy one-file field), n, size (left out: the first
//                                reference's size), output_format (png or jpeg)
//   -> {created, data: [{b64_json}], output_format}
// Every reference becomes one of the model's ref_images and the first is also the init image:
// an edit model (Flux Kontext, Qwen Image Edit) reads them all, an SD 1.x/SDXL checkpoint does
// img2img from the first. Those routes take no seed field: a seed goes in the prompt as
// `<sd_cpp_extra_args>{"seed": N}</sd_cpp_extra_args>` (the native schema), else the server's
// default (42 unless started otherwise) makes every request for a prompt the same image.
//
// Videos go through its native asynchronous jobs (routes_sdcpp.cpp, async_jobs.cpp):
//   POST /sdcpp/v1/vid_gen {prompt, width, height, seed, video_frames, fps, output_format,
//                           init_image (base64 or a data URI: image-to-video)}  -> 202 {id, ...}
//   GET  /sdcpp/v1/jobs/{id} -> {id, kind, status: queued|generating|completed|failed|cancelled,
//        queue_position, result: {output_format, mime_type, fps, frame_count, b64_json} | null,
//        error: {code, message} | null}
// Its video formats are webm and animated webp (when built with them) and an MJPEG avi (always
// built): the gateway asks for avi, and re-encodes it to H.264 MP4.
import type { FormData as UndiciFormData } from 'undici';
import type { ImageEditJob, ImageJob, VideoJob } from '../provider.js';
import { decodeImageBase64 } from '../upstream/image-payload.js';
import { randomSeed } from '../templates/placeholders.js';
import { invalidResponse } from '../upstream/upstream-errors.js';

/** The references an edit sends (the server takes any number; the edit models read up to three). */
export const SDCPP_MAX_REFERENCES = 3;

/** The video container asked for: the one every build of the server writes. */
export const SDCPP_VIDEO_FORMAT = 'avi';

const EXTRA_ARGS_TAG = /<\/?sd_cpp_extra_args>/g;

/**
 * The client's prompt with the gateway's settings block appended. A block the client wrote is
 * taken apart first (its tags removed, its text left as prompt text): the server honours the first
 * block it finds, and a client must not set the engine's parameters (batch size, LoRA paths...).
 */
export function promptWithSeed(prompt: string, seed: number): string {
  let text = prompt;
  // Removing one tag may join the text around it into another: until none is left.
  for (let before = ''; before !== text; ) {
    before = text;
    text = text.replace(EXTRA_ARGS_TAG, '');
  }
  return `${text} <sd_cpp_extra_args>${JSON.stringify({ seed })}</sd_cpp_extra_args>`;
}

export interface GenerationBody {
  prompt: string;
  n: 1;
  size: string;
  output_format: 'png';
}

export function generationBody(job: ImageJob, seed: number = randomSeed()): GenerationBody {
  return { prompt: promptWithSeed(job.prompt, seed), n: 1, size: `${job.width}x${job.height}`, output_format: 'png' };
}

/** The edit's multipart form: every reference as image[] (as the server reads them). */
export async function editForm(job: ImageEditJob, seed: number = randomSeed()): Promise<UndiciFormData> {
  const { FormData } = await import('undici');
  const form = new FormData();
  form.append('prompt', promptWithSeed(job.prompt, seed));
  form.append('n', '1');
  form.append('output_format', 'png');
  // Left out, the server renders at the first reference's size (the gateway's rule too).
  if (job.sizeGiven) form.append('size', `${job.width}x${job.height}`);
  job.images.forEach((image, i) => form.append('image[]', new Blob([image.bytes], { type: image.mime }), image.filename || `image-${i + 1}.png`));
  return form;
}

/** The image of an answer: data[0].b64_json, checked to be base64 (the image service checks it is a PNG). */
export function imageOfAnswer(body: unknown): { bytes: Buffer; b64: string } {
  const data = isObject(body) && Array.isArray(body.data) ? body.data : null;
  const first: unknown = data?.[0];
  if (!isObject(first)) throw invalidResponse('no image in the response');
  const bytes = decodeImageBase64(first.b64_json);
  return { bytes, b64: first.b64_json as string };
}

export interface VidGenBody {
  prompt: string;
  width: number;
  height: number;
  seed: number;
  video_frames: number;
  fps: number;
  output_format: typeof SDCPP_VIDEO_FORMAT;
  init_image?: string;
}

/** A video job's body; `reference` is the image-to-video start frame (as a data URI). */
export function vidGenBody(job: VideoJob, reference: { mime: string; bytes: Buffer } | null, seed: number = randomSeed()): VidGenBody {
  return {
    prompt: job.prompt,
    width: job.width,
    height: job.height,
    seed,
    // The engine aligns the count to what its model takes (4n+1 for Wan).
    video_frames: Math.max(1, job.seconds * job.fps),
    fps: job.fps,
    output_format: SDCPP_VIDEO_FORMAT,
    ...(reference ? { init_image: `data:${reference.mime};base64,${reference.bytes.toString('base64')}` } : {}),
  };
}

/** The id of a created job (a 202); the server's ids match [A-Za-z0-9_-]+, as its job routes do. */
export function jobIdOf(body: unknown): string {
  const id = isObject(body) ? body.id : undefined;
  if (typeof id !== 'string' || !/^[A-Za-z0-9_-]{1,200}$/.test(id)) throw invalidResponse('the created job has no id');
  return id;
}

export type JobState =
  | { status: 'queued' | 'generating'; queuePosition: number }
  | { status: 'completed'; video: Buffer; format: string }
  | { status: 'failed' | 'cancelled' };

export function jobStateOf(body: unknown): JobState {
  if (!isObject(body)) throw invalidResponse('the job is not an object');
  switch (body.status) {
    case 'queued':
    case 'generating':
      return { status: body.status, queuePosition: typeof body.queue_position === 'number' ? body.queue_position : 0 };
    case 'failed':
    case 'cancelled':
      return { status: body.status };
    case 'completed': {
      const result = isObject(body.result) ? body.result : null;
      if (!result || typeof result.b64_json !== 'string' || result.b64_json.length === 0) throw invalidResponse('the finished job has no video');
      const video = Buffer.from(result.b64_json, 'base64');
      if (video.length === 0) throw invalidResponse('the finished job has no video');
      return { status: 'completed', video, format: typeof result.output_format === 'string' ? result.output_format : '' };
    }
    default:
      throw invalidResponse('the job has an unknown status');
  }
}

export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
