// One fal queue request and its lifecycle, computed from the clock on every read (no timers):
// IN_QUEUE for the first 20% of durationMs, then IN_PROGRESS, then COMPLETED.
// Docs followed: https://fal.ai/docs/documentation/model-apis/inference/queue (lifecycle, status
// fields queue_position / logs / metrics.inference_time), https://fal.ai/docs/api-reference/inference-api
// (status answers 202 while queued or running and 200 when complete),
// https://fal.ai/docs/inference-api/queue/result (a failed model call returns the model's error
// from the result URL), https://docs.fal.ai/documentation/model-apis/errors (model errors:
// {detail: [{loc, msg, type, url, input}]}, e.g. 422 content_policy_violation),
// https://docs.fal.ai/documentation/model-apis/request-errors (request errors: {detail,
// error_type} plus an X-Fal-Error-Type header). Result payloads mirror fal model outputs:
// video models {video: {url, content_type, file_name, file_size}} (a playable H.264 MP4), image
// models {images: [{url, width, height, content_type}]}.
import { randomBytes, randomUUID } from 'node:crypto';
import { playableMp4 } from './mp4.js';
import { cachedPng, capSize } from './png.js';

export type FalStatus = 'IN_QUEUE' | 'IN_PROGRESS' | 'COMPLETED';
export type FalKind = 'video' | 'image';

/** How a failed request answers on its response_url. */
export interface FalFailure {
  status: number;
  body: unknown;
  /** Request-level errors carry it in the body and the X-Fal-Error-Type header. */
  errorType?: string;
}

/** Settings snapshotted by each new request; mutable on the emulator (`behaviour`). */
export interface FalBehaviour {
  durationMs: number;
  stuck: boolean;
  /** true: a 422 content_policy_violation model error naming the prompt. */
  fail: FalFailure | boolean;
  /** 'auto': video when the model path contains "video", else image. */
  kind: FalKind | 'auto';
  exactSize: boolean;
  /**
   * Each returned URL carries its own signature (as signed queue URLs do), so none can be
   * derived from another: a client appending /status to response_url gets a 404.
   */
  signedUrls: boolean;
  /** Bytes of one second of a video file (default: playableMp4's realistic bitrate). */
  videoBytesPerSecond?: number;
}

export type FalUrlKind = 'status' | 'result' | 'cancel';

export function contentPolicyFailure(prompt: string): FalFailure {
  return {
    status: 422,
    body: {
      detail: [
        {
          loc: ['body', 'prompt'],
          msg: 'The content could not be processed because it contained material flagged by a content checker.',
          type: 'content_policy_violation',
          url: 'https://docs.fal.ai/errors/#content_policy_violation',
          input: prompt,
        },
      ],
    },
  };
}

const IMAGE_PRESETS: Record<string, { width: number; height: number }> = {
  square_hd: { width: 1024, height: 1024 },
  square: { width: 512, height: 512 },
  portrait_4_3: { width: 768, height: 1024 },
  portrait_16_9: { width: 576, height: 1024 },
  landscape_4_3: { width: 1024, height: 768 },
  landscape_16_9: { width: 1024, height: 576 },
};
const ASPECTS: Record<string, { width: number; height: number }> = {
  '16:9': { width: 1280, height: 720 },
  '9:16': { width: 720, height: 1280 },
  '1:1': { width: 720, height: 720 },
};

export interface FalFile {
  bytes: Buffer;
  contentType: string;
}

export class FalJob {
  readonly id = randomUUID();
  readonly createdAtMs = Date.now();
  readonly owner: string;
  readonly app: string;
  readonly kind: FalKind;
  readonly durationMs: number;
  readonly exactSize: boolean;
  readonly videoBytesPerSecond: number | undefined;
  /** The signature each URL must carry (?sig=), or null when the URLs are unsigned. */
  readonly signatures: Record<FalUrlKind, string> | null;
  stuck: boolean;
  failure: FalFailure | undefined;
  cancelled = false;
  private forcedAtMs: number | undefined;
  private output: { result: Record<string, unknown>; files: Map<string, FalFile> } | undefined;

