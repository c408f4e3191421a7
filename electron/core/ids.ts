import { randomBytes } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A random lowercase alphanumeric string; ids are safe in paths, URLs and file names. */
export function randomId(length = 16): string {
  const bytes = randomBytes(length);
  let out = '';
  for (const byte of bytes) out += ALPHABET[byte % ALPHABET.length];
  return out;
}

export const newId = (prefix: string, length = 16): string => `${prefix}_${randomId(length)}`;
