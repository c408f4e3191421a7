// OpenAI Videos API (Sora) emulation. Endpoints and the video object follow the API reference
// (https://platform.openai.com/docs/api-reference/videos: create, retrieve, content, delete) and the
// `Video` / `VideoCreateParams` / `VideoDeleteResponse` types of the openai npm package (v6.49):
// status queued | in_progress | completed | failed, seconds '4'|'8'|'12', `error: {code, message}`
// when failed, delete -> {id, object: 'video.deleted', deleted: true}. Sizes per model, from the
// model pages (platform.openai.com/docs/models/sora-2 and .../sora-2-pro): sora-2 720x1280 and
// 1280x720; sora-2-pro also 1024x1792 and 1792x1024. Refused like the real API (400
// invalid_request_error): a size or seconds outside those ('invalid_value', param named), a body
// parameter create does not take ("Unknown parameter: 'x'.", 'unknown_parameter').
// A task's state is computed from the clock on every read, so the `videos` Map always shows the
// current status without timers. The content is a playable H.264 MP4 of the task's size and
// seconds, at a realistic bitrate, streamed in chunks.
// DELETE of a queued or in_progress video is refused: the API reference and the SDK's doc of
// videos.delete say "Permanently delete a completed or failed video and its stored assets", and
// the API has no cancel for videos. The exact answer is not documented; this one is a 400
// invalid_request_error shaped like the API's other refusals of an object's state (e.g. the
// Assistants API's "Cannot cancel run with status 'completed'.": param null, code null).
// Guesses (not in the docs): content before completion -> 400 code 'video_not_ready'; unknown id
// -> 404 code 'not_found'; list defaults to limit 20, newest first, and an `after` id it does not
// know gives an empty page; thumbnail/spritesheet variants are served as PNG (real: webp/jpg);
// expires_at = completed_at + 1 day; a failed task keeps the progress it had.
import { randomBytes } from 'node:crypto';
import type { RequestContext } from './serve.js';
import { type Reply, bytes, headerValue, json, parseJsonObject, queryOf, streamed } from './http-kit.js';
import { badParam, invalidType, invalidValue, openaiError, unknownParameter } from './openai-errors.js';
import { isMultipart, parseMultipart } from './multipart.js';
import { parseSize, playableMp4 } from './mp4.js';
import { cachedPng, capSize } from './png.js';

export const VIDEO_MODELS = ['sora-2', 'sora-2-pro'] as const;
const SECONDS = ['4', '8', '12'];
/** Output sizes each model renders (its first is the API's default, 720x1280). */
export const VIDEO_SIZES: Record<(typeof VIDEO_MODELS)[number], readonly string[]> = {
  'sora-2': ['720x1280', '1280x720'],
  'sora-2-pro': ['720x1280', '1280x720', '1024x1792', '1792x1024'],
};
/** Body parameters of POST /v1/videos (VideoCreateParams). */
const CREATE_PARAMS = new Set(['prompt', 'model', 'seconds', 'size', 'input_reference']);

export type VideoStatus = 'queued' | 'in_progress' | 'completed' | 'failed';
export interface VideoError {
  code: string;
  message: string;
}
/** Settings snapshotted by each new task; mutable on the emulator (`videoBehaviour`). */
export interface VideoBehaviour {
  durationMs: number;
  stuck: boolean;
  fail: VideoError | false;
}
export type InputReference = { kind: 'file'; name: string; type: string; size: number } | { kind: 'image_url' | 'file_id'; value: string };

export const DEFAULT_VIDEO_ERROR: VideoError = { code: 'video_generation_failed', message: 'Video generation failed (emulated).' };

export class VideoTask {
  readonly id = `video_${randomBytes(16).toString('hex')}`;
  readonly createdAtMs = Date.now();
  /** Set by DELETE (accepted only once the video is completed or failed). */
  deleted = false;
  stuck: boolean;
  failure: VideoError | undefined;
  private forced: { status: 'completed' | 'failed'; atMs: number; progress: number } | undefined;

  constructor(
    readonly model: string,
    readonly prompt: string,
    readonly seconds: string,
    readonly size: string,
    readonly inputReference: InputReference | undefined,
    readonly durationMs: number,
    behaviour: VideoBehaviour,
  ) {
    this.stuck = behaviour.stuck;
    this.failure = behaviour.fail === false ? undefined : behaviour.fail;
  }

