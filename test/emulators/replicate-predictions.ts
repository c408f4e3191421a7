// One Replicate prediction and its lifecycle, computed from the clock on every read (no timers):
// starting for the first 20% of durationMs, then processing (with a tqdm progress line in its
// logs, as most models print), then succeeded (or failed). Docs followed: the prediction object
// of predictions.get in Replicate's OpenAPI document (id, model, version "hidden" for official
// models, input, logs, output, data_removed, error, status, created_at, started_at,
// completed_at, urls {web, get, cancel}, metrics {predict_time, total_time}); statuses
// starting, processing, succeeded, failed, canceled ("by its creator, or because it reached
// its deadline while running") and aborted ("terminated before it started running, for example
// when a deadline is reached"); the Cancel-After header (a duration, "30s", "5m", "1h30m45s";
// at least 5 s); outputs removed an hour after the end (data_removed: true, output null).
import { randomBytes } from 'node:crypto';
import { playableMp4 } from './mp4.js';
import { cachedPng, capSize } from './png.js';
import type { ModelSpec } from './replicate-models.js';

export type ReplicateStatus = 'starting' | 'processing' | 'succeeded' | 'failed' | 'canceled' | 'aborted';

/** Settings snapshotted by each new prediction; mutable on the emulator (`behaviour`). */
export interface ReplicateBehaviour {
  durationMs: number;
  /** New predictions never finish by themselves. */
  stuck: boolean;
  /** New predictions fail with this error (the model's own message). */
  fail: string | false;
  /** The container of video outputs: an MP4, or a WebM the gateway must refuse. */
  videoContainer: 'mp4' | 'webm';
  /**
   * Sync mode answers once the files are there, while the status still says processing (the
   * docs: "the output field will contain all file outputs but status may still be processing").
   */
  filesBeforeSucceeded: boolean;
  /** Outputs are removed this long after the end (Replicate: an hour); null: never. */
  outputTtlMs: number | null;
  /** Images at the size asked (else the longer side capped at 256 px). */
  exactSize: boolean;
  /** Sync mode holds a call at most this long, whatever Prefer asked (null: as asked): the wait "passes" sooner. */
  syncWaitMs: number | null;
}

export interface InputFile {
  url: string;
  mime: string;
  bytes: Buffer;
}

export interface OutputFile {
  bytes: Buffer;
  contentType: string;
}

const ASPECTS: Record<string, [number, number]> = { '16:9': [16, 9], '9:16': [9, 16], '1:1': [1, 1], '4:3': [4, 3], '3:4': [3, 4], '21:9': [21, 9], '9:21': [9, 21], '3:2': [3, 2], '2:3': [2, 3], '4:5': [4, 5], '5:4': [5, 4] };
const RESOLUTIONS: Record<string, number> = { '480p': 480, '512p': 512, '720p': 720, '768p': 768, '1080p': 1080 };

/** A Replicate-style id: 26 lowercase base32 characters. */
function newId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  return [...randomBytes(26)].map((b) => alphabet[b & 31]).join('');
}

/** A duration as Cancel-After takes it, in ms; null when it is not one. */
export function parseDuration(text: string): number | null {
  const value = text.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  if (!/^(\d+(h|m|s))+$/.test(value)) return null;
  let ms = 0;
  for (const [, amount, unit] of value.matchAll(/(\d+)(h|m|s)/g)) ms += Number(amount) * { h: 3_600_000, m: 60_000, s: 1000 }[unit as 'h' | 'm' | 's'];
  return ms;
}

export class ReplicatePrediction {
  readonly id = newId();
  readonly createdAtMs = Date.now();
  readonly durationMs: number;
  readonly behaviour: Readonly<ReplicateBehaviour>;
  stuck: boolean;
  failure: string | null;
  /** Why an input file could not be read (the prediction fails when it starts). */
  inputProblem: string | null = null;
  private canceledAtMs: number | null = null;
  private forcedAtMs: number | null = null;
  private output: { urls: string[]; files: Map<string, OutputFile> } | null = null;

  constructor(
    readonly model: ModelSpec,
    readonly input: Record<string, unknown>,
    /** The files its input named, resolved (data: URLs decoded, Files API files looked up). */
    readonly inputFiles: InputFile[],
    behaviour: ReplicateBehaviour,
    /** Cancel-After, in ms from creation; null: none. */
    readonly cancelAfterMs: number | null,
    /** How it was created: the Prefer header, the route. */
    readonly created: { prefer: string | null; route: string },
  ) {
    this.behaviour = { ...behaviour };
    this.durationMs = behaviour.durationMs;
    this.stuck = behaviour.stuck;
    this.failure = behaviour.fail || null;
  }

