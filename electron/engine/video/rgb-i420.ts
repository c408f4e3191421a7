/**
 * Packed RGB (3 bytes a pixel) to the I420 planes the encoder takes: BT.601 limited range with
 * the same fixed-point conversion as the reference images (color.ts), chroma from 2x2 averages.
 */
import { chromaUOf, chromaVOf, lumaOf } from './color.js';
import type { YuvFrame } from './yuv-frame.js';

/** Fills `frame` from `rgb`, which must be frame.width x frame.height pixels (even sides). */
export function rgbToI420(rgb: Uint8Array, frame: YuvFrame): void {
  const { width: w, height: h, cw, ch, y, u, v } = frame;
  if (rgb.length < w * h * 3) throw new Error(`RGB frame too short: ${rgb.length} bytes for ${w}x${h}`);
  for (let i = 0, o = 0; o < w * h; i += 3, o++) y[o] = lumaOf(rgb[i]!, rgb[i + 1]!, rgb[i + 2]!);
  writeChroma(rgb, w, cw, ch, u, v, cw);
}

/**
 * The chroma planes of packed RGB at half resolution, each sample the 2x2 average, as I420
 * stores them; rows `stride` apart (the image-to-video source pads each row by one sample).
 */
export function writeChroma(rgb: Uint8Array, w: number, cw: number, ch: number, u: Uint8Array, v: Uint8Array, stride: number): void {
  const row = w * 3;
  for (let r = 0; r < ch; r++) {
    const i0 = 2 * r * row;
    const i1 = i0 + row;
    for (let x = 0; x < cw; x++) {
      const a = i0 + 6 * x;
      const b = i1 + 6 * x;
      const R = (rgb[a]! + rgb[a + 3]! + rgb[b]! + rgb[b + 3]! + 2) >> 2;
      const G = (rgb[a + 1]! + rgb[a + 4]! + rgb[b + 1]! + rgb[b + 4]! + 2) >> 2;
      const B = (rgb[a + 2]! + rgb[a + 5]! + rgb[b + 2]! + rgb[b + 5]! + 2) >> 2;
      u[r * stride + x] = chromaUOf(R, G, B);
      v[r * stride + x] = chromaVOf(R, G, B);
    }
  }
}
