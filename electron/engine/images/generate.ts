/** generateImage: prompt -> deterministic PNG painted by the local scene renderer. */
import { encodeCanvasPng } from './png-encode.js';
import { hashString, mixSeed } from '../shared/random.js';
import { renderScene } from './render-scene.js';
import { planScene } from './scene-plan.js';
import { EngineInputError, GENERATE_MAX_SIDE, GENERATE_MIN_SIDE, type EngineImage, type GenerateImageInput } from './types.js';

/** Above this many output pixels we paint at half resolution and upscale (4x less painting work). */
const FULL_RES_MAX_PIXELS = 512 * 512;

function checkSide(name: string, value: number): void {
  if (!Number.isInteger(value) || value < GENERATE_MIN_SIDE || value > GENERATE_MAX_SIDE) {
    throw new EngineInputError(`${name} must be an integer between ${GENERATE_MIN_SIDE} and ${GENERATE_MAX_SIDE}, got ${String(value)}`);
  }
}

/** Seed actually used: the prompt hash, mixed with the caller's seed when one is given. */
export function resolveSeed(prompt: string, seed?: number): number {
  const base = hashString(prompt.trim());
  if (seed === undefined) return base;
  if (typeof seed !== 'number' || !Number.isFinite(seed)) throw new EngineInputError('seed must be a finite number');
  // Fold the high bits in too so seeds above 2^32 still differ.
  return mixSeed(base, (Math.trunc(seed) | 0) ^ Math.trunc(seed / 4294967296));
}

export async function generateImage(input: GenerateImageInput): Promise<EngineImage> {
  if (typeof input.prompt !== 'string') throw new EngineInputError('prompt must be a string');
  checkSide('width', input.width);
  checkSide('height', input.height);
  const { width, height } = input;
  const seed = resolveSeed(input.prompt, input.seed);
  const plan = planScene(input.prompt, seed);
  const factor = width * height > FULL_RES_MAX_PIXELS ? 2 : 1;
  const canvas = renderScene(plan, Math.ceil(width / factor), Math.ceil(height / factor), seed);
  const png = await encodeCanvasPng(canvas, width, height);
  return { png, width, height };
}
