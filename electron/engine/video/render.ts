/**
 * renderVideo: validate, queue on the worker pool, then write the MP4 to a temp file
 * beside outPath and rename it into place, so outPath never holds a partial file.
 */
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { EngineInputError } from '../images/index.js';
import { placeOutput } from './output-file.js';
import { abortError, JobFailedError, VideoWorkerPool } from './pool.js';
import { toEncodeJob } from './size.js';
import type { RenderedVideo, RenderVideoInput, RenderVideoOptions } from './types.js';
import { resolveWorkerUrl } from './worker-path.js';

let pool: VideoWorkerPool | null = null;

function isAborted(signal: AbortSignal | undefined): boolean {
  return signal !== undefined && signal.aborted;
}

/** One core stays free for the main thread (the HTTP server). */
export function defaultPoolSize(): number {
  return Math.max(1, availableParallelism() - 1);
}

/** The engine's one pool of encode workers (renders and transcodes share its cores). */
export function getPool(): VideoWorkerPool {
  if (pool === null) {
    const url = resolveWorkerUrl();
    pool = new VideoWorkerPool({ size: defaultPoolSize(), createWorker: () => new Worker(url, { name: 'video-encode' }) });
  }
  return pool;
}

/** Terminate all encode workers (tests, app exit). A later renderVideo starts a new pool. */
export async function shutdownVideoWorkers(): Promise<void> {
  const current = pool;
  pool = null;
  if (current !== null) await current.shutdown();
}

export async function renderVideo(input: RenderVideoInput, outPath: string, options: RenderVideoOptions = {}): Promise<RenderedVideo> {
  const job = toEncodeJob(input);
  const { signal, onProgress } = options;
  if (isAborted(signal)) throw abortError();
  const report = (percent: number): void => {
    try {
      onProgress?.(percent);
    } catch {
      // Progress is advisory; a failing callback must not fail the render.
    }
  };
  const target = resolve(outPath);
  let last = -1;
  let mp4: Uint8Array;
  try {
    mp4 = await getPool().run(job, {
      signal,
      onProgress: (percent) => {
        const value = Math.min(99, Math.floor(percent));
        if (value > last) {
          last = value;
          report(value);
        }
      },
    });
  } catch (error) {
    if (error instanceof JobFailedError && error.input) throw new EngineInputError(error.message);
    throw error;
  }
  await placeOutput(target, mp4, signal);
  report(100);
  return { path: target, bytes: mp4.byteLength, width: job.width, height: job.height, frames: job.frames, fps: job.fps, seconds: job.frames / job.fps };
}