  private get startsAtMs(): number {
    return this.createdAtMs + this.durationMs * 0.2;
  }

  /** When it ended by itself or was ended, or null while it runs. */
  private endedAtMs(now: number): number | null {
    const candidates = [this.canceledAtMs, this.forcedAtMs, this.stuck ? null : this.createdAtMs + this.durationMs];
    if (this.inputProblem) candidates.push(this.startsAtMs);
    if (this.cancelAfterMs !== null) candidates.push(this.createdAtMs + this.cancelAfterMs);
    const ends = candidates.filter((t): t is number => t !== null);
    const first = ends.length > 0 ? Math.min(...ends) : null;
    return first !== null && first <= now ? first : null;
  }

  get status(): ReplicateStatus {
    const now = Date.now();
    const end = this.endedAtMs(now);
    if (end === null) return now < this.startsAtMs ? 'starting' : 'processing';
    if (end === this.canceledAtMs) return 'canceled';
    if (this.cancelAfterMs !== null && end === this.createdAtMs + this.cancelAfterMs && end !== this.forcedAtMs) return end < this.startsAtMs ? 'aborted' : 'canceled';
    if (this.inputProblem || this.failure) return 'failed';
    return 'succeeded';
  }

  get ended(): boolean {
    return !['starting', 'processing'].includes(this.status);
  }

  /** Whether the outputs were removed (outputTtlMs after the end). */
  get dataRemoved(): boolean {
    const end = this.endedAtMs(Date.now());
    return end !== null && this.behaviour.outputTtlMs !== null && Date.now() >= end + this.behaviour.outputTtlMs;
  }

  /** Sync mode may answer now: it ended, or its files are there (filesBeforeSucceeded, in the last tenth of its run). */
  get answerable(): boolean {
    if (this.ended) return true;
    return this.behaviour.filesBeforeSucceeded && this.status === 'processing' && !this.failure && !this.inputProblem && Date.now() >= this.createdAtMs + this.durationMs * 0.9;
  }

  cancel(): void {
    if (!this.ended) this.canceledAtMs = Date.now();
  }

  /** Per-prediction control for tests: end now (succeeded unless a failure is set). */
  completeNow(): void {
    if (!this.ended) this.forcedAtMs = Date.now();
  }

  failNow(error = 'The model failed'): void {
    this.failure = error;
    this.completeNow();
  }

  /** Resolves once sync mode may answer, or after `ms`. */
  async settle(ms: number): Promise<void> {
    const until = Date.now() + ms;
    while (!this.answerable && Date.now() < until) await new Promise((r) => setTimeout(r, Math.min(10, Math.max(1, until - Date.now()))).unref());
  }

  /** The progress its logs show while it runs (0-100). */
  private progress(): number {
    const elapsed = Date.now() - this.startsAtMs;
    return Math.max(0, Math.min(99, Math.floor((elapsed / (this.durationMs * 0.8)) * 100)));
  }

  private logs(status: ReplicateStatus): string {
    if (status === 'starting') return '';
    const percent = status === 'processing' ? this.progress() : 100;
    const steps = Math.round((percent / 100) * 28);
    const bar = '\u2588'.repeat(Math.floor(percent / 10)).padEnd(10);
    return `Using seed: ${String(this.input.seed ?? 42)}\n${String(percent).padStart(3)}%|${bar}| ${steps}/28 [00:01<00:01, 20.00it/s]\n`;
  }

