// stable-diffusion.cpp's async job manager: ids, the FIFO queue and its one worker, TTL expiry,
// cancellation, and the job JSON.
// Source followed: examples/server/async_jobs.h / async_jobs.cpp (AsyncJobStatus queued ->
// generating -> completed | failed, or cancelled while queued; make_async_job_id "job_<hex unix
// seconds>_<8 hex digits counter>"; count_pending_jobs (queued + generating) against
// max_pending_jobs = 64; purge_expired_jobs: a job finished (completed_at set) for
// completed/failed_ttl_seconds = 600 leaves `jobs` and its id answers 410 for max(ttl, 60) s more,
// then 404; cancel_queued_job -> status cancelled, error {code: "cancelled", message: "job
// cancelled by client"}; make_async_job_json {id, kind, status, created, started, completed,
// queue_position (1-based while queued, else 0), result, error}; the worker marks a job
// generating, runs it under sd_ctx_mutex, then completes it, or fails it with
// {code: "generation_failed", message}; a job no longer in `jobs` when it ends is dropped).
// There is no progress field anywhere in the job JSON.
import { Gate, Mutex } from './restartable-server.js';
import type { GenParams, SdcppMode } from './sdcpp-params.js';

export type SdcppJobStatus = 'queued' | 'generating' | 'completed' | 'failed' | 'cancelled';

export interface SdcppJobResult {
  images?: string[];
  media?: { b64: string; mimeType: string; frameCount: number; fps: number };
}

export interface SdcppJob {
  id: string;
  kind: SdcppMode;
  status: SdcppJobStatus;
  /** Unix seconds, as the server reports them. */
  created: number;
  started: number;
  completed: number;
  /** Milliseconds of completion (the emulator's TTL clock). */
  completedMs: number;
  /** The JSON body as received. */
  body: Record<string, unknown>;
  params: GenParams;
  outputFormat: string;
  compression: number;
  result?: SdcppJobResult;
  error?: { code: string; message: string };
  /** Emulator-side only (the API has no progress): sampling steps done / planned. */
  step: number;
  steps: number;
}

export interface JobManagerConfig {
  maxPending: () => number;
  ttlMs: () => number;
  /** Runs a job under the engine lock; resolves to its result or throws Error(message). */
  execute(job: SdcppJob): Promise<SdcppJobResult>;
  /** The engine lock shared with the synchronous image routes (sd_ctx_mutex). */
  lock: Mutex;
}

const seconds = () => Math.floor(Date.now() / 1000);

export class JobManager {
  readonly jobs = new Map<string, SdcppJob>();
  /** Job id -> ms until which it answers 410. */
  readonly expired = new Map<string, number>();
  readonly queue: string[] = [];
  private nextId = 0;
  private working = false;
  private startGate: Gate | undefined;
  private epoch = 0;

  constructor(private readonly config: JobManagerConfig) {}

  purge(now = Date.now()): void {
    for (const [id, until] of this.expired) if (until <= now) this.expired.delete(id);
    const ttl = this.config.ttlMs();
    for (const [id, job] of this.jobs) {
      if (job.completed === 0 || now - job.completedMs < ttl) continue;
      this.expireNow(id, now);
    }
  }

  /** Moves a job to the expired set now (what purge does once its TTL has passed). */
  expireNow(id: string, now = Date.now()): boolean {
    if (!this.jobs.has(id)) return false;
    this.jobs.delete(id);
    const at = this.queue.indexOf(id);
    if (at !== -1) this.queue.splice(at, 1);
    this.expired.set(id, now + Math.max(this.config.ttlMs(), 60_000));
    return true;
  }

  pending(): number {
    let count = 0;
    for (const job of this.jobs.values()) if (job.status === 'queued' || job.status === 'generating') count++;
    return count;
  }

