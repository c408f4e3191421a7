/**
 * Colour helpers. Scenes are planned in sRGB (0..1) and converted once to BT.601
 * limited-range YUV: the encoder takes I420 directly, and because YUV is an affine
 * transform of RGB, alpha blending in YUV gives the same result as blending in RGB.
 */

import { clamp01, type Rgb } from '../shared/color.js';

export * from '../shared/color.js';

/** Y, U, V in 0..255 (limited range: Y 16..235, U/V 16..240). */
export type Yuv = readonly [number, number, number];

export function toYuv(c: Rgb): Yuv {
  const r = clamp01(c[0]);
  const g = clamp01(c[1]);
  const b = clamp01(c[2]);
  return [
    16 + 65.481 * r + 128.553 * g + 24.966 * b,
    128 - 37.797 * r - 74.203 * g + 112 * b,
    128 + 112 * r - 93.786 * g - 18.214 * b,
  ];
}

/** Same conversion on 0..255 integers, for decoded reference pixels (fixed point, >> 8). */
export function lumaOf(r: number, g: number, b: number): number {
  return (16 * 256 + 66 * r + 129 * g + 25 * b + 128) >> 8;
}

export function chromaUOf(r: number, g: number, b: number): number {
  return (128 * 256 - 38 * r - 74 * g + 112 * b + 128) >> 8;
}

export function chromaVOf(r: number, g: number, b: number): number {
  return (128 * 256 + 112 * r - 94 * g - 18 * b + 128) >> 8;
}
