/** 1-D value noise for ridge profiles (tables are built once per clip, so speed is secondary). */
import type { Rng } from '../shared/random.js';

export class Noise1 {
  private readonly lattice = new Float32Array(256);

  constructor(rng: Rng) {
    for (let i = 0; i < 256; i++) this.lattice[i] = rng.next();
  }

  noise(x: number): number {
    const i = Math.floor(x);
    const f = x - i;
    const a = this.lattice[i & 255]!;
    const b = this.lattice[(i + 1) & 255]!;
    return a + (b - a) * f * f * (3 - 2 * f);
  }

  /** Fractal sum in 0..1. */
  fbm(x: number, octaves: number, gain = 0.5): number {
    let sum = 0;
    let amp = 1;
    let norm = 0;
    let freq = 1;
    for (let o = 0; o < octaves; o++) {
      sum += this.noise(x * freq + o * 17.3) * amp;
      norm += amp;
      amp *= gain;
      freq *= 2.03;
    }
    return sum / norm;
  }

  /** Ridged fractal in 0..1: sharp crests for mountain ranges. */
  ridged(x: number, octaves: number, gain = 0.5): number {
    let sum = 0;
    let amp = 1;
    let norm = 0;
    let freq = 1;
    for (let o = 0; o < octaves; o++) {
      const n = 1 - Math.abs(this.noise(x * freq + o * 31.7) * 2 - 1);
      sum += n * n * amp;
      norm += amp;
      amp *= gain;
      freq *= 2.1;
    }
    return sum / norm;
  }
}