  /** Queues a job; undefined when the queue is full (429). */
  submit(kind: SdcppMode, body: Record<string, unknown>, params: GenParams, outputFormat: string, compression: number): SdcppJob | undefined {
    this.purge();
    if (this.pending() >= this.config.maxPending()) return undefined;
    const id = `job_${seconds().toString(16)}_${(this.nextId++).toString(16).padStart(8, '0')}`;
    const job: SdcppJob = { id, kind, status: 'queued', created: seconds(), started: 0, completed: 0, completedMs: 0, body, params, outputFormat, compression, step: 0, steps: params.sampleSteps };
    this.jobs.set(id, job);
    this.queue.push(id);
    void this.pump();
    return job;
  }

  /** The job, 'expired' (410) or undefined (404). */
  lookup(id: string): SdcppJob | 'expired' | undefined {
    this.purge();
    return this.jobs.get(id) ?? (this.expired.has(id) ? 'expired' : undefined);
  }

  /** Queued -> cancelled (true); false otherwise. */
  cancelQueued(job: SdcppJob): boolean {
    const at = this.queue.indexOf(job.id);
    if (at === -1) return false;
    this.queue.splice(at, 1);
    Object.assign(job, { status: 'cancelled', completed: seconds(), completedMs: Date.now(), result: undefined, error: { code: 'cancelled', message: 'job cancelled by client' } });
    return true;
  }

  toJson(job: SdcppJob): Record<string, unknown> {
    const out: Record<string, unknown> = {
      id: job.id,
      kind: job.kind,
      status: job.status,
      created: job.created,
      started: job.started === 0 ? null : job.started,
      completed: job.completed === 0 ? null : job.completed,
      queue_position: job.status === 'queued' ? this.queue.indexOf(job.id) + 1 : 0,
    };
    if (job.status === 'completed' && job.result?.media) {
      const m = job.result.media;
      out.result = { output_format: job.outputFormat, mime_type: m.mimeType, fps: m.fps, frame_count: m.frameCount, b64_json: m.b64 };
      out.error = null;
    } else if (job.status === 'completed') {
      out.result = { output_format: job.outputFormat, images: (job.result?.images ?? []).map((b64, index) => ({ index, b64_json: b64 })) };
      out.error = null;
    } else if (job.status === 'failed' || job.status === 'cancelled') {
      out.result = null;
      out.error = { code: job.error?.code || (job.status === 'cancelled' ? 'cancelled' : 'generation_failed'), message: job.error?.message ?? '' };
    } else {
      out.result = null;
      out.error = null;
    }
    return out;
  }

  /** Holds the worker before it takes the next queued job; jobs stay queued until release(). */
  holdStart(): Gate {
    const gate = new Gate();
    this.startGate = gate;
    return gate;
  }

  /** A restart of the server process: every job, queued or running, is gone. */
  reset(): void {
    this.epoch += 1;
    this.jobs.clear();
    this.expired.clear();
    this.queue.splice(0);
    this.nextId = 0;
    this.startGate?.release();
    this.startGate = undefined;
    this.working = false;
  }

  private async pump(): Promise<void> {
    if (this.working) return;
    this.working = true;
    const epoch = this.epoch;
    try {
      while (this.epoch === epoch) {
        if (this.queue.length === 0) return;
        const gate = this.startGate;
        if (gate && !gate.isOpen) {
          await gate.wait();
          if (this.epoch !== epoch) return;
          continue;
        }
        this.purge();
        const id = this.queue.shift();
        const job = id === undefined ? undefined : this.jobs.get(id);
        if (!job) continue;
        job.status = 'generating';
        job.started = seconds();
        let result: SdcppJobResult | undefined;
        let failure: string | undefined;
        try {
          result = await this.config.lock.run(() => this.config.execute(job));
        } catch (error) {
          failure = error instanceof Error ? error.message : String(error);
        }
        if (this.epoch !== epoch) return;
        if (!this.jobs.has(job.id)) continue;
        job.completed = seconds();
        job.completedMs = Date.now();
        if (result) Object.assign(job, { status: 'completed', result, error: undefined });
        else Object.assign(job, { status: 'failed', result: undefined, error: { code: 'generation_failed', message: failure || 'unknown generation error' } });
        this.purge();
      }
    } finally {
      if (this.epoch === epoch) this.working = false;
    }
  }
}
