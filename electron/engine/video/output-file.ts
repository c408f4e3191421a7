// Puts a finished MP4 at its path: written to a temp file beside it, then renamed, so the path
// never holds a partial file. An abort that lands while the file is written still wins.
import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { abortError } from './pool.js';

export async function placeOutput(target: string, bytes: Uint8Array, signal: AbortSignal | undefined): Promise<void> {
  await mkdir(dirname(target), { recursive: true });
  const temp = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.part`);
  try {
    await writeFile(temp, bytes);
    if (signal?.aborted) throw abortError();
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
