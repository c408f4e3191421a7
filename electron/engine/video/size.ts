/** Named sizes and input validation (main thread, before anything is queued). */
import { EngineInputError } from '../images/index.js';
import type { EncodeJob } from './protocol.js';
import { resolveSeed } from '../shared/random.js';
import {
  VIDEO_DEFAULT_FPS, VIDEO_MAX_FPS, VIDEO_MAX_PIXELS, VIDEO_MAX_REFERENCE_BYTES, VIDEO_MAX_SECONDS, VIDEO_MAX_SIDE,
  VIDEO_MIN_SECONDS, VIDEO_MIN_SIDE, type RenderVideoInput,
} from './types.js';

const NAMED: Readonly<Record<string, { width: number; height: number }>> = {
  '480p': { width: 854, height: 480 },
  '720p': { width: 1280, height: 720 },
  '1080p': { width: 1920, height: 1080 },
};

function sizeProblem(width: number, height: number): string | null {
  if (!Number.isInteger(width) || !Number.isInteger(height)) return 'width and height must be integers';
  if (width % 2 !== 0 || height % 2 !== 0) return 'width and height must be even (H.264 4:2:0)';
  if (Math.min(width, height) < VIDEO_MIN_SIDE || Math.max(width, height) > VIDEO_MAX_SIDE) return `each side must be between ${VIDEO_MIN_SIDE} and ${VIDEO_MAX_SIDE}`;
  if (width * height > VIDEO_MAX_PIXELS) return 'frame area must not exceed 1920x1080';
  return null;
}

/** "480p" | "720p" | "1080p" | "WxH" (even, within limits) -> dimensions; anything else -> null. */
export function resolveVideoSize(size: string): { width: number; height: number } | null {
  if (typeof size !== 'string') return null;
  const key = size.trim().toLowerCase();
  const named = NAMED[key];
  if (named !== undefined) return { ...named };
  const match = /^(\d{1,5})x(\d{1,5})$/.exec(key);
  if (match === null) return null;
  const width = Number(match[1]);
  const height = Number(match[2]);
  return sizeProblem(width, height) === null ? { width, height } : null;
}

/** Validate the public input and turn it into a worker job (throws EngineInputError). */
export function toEncodeJob(input: RenderVideoInput): EncodeJob {
  if (typeof input !== 'object' || input === null) throw new EngineInputError('input must be an object');
  if (typeof input.prompt !== 'string') throw new EngineInputError('prompt must be a string');
  const problem = sizeProblem(input.width, input.height);
  if (problem !== null) throw new EngineInputError(`${problem}, got ${String(input.width)}x${String(input.height)}`);
  const { seconds } = input;
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < VIDEO_MIN_SECONDS || seconds > VIDEO_MAX_SECONDS) {
    throw new EngineInputError(`seconds must be between ${VIDEO_MIN_SECONDS} and ${VIDEO_MAX_SECONDS}, got ${String(seconds)}`);
  }
  const fps = input.fps ?? VIDEO_DEFAULT_FPS;
  if (!Number.isInteger(fps) || fps < 1 || fps > VIDEO_MAX_FPS) throw new EngineInputError(`fps must be an integer between 1 and ${VIDEO_MAX_FPS}, got ${String(fps)}`);
  if (input.seed !== undefined && (typeof input.seed !== 'number' || !Number.isFinite(input.seed))) throw new EngineInputError('seed must be a finite number');
  const ref = input.reference;
  if (ref !== undefined && !(ref instanceof Uint8Array)) throw new EngineInputError('reference must be a Buffer');
  if (ref !== undefined && (ref.length === 0 || ref.length > VIDEO_MAX_REFERENCE_BYTES)) throw new EngineInputError(`reference must be 1 byte to ${VIDEO_MAX_REFERENCE_BYTES} bytes`);
  return {
    prompt: input.prompt,
    width: input.width,
    height: input.height,
    fps,
    frames: Math.max(1, Math.round(seconds * fps)),
    seed: resolveSeed(input.prompt, input.seed),
    reference: ref ?? null,
  };
}
