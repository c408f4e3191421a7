import { randomFillSync } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
/** Bytes at or above this are skipped, so every character is equally likely (252 = 7 x 36). */
const UNBIASED_BELOW = 256 - (256 % ALPHABET.length);

/** Random bytes drawn a page at a time: one call per id cost more than the rest of a hold. */
const pool = Buffer.alloc(4096);
let next = pool.length;

function randomByte(): number {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  return pool[next++]!;
}

/** A random lowercase alphanumeric string; ids are safe in paths, URLs and file names. */
export function randomId(length = 16): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < UNBIASED_BELOW) out += ALPHABET[byte % ALPHABET.length];
  }
  return out;
}

export const newId = (prefix: string, length = 16): string => `${prefix}_${randomId(length)}`;
