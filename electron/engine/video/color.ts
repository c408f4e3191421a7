/**
 * Colour helpers. Scenes are planned in sRGB (0..1) and converted once to BT.601
 * limited-range YUV: the encoder takes I420 directly, and because YUV is an affine
 * transform of RGB, alpha blending in YUV gives the same result as blending in RGB.
 */

export type Rgb = readonly [number, number, number];
/** Y, U, V in 0..255 (limited range: Y 16..235, U/V 16..240). */
export type Yuv = readonly [number, number, number];

export function hex(value: string): Rgb {
  const n = Number.parseInt(value.replace('#', ''), 16);
  return [((n >> 16) & 255) / 255, ((n >> 8) & 255) / 255, (n & 255) / 255];
}

export function mix(a: Rgb, b: Rgb, t: number): Rgb {
  return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];
}

export function scale(c: Rgb, k: number): Rgb {
  return [c[0] * k, c[1] * k, c[2] * k];
}

export function clamp01(v: number): number {
  return v < 0 ? 0 : v > 1 ? 1 : v;
}

export function smoothstep(edge0: number, edge1: number, x: number): number {
  const t = clamp01((x - edge0) / (edge1 - edge0));
  return t * t * (3 - 2 * t);
}

/** HSL to RGB; hue in degrees (any range), saturation/lightness in 0..1. */
export function hsl(hue: number, saturation: number, lightness: number): Rgb {
  const h = (((hue % 360) + 360) % 360) / 360;
  const s = clamp01(saturation);
  const l = clamp01(lightness);
  const q = l < 0.5 ? l * (1 + s) : l + s - l * s;
  const p = 2 * l - q;
  const ch = (tIn: number): number => {
    const t = tIn < 0 ? tIn + 1 : tIn > 1 ? tIn - 1 : tIn;
    if (t < 1 / 6) return p + (q - p) * 6 * t;
    if (t < 1 / 2) return q;
    if (t < 2 / 3) return p + (q - p) * (2 / 3 - t) * 6;
    return p;
  };
  return [ch(h + 1 / 3), ch(h), ch(h - 1 / 3)];
}

/** Evenly spaced colour stops sampled at t in 0..1 with smooth transitions. */
export function sampleStops(stops: readonly Rgb[], t: number): Rgb {
  const first = stops[0];
  if (first === undefined) return [0, 0, 0];
  if (stops.length === 1) return first;
  const pos = clamp01(t) * (stops.length - 1);
  const i = Math.min(Math.floor(pos), stops.length - 2);
  const a = stops[i] ?? first;
  const b = stops[i + 1] ?? a;
  const f = pos - i;
  return mix(a, b, f * f * (3 - 2 * f));
}

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