  /** The prediction object as the API answers it, its URLs on `origin`. */
  toJson(origin: string): Record<string, unknown> {
    const status = this.status;
    const ended = !['starting', 'processing'].includes(status);
    const removed = this.dataRemoved;
    const showFiles = status === 'succeeded' || (status === 'processing' && this.answerable);
    const api = `${origin}/v1/predictions/${this.id}`;
    const endAt = this.endedAtMs(Date.now());
    const body: Record<string, unknown> = {
      id: this.id,
      model: `${this.model.owner}/${this.model.name}`,
      version: this.model.official ? 'hidden' : this.model.version,
      input: removed ? {} : this.input,
      logs: removed ? '' : this.logs(status),
      output: showFiles && !removed ? this.outputFor(origin).value : null,
      data_removed: removed,
      error: status === 'failed' ? (this.inputProblem ?? this.failure) : null,
      status,
      source: 'api',
      created_at: new Date(this.createdAtMs).toISOString(),
      started_at: status === 'starting' || status === 'aborted' ? null : new Date(this.startsAtMs).toISOString(),
      completed_at: ended && endAt !== null ? new Date(endAt).toISOString() : null,
      urls: { web: `https://replicate.com/p/${this.id}`, get: api, cancel: `${api}/cancel` },
    };
    if (this.cancelAfterMs !== null) body.deadline = new Date(this.createdAtMs + this.cancelAfterMs).toISOString();
    if (ended && endAt !== null) body.metrics = { predict_time: Math.max(0, endAt - this.startsAtMs) / 1000, total_time: (endAt - this.createdAtMs) / 1000 };
    return body;
  }

  /** An output file, while it is served (succeeded, and not yet removed). */
  file(name: string, origin: string): OutputFile | undefined {
    if ((this.status !== 'succeeded' && !this.answerable) || this.dataRemoved) return undefined;
    return this.outputFor(origin).files.get(name);
  }

  private outputFor(origin: string): { value: unknown; files: Map<string, OutputFile> } {
    this.output ??= this.model.kind === 'video' ? this.videoOutput(origin) : this.imageOutput(origin);
    const value = this.model.output === 'string' ? this.output.urls[0] : this.output.urls;
    return { value, files: this.output.files };
  }

  private imageOutput(origin: string): { urls: string[]; files: Map<string, OutputFile> } {
    const asked = this.imageSize();
    const size = this.behaviour.exactSize ? asked : capSize(asked.width, asked.height, 256);
    const count = Math.min(4, Math.max(1, Number(this.input.num_outputs ?? 1) || 1));
    const files = new Map<string, OutputFile>();
    const urls = Array.from({ length: count }, (_, i) => {
      const name = `out-${i}.png`;
      files.set(name, { bytes: cachedPng(size.width, size.height, (i * 53 + 17) & 0xff), contentType: 'image/png' });
      return `${origin}/delivery/${this.id}/${name}`;
    });
    return { urls, files };
  }

  /** The size an image model renders: width/height, an aspect ratio at about a megapixel, or the first reference's. */
  private imageSize(): { width: number; height: number } {
    const { width, height, aspect_ratio: ratio } = this.input;
    if (Number.isInteger(width) && Number.isInteger(height)) return { width: width as number, height: height as number };
    if (ratio === 'match_input_image') {
      const first = this.inputFiles[0];
      if (first && first.bytes.readUInt32BE(0) === 0x89504e47) return { width: first.bytes.readUInt32BE(16), height: first.bytes.readUInt32BE(20) };
    }
    const [a, b] = ASPECTS[String(ratio)] ?? [1, 1];
    const scale = Math.sqrt((1024 * 1024) / (a * b));
    return { width: Math.round((a * scale) / 16) * 16, height: Math.round((b * scale) / 16) * 16 };
  }

  private videoOutput(origin: string): { urls: string[]; files: Map<string, OutputFile> } {
    const seconds = typeof this.input.duration === 'number' ? this.input.duration : 5;
    const [a, b] = ASPECTS[String(this.input.aspect_ratio)] ?? [16, 9];
    const short = RESOLUTIONS[String(this.input.resolution)] ?? 720;
    // Even sizes, the short side at the resolution asked.
    const even = (n: number) => Math.max(2, Math.round(n / 2) * 2);
    const [width, height] = a >= b ? [even((short * a) / b), short] : [short, even((short * b) / a)];
    const name = `output.${this.behaviour.videoContainer}`;
    const bytes = this.behaviour.videoContainer === 'mp4' ? playableMp4({ width, height, durationMs: seconds * 1000, bytesPerSecond: 40_000 }) : webm();
    const contentType = this.behaviour.videoContainer === 'mp4' ? 'video/mp4' : 'video/webm';
    return { urls: [`${origin}/delivery/${this.id}/${name}`], files: new Map([[name, { bytes, contentType }]]) };
  }
}

/** The head of a WebM file (an EBML header) and some bytes: what a model writing WebM answers. */
function webm(): Buffer {
  return Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01]), Buffer.from('webm\u0000'.repeat(64), 'latin1')]);
}
