/** Seeded value noise + fractal sums: cheap organic variation for ridges, clouds and water. */
import type { Rng } from '../shared/random.js';

export class ValueNoise {
  private readonly perm = new Uint8Array(512);
  private readonly values = new Float32Array(256);

  constructor(rng: Rng) {
    const p = new Uint8Array(256);
    for (let i = 0; i < 256; i++) {
      p[i] = i;
      this.values[i] = rng.next();
    }
    for (let i = 255; i > 0; i--) {
      const j = Math.floor(rng.next() * (i + 1));
      const tmp = p[i]!;
      p[i] = p[j]!;
      p[j] = tmp;
    }
    for (let i = 0; i < 512; i++) this.perm[i] = p[i & 255]!;
  }

  /** Smooth 1-D noise in [0, 1]. */
  noise1(x: number): number {
    const xi = Math.floor(x);
    const f = x - xi;
    const u = f * f * (3 - 2 * f);
    const a = this.values[this.perm[xi & 255]!]!;
    const b = this.values[this.perm[(xi + 1) & 255]!]!;
    return a + (b - a) * u;
  }

  /** Smooth 2-D noise in [0, 1]. */
  noise2(x: number, y: number): number {
    const xi = Math.floor(x);
    const yi = Math.floor(y);
    const xf = x - xi;
    const yf = y - yi;
    const u = xf * xf * (3 - 2 * xf);
    const v = yf * yf * (3 - 2 * yf);
    const p = this.perm;
    const vals = this.values;
    const X = xi & 255;
    const Y = yi & 255;
    const a = p[X]! + Y;
    const b = p[X + 1]! + Y;
    const aa = vals[p[a]!]!;
    const ab = vals[p[a + 1]!]!;
    const ba = vals[p[b]!]!;
    const bb = vals[p[b + 1]!]!;
    const top = aa + (ba - aa) * u;
    const bottom = ab + (bb - ab) * u;
    return top + (bottom - top) * v;
  }

  /** Fractal sum of 1-D noise, normalised to [0, 1]. */
  fbm1(x: number, octaves: number, gain = 0.5): number {
    let sum = 0;
    let amp = 1;
    let norm = 0;
    let f = 1;
    for (let o = 0; o < octaves; o++) {
      sum += amp * this.noise1(x * f + o * 17.31);
      norm += amp;
      amp *= gain;
      f *= 2.03;
    }
    return sum / norm;
  }

  /** Ridged 1-D fractal: sharp crests, good for mountain silhouettes. */
  ridged1(x: number, octaves: number, gain = 0.5): number {
    let sum = 0;
    let amp = 1;
    let norm = 0;
    let f = 1;
    for (let o = 0; o < octaves; o++) {
      const n = 1 - Math.abs(this.noise1(x * f + o * 31.7) * 2 - 1);
      sum += amp * n * n;
      norm += amp;
      amp *= gain;
      f *= 2.11;
    }
    return sum / norm;
  }

  /** Fractal sum of 2-D noise, normalised to [0, 1]. */
  fbm2(x: number, y: number, octaves: number, gain = 0.5): number {
    let sum = 0;
    let amp = 1;
    let norm = 0;
    let f = 1;
    for (let o = 0; o < octaves; o++) {
      sum += amp * this.noise2(x * f + o * 19.19, y * f + o * 7.77);
      norm += amp;
      amp *= gain;
      f *= 2.02;
    }
    return sum / norm;
  }
}
