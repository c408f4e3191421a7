/**
 * transcodeToMp4: re-encodes a video file another engine produced (stable-diffusion.cpp's MJPEG
 * AVI, or an animated WebP) to H.264 MP4 in an encode worker, then writes it to a temp file beside
 * outputPath and renames it into place, so outputPath never holds a partial file.
 */
import { resolve } from 'node:path';
import { placeOutput } from './output-file.js';
import { abortError, JobFailedError } from './pool.js';
import { getPool } from './render.js';

export interface TranscodeOptions {
  signal?: AbortSignal;
  /** Increasing integers 0..99 while encoding; 100 once the file is in place. */
  onProgress?: (percent: number) => void;
}

export interface TranscodedVideo {
  path: string;
  bytes: number;
  width: number;
  height: number;
  frames: number;
  fps: number;
  seconds: number;
}

/** The input is not a video the engine can decode (its format, codec or a frame); the message says which. */
export class VideoTranscodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VideoTranscodeError';
  }
}

const isAborted = (signal: AbortSignal | undefined): boolean => signal !== undefined && signal.aborted;

export async function transcodeToMp4(inputPath: string, outputPath: string, options: TranscodeOptions = {}): Promise<TranscodedVideo> {
  const { signal, onProgress } = options;
  if (isAborted(signal)) throw abortError();
  const report = (percent: number): void => {
    try {
      onProgress?.(percent);
    } catch {
      // Progress is advisory.
    }
  };
  let result: Awaited<ReturnType<ReturnType<typeof getPool>['transcode']>>;
  try {
    result = await getPool().transcode({ inputPath: resolve(inputPath) }, { ...(signal ? { signal } : {}), onProgress: (p) => report(Math.min(99, Math.floor(p))) });
  } catch (error) {
    if (error instanceof JobFailedError && error.input) throw new VideoTranscodeError(error.message);
    throw error;
  }
  const { mp4, info } = result;
  const target = resolve(outputPath);
  await placeOutput(target, mp4, signal);
  report(100);
  return { path: target, bytes: mp4.byteLength, ...info, seconds: info.frames / info.fps };
}