  private elapsed(): number {
    return Date.now() - this.createdAtMs;
  }

  get status(): VideoStatus {
    if (this.forced) return this.forced.status;
    const elapsed = this.elapsed();
    if (elapsed < this.durationMs * 0.2) return 'queued';
    if (this.stuck || elapsed < this.durationMs) return 'in_progress';
    return this.failure ? 'failed' : 'completed';
  }

  get progress(): number {
    if (this.forced) return this.forced.progress;
    const status = this.status;
    if (status === 'queued') return 0;
    if (status === 'completed') return 100;
    const fraction = this.durationMs > 0 ? this.elapsed() / this.durationMs : 1;
    return Math.min(this.stuck ? 90 : 99, Math.max(1, Math.round(fraction * 100)));
  }

  /** Finish now (per-task control for tests). */
  completeNow(): void {
    this.forced = { status: 'completed', atMs: Date.now(), progress: 100 };
  }

  failNow(error: VideoError = DEFAULT_VIDEO_ERROR): void {
    this.failure = error;
    this.forced = { status: 'failed', atMs: Date.now(), progress: this.progress };
  }

  private finishedAtMs(): number | undefined {
    if (this.forced) return this.forced.atMs;
    const status = this.status;
    return status === 'completed' || status === 'failed' ? this.createdAtMs + this.durationMs : undefined;
  }

  toJSON(): Record<string, unknown> {
    const status = this.status;
    const finished = this.finishedAtMs();
    const completedAt = finished === undefined ? null : Math.floor(finished / 1000);
    return {
      id: this.id,
      object: 'video',
      model: this.model,
      status,
      progress: this.progress,
      created_at: Math.floor(this.createdAtMs / 1000),
      completed_at: completedAt,
      expires_at: status === 'completed' && completedAt !== null ? completedAt + 86_400 : null,
      error: status === 'failed' ? (this.failure ?? DEFAULT_VIDEO_ERROR) : null,
      prompt: this.prompt,
      remixed_from_video_id: null,
      seconds: this.seconds,
      size: this.size,
    };
  }
}

export interface VideoStore {
  videos: Map<string, VideoTask>;
  behaviour: VideoBehaviour;
  deleteCalls: string[];
}

async function readCreateBody(ctx: RequestContext): Promise<{ values: Record<string, unknown>; reference?: InputReference } | Reply> {
  const contentType = headerValue(ctx.req, 'content-type');
  if (contentType && isMultipart(contentType)) {
    let form;
    try {
      form = await parseMultipart(contentType, ctx.body);
    } catch {
      return openaiError(400, 'Could not parse the multipart form body.', { code: 'invalid_multipart' });
    }
    ctx.record.files = form.files.map(({ field, name, type, size }) => ({ field, name, type, size }));
    const file = form.files.find((entry) => entry.field === 'input_reference');
    const reference: InputReference | undefined = file ? { kind: 'file', name: file.name, type: file.type, size: file.size } : undefined;
    const unknownFile = form.files.find((entry) => !CREATE_PARAMS.has(entry.field));
    if (unknownFile) return unknownParameter(unknownFile.field);
    return { values: form.fields, reference };
  }
  const values = parseJsonObject(ctx.body);
  if (!values) return openaiError(400, 'We could not parse the JSON body of your request.', { code: 'invalid_json' });
  const ref = values.input_reference;
  if (ref === undefined || ref === null) return { values };
  if (typeof ref === 'object' && !Array.isArray(ref)) {
    const { image_url: imageUrl, file_id: fileId } = ref as Record<string, unknown>;
    if (typeof imageUrl === 'string') return { values, reference: { kind: 'image_url', value: imageUrl } };
    if (typeof fileId === 'string') return { values, reference: { kind: 'file_id', value: fileId } };
  }
  return badParam('input_reference', "Invalid 'input_reference': expected {image_url} or {file_id}.");
}