  constructor(
    readonly modelPath: string,
    readonly input: Record<string, unknown>,
    behaviour: FalBehaviour,
  ) {
    const [owner = '', app = owner] = modelPath.split('/');
    this.owner = owner;
    this.app = app;
    this.kind = behaviour.kind === 'auto' ? (modelPath.includes('video') ? 'video' : 'image') : behaviour.kind;
    this.durationMs = behaviour.durationMs;
    this.exactSize = behaviour.exactSize;
    this.videoBytesPerSecond = behaviour.videoBytesPerSecond;
    const sign = () => randomBytes(6).toString('hex');
    this.signatures = behaviour.signedUrls ? { status: sign(), result: sign(), cancel: sign() } : null;
    this.stuck = behaviour.stuck;
    this.failure = behaviour.fail === true ? contentPolicyFailure(this.prompt) : behaviour.fail || undefined;
  }

  get status(): FalStatus {
    if (this.cancelled || this.forcedAtMs !== undefined) return 'COMPLETED';
    const elapsed = Date.now() - this.createdAtMs;
    if (elapsed < this.durationMs * 0.2) return 'IN_QUEUE';
    if (this.stuck || elapsed < this.durationMs) return 'IN_PROGRESS';
    return 'COMPLETED';
  }

  /** Per-request control for tests: finish now (successfully unless a failure is set). */
  completeNow(): void {
    this.forcedAtMs ??= Date.now();
  }

  failNow(failure: FalFailure = contentPolicyFailure(this.prompt)): void {
    this.failure = failure;
    this.completeNow();
  }

  get prompt(): string {
    return typeof this.input.prompt === 'string' ? this.input.prompt : '';
  }

  /** Seconds of (emulated) inference, for metrics.inference_time. */
  inferenceTime(): number {
    const end = this.forcedAtMs ?? this.createdAtMs + this.durationMs;
    return Math.max(0, (end - this.createdAtMs) * 0.8) / 1000;
  }

  /** The model output and its files (built once, on first use, with URLs on `origin`). */
  outputFor(origin: string): { result: Record<string, unknown>; files: Map<string, FalFile> } {
    this.output ??= this.kind === 'video' ? this.videoOutput(origin) : this.imageOutput(origin);
    return this.output;
  }

  private videoOutput(origin: string) {
    const seconds = Number.parseFloat(String(this.input.duration ?? '5')) || 5;
    const dims = ASPECTS[String(this.input.aspect_ratio ?? '16:9')] ?? { width: 1280, height: 720 };
    const name = `${this.id}.mp4`;
    const mp4 = playableMp4({ ...dims, durationMs: seconds * 1000, ...(this.videoBytesPerSecond ? { bytesPerSecond: this.videoBytesPerSecond } : {}) });
    const result = {
      video: { url: `${origin}/files/${name}`, content_type: 'video/mp4', file_name: 'output.mp4', file_size: mp4.length },
      seed: 42,
    };
    return { result, files: new Map([[name, { bytes: mp4, contentType: 'video/mp4' }]]) };
  }

  private imageOutput(origin: string) {
    const size = this.input.image_size;
    let requested = IMAGE_PRESETS.landscape_4_3 ?? { width: 1024, height: 768 };
    if (typeof size === 'string' && IMAGE_PRESETS[size]) requested = IMAGE_PRESETS[size] ?? requested;
    if (typeof size === 'object' && size !== null) {
      const { width, height } = size as Record<string, unknown>;
      if (Number.isInteger(width) && Number.isInteger(height)) requested = { width: Number(width), height: Number(height) };
    }
    // The result reports the size of the PNG actually served, so bytes and metadata agree.
    const served = this.exactSize ? requested : capSize(requested.width, requested.height, 256);
    const count = Math.min(4, Math.max(1, Number(this.input.num_images ?? 1) || 1));
    const files = new Map<string, FalFile>();
    const images = Array.from({ length: count }, (_, i) => {
      const name = `${this.id}-${i}.png`;
      files.set(name, { bytes: cachedPng(served.width, served.height, (i * 71 + 10) & 0xff), contentType: 'image/png' });
      return { url: `${origin}/files/${name}`, width: served.width, height: served.height, content_type: 'image/png' };
    });
    const result = { images, seed: 42, has_nsfw_concepts: images.map(() => false), prompt: this.prompt, timings: { inference: this.inferenceTime() } };
    return { result, files };
  }
}
