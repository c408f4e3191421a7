/**
 * Worker-thread entry: renders every frame and encodes it here (or re-encodes another engine's
 * video file, see transcode-frames.ts), so the main thread (an HTTP server) only exchanges a job
 * description, progress ticks and the final MP4.
 * One job at a time per worker; the pool never sends a second job before the first ends.
 */
import { parentPort } from 'node:worker_threads';
import { openEncoder, type Mp4Encoder } from './encoder.js';
import type { FrameSource } from './frame-source.js';
import { createImageFrameSource } from './image-frames.js';
import { finalizeMp4 } from './mp4-finalize.js';
import type { EncodeJob, JobMessage, TranscodeJob, WorkerMessage } from './protocol.js';
import { TextFrameSource } from './text-frames.js';
import { TranscodeInputError, transcodeFile } from './transcode-frames.js';
import { createFrame } from './yuv-frame.js';

if (parentPort === null) throw new Error('encode-worker.js must be started as a worker thread');
const port = parentPort;

function post(message: WorkerMessage, transfer: ArrayBuffer[] = []): void {
  port.postMessage(message, transfer);
}

/** Re-encodes another engine's video file; an input it cannot decode is the caller's error. */
async function transcode(id: number, job: TranscodeJob): Promise<void> {
  try {
    post({ type: 'progress', id, percent: 0 });
    const { mp4, info } = await transcodeFile(job, `transcode-${id}.mp4`, (percent) => post({ type: 'progress', id, percent }));
    post({ type: 'done', id, mp4, info }, [mp4.buffer as ArrayBuffer]);
  } catch (error) {
    post({ type: 'error', id, input: error instanceof TranscodeInputError, message: error instanceof Error ? error.message : String(error) });
  }
}

async function run({ id, job }: { id: number; job: EncodeJob }): Promise<void> {
  const frame = createFrame(job.width, job.height);
  const clip = { prompt: job.prompt, seed: job.seed, fps: job.fps, frames: job.frames };
  let source: FrameSource;
  if (job.reference !== null) {
    try {
      source = await createImageFrameSource(job.reference, clip, job.width, job.height);
    } catch (error) {
      post({ type: 'error', id, input: true, message: `reference image could not be decoded: ${error instanceof Error ? error.message : String(error)}` });
      return;
    }
  } else {
    source = new TextFrameSource(clip, frame);
  }
  let encoder: Mp4Encoder | null = null;
  try {
    encoder = await openEncoder({ width: job.width, height: job.height, fps: job.fps, name: `job-${id}.mp4` });
    post({ type: 'progress', id, percent: 0 });
    let reported = 0;
    for (let i = 0; i < job.frames; i++) {
      source.render(i, frame);
      encoder.addFrame(frame.data);
      // 0..99 while encoding: 100 is reserved for "file written" on the main thread.
      const percent = Math.floor(((i + 1) * 99) / job.frames);
      if (percent > reported) {
        reported = percent;
        post({ type: 'progress', id, percent });
      }
    }
    const raw = encoder.finish();
    encoder = null;
    let mp4: Uint8Array;
    try {
      mp4 = finalizeMp4(raw);
    } catch {
      // The encoder's own file is still valid MP4, just without seek points / faststart.
      mp4 = raw;
    }
    post({ type: 'done', id, mp4 }, [mp4.buffer as ArrayBuffer]);
  } catch (error) {
    encoder?.dispose();
    post({ type: 'error', id, input: false, message: error instanceof Error ? error.message : String(error) });
  }
}

port.on('message', (message: JobMessage) => {
  if (message.type === 'job') void run(message);
  else if (message.type === 'transcode') void transcode(message.id, message.job);
});
