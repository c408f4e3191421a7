// Wall time of the built-in video engine: 4 s of 480p (854x480) at 24 fps, text-to-video
// and image-to-video, each after one warm-up render. Returns numbers only (bench/run.ts
// prints and stores them); the temporary MP4s are deleted.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateImage } from '../electron/engine/images/index.js';
import { renderVideo, shutdownVideoWorkers, type RenderVideoInput } from '../electron/engine/video/index.js';

export interface VideoBenchResult {
  name: string;
  wall_ms: number;
  /** Seconds of video produced per second of wall time (higher is faster). */
  realtime_factor: number;
  target_realtime_factor: number;
}

const SECONDS = 4;
/** Target: 4 s of video in at most 2 s of wall time. */
const TARGET_REALTIME_FACTOR = 2;
const RUNS = 3;

async function measure(dir: string, name: string, input: RenderVideoInput): Promise<VideoBenchResult> {
  await renderVideo({ ...input, prompt: `${input.prompt} warm-up` }, join(dir, 'warmup.mp4'));
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    await renderVideo({ ...input, seed: i }, join(dir, `run-${i}.mp4`));
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)] ?? 0;
  return {
    name,
    wall_ms: Math.round(median),
    realtime_factor: Math.round((SECONDS / (median / 1000)) * 100) / 100,
    target_realtime_factor: TARGET_REALTIME_FACTOR,
  };
}

export async function benchEngineVideo(): Promise<VideoBenchResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-engine-video-'));
  try {
    const reference = (await generateImage({ prompt: 'mountain lake at sunset with pine trees', width: 1024, height: 768 })).png;
    const base = { width: 854, height: 480, seconds: SECONDS, fps: 24 };
    return [
      await measure(dir, 'engine renderVideo text 480p 4s', { ...base, prompt: 'sunset over the ocean with mountains' }),
      await measure(dir, 'engine renderVideo image 480p 4s', { ...base, prompt: 'slow zoom', reference }),
    ];
  } finally {
    await shutdownVideoWorkers();
    rmSync(dir, { recursive: true, force: true });
  }
}
