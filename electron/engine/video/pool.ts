/**
 * A small pool of encode workers with a FIFO queue. Rendering is CPU-bound and
 * synchronous inside a worker, so cancellation terminates the worker outright (a
 * "please stop" message would only be read after the job ended) and a fresh worker is
 * spawned for the next job. Idle workers are unref'd so they never keep a process alive.
 */
import type { Worker } from 'node:worker_threads';
import type { EncodeJob, TranscodedInfo, TranscodeJob, WorkerMessage } from './protocol.js';

export interface RunOptions {
  onProgress?: (percent: number) => void;
  signal?: AbortSignal;
}

export interface PoolOptions {
  size: number;
  createWorker: () => Worker;
}

/** A job the worker refused or failed; `input` marks the caller's fault (bad reference). */
export class JobFailedError extends Error {
  constructor(message: string, readonly input: boolean) {
    super(message);
    this.name = 'JobFailedError';
  }
}

export function abortError(): Error {
  const error = new Error('video render aborted');
  error.name = 'AbortError';
  return error;
}

/** What a worker is asked to do: render a clip, or re-encode another engine's video file. */
type Work = { type: 'job'; job: EncodeJob } | { type: 'transcode'; job: TranscodeJob };

interface Done {
  mp4: Uint8Array;
  info?: TranscodedInfo;
}

interface Task {
  id: number;
  work: Work;
  options: RunOptions;
  resolve: (done: Done) => void;
  reject: (error: Error) => void;
  detach: () => void;
}

interface Slot {
  worker: Worker;
  task: Task | null;
}

export class VideoWorkerPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  private readonly terminating = new Set<Promise<number>>();
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: PoolOptions) {}

  get stats(): { workers: number; busy: number; queued: number } {
    return { workers: this.slots.length, busy: this.slots.filter((s) => s.task !== null).length, queued: this.queue.length };
  }

  run(job: EncodeJob, options: RunOptions = {}): Promise<Uint8Array> {
    return this.enqueue({ type: 'job', job }, options).then((done) => done.mp4);
  }

  /** Re-encodes a video file to H.264 MP4 in a worker; resolves with the MP4 and what the input held. */
  transcode(job: TranscodeJob, options: RunOptions = {}): Promise<{ mp4: Uint8Array; info: TranscodedInfo }> {
    return this.enqueue({ type: 'transcode', job }, options).then((done) => {
      if (done.info === undefined) throw new Error('video worker returned no transcode info');
      return { mp4: done.mp4, info: done.info };
    });
  }

  private enqueue(work: Work, options: RunOptions): Promise<Done> {
    if (this.closed) return Promise.reject(new Error('video worker pool has been shut down'));
    const { signal } = options;
    if (signal?.aborted === true) return Promise.reject(abortError());
    return new Promise<Done>((resolve, reject) => {
      const task: Task = { id: this.nextId++, work, options, resolve, reject, detach: () => undefined };
      if (signal !== undefined) {
        const onAbort = (): void => this.abort(task);
        signal.addEventListener('abort', onAbort, { once: true });
        task.detach = () => signal.removeEventListener('abort', onAbort);
      }
      this.queue.push(task);
      this.pump();
    });
  }

  /** Reject everything pending and terminate all workers. */
  async shutdown(): Promise<void> {
    this.closed = true;
    for (const task of this.queue.splice(0)) this.settle(task, new Error('video worker pool shut down'));
    for (const slot of this.slots.splice(0)) {
      if (slot.task !== null) this.settle(slot.task, new Error('video worker pool shut down'));
      this.terminate(slot.worker);
    }
    await Promise.all([...this.terminating]);
  }

  private pump(): void {
    while (!this.closed && this.queue.length > 0) {
      let slot = this.slots.find((s) => s.task === null);
      if (slot === undefined) {
        if (this.slots.length >= Math.max(1, this.options.size)) return;
        slot = this.spawn();
      }
      const task = this.queue.shift();
      if (task === undefined) return;
      slot.task = task;
      slot.worker.ref();
      const { work } = task;
      if (work.type === 'transcode') {
        slot.worker.postMessage({ type: 'transcode', id: task.id, job: work.job });
        continue;
      }
      // Copy the reference into its own buffer (a Buffer may view a larger pool) and transfer it.
      const reference = work.job.reference === null ? null : new Uint8Array(work.job.reference);
      slot.worker.postMessage({ type: 'job', id: task.id, job: { ...work.job, reference } }, reference === null ? [] : [reference.buffer]);
    }
  }

  private spawn(): Slot {
    const worker = this.options.createWorker();
    const slot: Slot = { worker, task: null };
    this.slots.push(slot);
    worker.on('message', (message: WorkerMessage) => this.onMessage(slot, message));
    worker.on('error', (error: Error) => this.onCrash(slot, `video worker crashed: ${error.message}`));
    worker.on('exit', (code: number) => this.onCrash(slot, `video worker exited unexpectedly (code ${code})`));
    return slot;
  }

  private onMessage(slot: Slot, message: WorkerMessage): void {
    const task = slot.task;
    if (task === null || message.id !== task.id) return;
    if (message.type === 'progress') {
      try {
        task.options.onProgress?.(message.percent);
      } catch {
        // A throwing progress callback must not take the pool down.
      }
      return;
    }
    slot.task = null;
    slot.worker.unref();
    if (message.type === 'done') this.settle(task, null, message.info === undefined ? { mp4: message.mp4 } : { mp4: message.mp4, info: message.info });
    else this.settle(task, new JobFailedError(message.message, message.input));
    this.pump();
  }

  /** Worker died ('error' then 'exit', or 'exit' alone): fail its job and forget the worker. */
  private onCrash(slot: Slot, reason: string): void {
    const index = this.slots.indexOf(slot);
    if (index < 0) return;
    this.slots.splice(index, 1);
    if (slot.task !== null) this.settle(slot.task, new Error(reason));
    slot.task = null;
    this.terminate(slot.worker);
    this.pump();
  }

  private abort(task: Task): void {
    const queued = this.queue.indexOf(task);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      this.settle(task, abortError());
      return;
    }
    const slot = this.slots.find((s) => s.task === task);
    if (slot === undefined) return;
    this.slots.splice(this.slots.indexOf(slot), 1);
    slot.task = null;
    this.settle(task, abortError());
    this.terminate(slot.worker);
    this.pump();
  }

  private terminate(worker: Worker): void {
    const done = worker.terminate().catch(() => 0);
    this.terminating.add(done);
    void done.then(() => this.terminating.delete(done));
  }

  private settle(task: Task, error: Error | null, done?: Done): void {
    task.detach();
    if (error !== null) task.reject(error);
    else if (done?.mp4 !== undefined) task.resolve(done);
    else task.reject(new Error('video worker returned no data'));
  }
}
