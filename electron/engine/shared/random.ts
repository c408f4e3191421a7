/**
 * Deterministic hashing and PRNG shared by the image and video engines. Everything visual
 * derives from these so the same prompt/seed always yields byte-identical output; Math.random
 * is never used.
 */

/** xmur3-style 32-bit string hash (stable across runs, platforms and Node versions). */
export function hashString(text: string): number {
  let h = 1779033703 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    h = Math.imul(h ^ text.charCodeAt(i), 3432918353);
    h = (h << 13) | (h >>> 19);
  }
  return finalizeHash(h);
}

/** Murmur3 finalizer: spreads entropy so nearby inputs give unrelated outputs. */
export function finalizeHash(value: number): number {
  let h = value | 0;
  h = Math.imul(h ^ (h >>> 16), 2246822507);
  h = Math.imul(h ^ (h >>> 13), 3266489909);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Combine two 32-bit values into a new well-mixed seed. */
export function mixSeed(a: number, b: number): number {
  return finalizeHash((a ^ Math.imul(b | 0, 0x9e3779b1)) + 0x632be5ab);
}

/** mulberry32 PRNG with a few convenience draws. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  range(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** Integer in [min, maxExclusive). */
  int(min: number, maxExclusive: number): number {
    return min + Math.floor(this.next() * (maxExclusive - min));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error('Rng.pick on an empty list');
    return item;
  }

  sign(): number {
    return this.next() < 0.5 ? -1 : 1;
  }

  /**
   * Independent child stream. Painters each take their own fork so adding a draw in
   * one painter does not reshuffle every later element of the picture.
   */
  fork(salt: string): Rng {
    return new Rng(mixSeed(this.state, hashString(salt)));
  }
}

/** Seed actually used: prompt hash, mixed with the caller's seed when one is given. */
export function resolveSeed(prompt: string, seed?: number): number {
  const base = hashString(prompt.trim().toLowerCase());
  if (seed === undefined) return base;
  // Fold the high bits in too so seeds above 2^32 still differ.
  return mixSeed(base, (Math.trunc(seed) | 0) ^ Math.trunc(seed / 4294967296));
}
