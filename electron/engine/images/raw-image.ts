/**
 * Raw pixel buffers passed between edit stages. Every stage is its own sharp pipeline
 * because sharp reorders operations inside a single pipeline; raw hand-offs keep the
 * user's order and avoid re-encoding between steps.
 */
import sharp, { type Sharp } from 'sharp';
import { encodeRawPng } from './png-encode.js';
import { EDIT_MAX_SIDE, EngineInputError } from './types.js';

export interface RawImage {
  data: Buffer;
  width: number;
  height: number;
  /** 3 = RGB, 4 = RGBA. */
  channels: 3 | 4;
}

/** Start a sharp pipeline from a raw image. */
export function fromRaw(img: RawImage): Sharp {
  return sharp(img.data, { raw: { width: img.width, height: img.height, channels: img.channels } });
}

/** Finish a pipeline as 8-bit sRGB raw pixels (3 or 4 channels). */
export async function toRaw(pipeline: Sharp): Promise<RawImage> {
  const { data, info } = await pipeline.toColourspace('srgb').raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
  if (info.channels !== 3 && info.channels !== 4) throw new Error(`unexpected channel count ${info.channels}`);
  return { data, width: info.width, height: info.height, channels: info.channels };
}

/** Run one stage: `build` adds operations to a pipeline fed with `img`. */
export function stage(img: RawImage, build: (pipeline: Sharp) => Sharp): Promise<RawImage> {
  return toRaw(build(fromRaw(img)));
}

/** Scale down (never up) so neither side exceeds the engine limit. */
export function clampSize(width: number, height: number, max = EDIT_MAX_SIDE): { width: number; height: number } {
  const k = Math.min(1, max / width, max / height);
  return { width: Math.max(1, Math.round(width * k)), height: Math.max(1, Math.round(height * k)) };
}

export async function fitWithinLimit(img: RawImage): Promise<RawImage> {
  const size = clampSize(img.width, img.height);
  if (size.width === img.width && size.height === img.height) return img;
  return stage(img, (p) => p.resize(size.width, size.height, { fit: 'fill' }));
}

/**
 * Decode any sharp-readable input (PNG, JPEG, WebP, ...) to sRGB raw, honouring EXIF
 * orientation. Anything sharp cannot read becomes an EngineInputError (-> HTTP 400).
 */
export async function decodeImage(input: Buffer, index: number): Promise<RawImage> {
  if (!Buffer.isBuffer(input) || input.length === 0) throw new EngineInputError(`image ${index + 1} is empty or not a buffer`);
  try {
    const meta = await sharp(input, { autoOrient: true }).metadata();
    const oriented = meta.autoOrient;
    const size = clampSize(oriented.width, oriented.height);
    let pipeline = sharp(input, { autoOrient: true });
    if (size.width !== oriented.width || size.height !== oriented.height) pipeline = pipeline.resize(size.width, size.height, { fit: 'fill' });
    return await toRaw(pipeline);
  } catch (error) {
    throw new EngineInputError(`image ${index + 1} could not be decoded: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

/** Encode to PNG with the engine's fast filtered encoder (faster and smaller than sharp's fast mode). */
export function encodePng(img: RawImage): Promise<Buffer> {
  return encodeRawPng(img.data, img.width, img.height, img.channels);
}