export async function handleCreateVideo(ctx: RequestContext, store: VideoStore): Promise<Reply> {
  const parsed = await readCreateBody(ctx);
  if ('status' in parsed) return parsed;
  const { values, reference } = parsed;
  const unknown = Object.keys(values).find((name) => !CREATE_PARAMS.has(name));
  if (unknown !== undefined) return unknownParameter(unknown);
  const prompt = values.prompt;
  if (typeof prompt !== 'string' || prompt.trim() === '') return badParam('prompt', "Missing required parameter: 'prompt'.", 'missing_required_parameter');
  const model = values.model === undefined ? 'sora-2' : String(values.model);
  if (!(VIDEO_MODELS as readonly string[]).includes(model)) return invalidValue('model', model, VIDEO_MODELS);
  // JSON bodies must send seconds as the string enum (a form field is always a string).
  if (values.seconds !== undefined && typeof values.seconds !== 'string') return invalidType('seconds', `one of ${SECONDS.map((v) => `'${v}'`).join(', ')}`, values.seconds);
  const seconds = values.seconds === undefined ? '4' : values.seconds;
  if (!SECONDS.includes(seconds)) return invalidValue('seconds', seconds, SECONDS);
  const sizes = VIDEO_SIZES[model as (typeof VIDEO_MODELS)[number]];
  const size = values.size === undefined ? '720x1280' : String(values.size);
  if (!sizes.includes(size)) return invalidValue('size', size, sizes);
  const task = new VideoTask(model, prompt, seconds, size, reference, store.behaviour.durationMs, store.behaviour);
  store.videos.set(task.id, task);
  return json(200, task.toJSON());
}

function live(store: VideoStore, id: string): VideoTask | undefined {
  const task = store.videos.get(id);
  return task && !task.deleted ? task : undefined;
}

function notFound(id: string): Reply {
  return openaiError(404, `Video with id '${id}' not found.`, { code: 'not_found', param: 'video_id' });
}

export function handleRetrieveVideo(store: VideoStore, id: string): Reply {
  const task = live(store, id);
  return task ? json(200, task.toJSON()) : notFound(id);
}

export function handleVideoContent(ctx: RequestContext, store: VideoStore, id: string, bytesPerSecond?: number): Reply {
  const task = live(store, id);
  if (!task) return notFound(id);
  if (task.status !== 'completed') {
    return openaiError(400, `Video is not ready yet (status: ${task.status}).`, { code: 'video_not_ready' });
  }
  const variant = queryOf(ctx.path).get('variant') ?? 'video';
  const dims = parseSize(task.size) ?? { width: 720, height: 1280 };
  if (variant === 'video') {
    return streamed(bytes(200, playableMp4({ ...dims, durationMs: Number(task.seconds) * 1000, ...(bytesPerSecond ? { bytesPerSecond } : {}) }), 'video/mp4'));
  }
  if (variant === 'thumbnail' || variant === 'spritesheet') {
    const small = capSize(dims.width, dims.height, 128);
    return streamed(bytes(200, cachedPng(small.width, small.height), 'image/png'));
  }
  return badParam('variant', `Invalid value for 'variant': ${variant}.`);
}

/** GET /v1/videos: the live (not deleted) videos, a cursor page of them. */
export function handleListVideos(ctx: RequestContext, store: VideoStore): Reply {
  const query = queryOf(ctx.path);
  const limitText = query.get('limit') ?? '20';
  const limit = Number(limitText);
  if (!/^\d+$/.test(limitText) || limit > 100) return badParam('limit', `Invalid 'limit': ${limitText}. Expected an integer from 0 to 100.`);
  const order = query.get('order') ?? 'desc';
  if (order !== 'asc' && order !== 'desc') return badParam('order', `Invalid 'order': ${order}. Expected 'asc' or 'desc'.`);
  let tasks = [...store.videos.values()].filter((task) => !task.deleted);
  if (order === 'desc') tasks.reverse(); // the Map keeps creation order
  const after = query.get('after');
  if (after !== null) {
    const at = tasks.findIndex((task) => task.id === after);
    tasks = at === -1 ? [] : tasks.slice(at + 1);
  }
  const data = tasks.slice(0, limit).map((task) => task.toJSON());
  return json(200, {
    object: 'list',
    data,
    first_id: (data[0]?.id as string | undefined) ?? null,
    last_id: (data.at(-1)?.id as string | undefined) ?? null,
    has_more: tasks.length > limit,
  });
}

export function handleDeleteVideo(store: VideoStore, id: string): Reply {
  store.deleteCalls.push(id);
  const task = live(store, id);
  if (!task) return notFound(id);
  const status = task.status;
  if (status === 'queued' || status === 'in_progress') {
    return openaiError(400, `Cannot delete video with status '${status}'. Only completed or failed videos can be deleted.`, { type: 'invalid_request_error', param: null, code: null });
  }
  task.deleted = true;
  return json(200, { id, object: 'video.deleted', deleted: true });
}
