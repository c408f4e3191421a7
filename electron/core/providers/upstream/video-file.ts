// A finished video brought into the data dir, whichever engine made it: streamed to
// `<output>.part` (memory stays flat), its container checked from its first bytes, then renamed
// into place. The contract promises video/mp4, and an engine may answer WebM, a GIF, a QuickTime
// file or an error page: those fail the task in the engine's words rather than reach a client.
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';

/** ISO BMFF major or compatible brands of the MP4 family (ISO 14496-12/14, Apple's M4V, DASH). */
const MP4_BRANDS = new Set(['isom', 'iso2', 'iso3', 'iso4', 'iso5', 'iso6', 'iso7', 'iso8', 'iso9', 'mp41', 'mp42', 'mp71', 'avc1', 'av01', 'M4V ', 'M4VH', 'M4VP', 'dash', 'MSNV', 'f4v ']);

/** How many leading bytes the check reads (ftyp with a handful of compatible brands). */
const HEAD_BYTES = 64;

/** What checkContainer calls a file with no bytes (an engine may count that as a failed fetch). */
export const EMPTY_FILE = 'an empty file';

export type ContainerCheck = { mp4: true } | { mp4: false; what: string };

/** What a file is, from its first bytes: an MP4 (ftyp at offset 4 with an MP4-family brand), or what else. */
export function checkContainer(head: Buffer): ContainerCheck {
  if (head.length === 0) return { mp4: false, what: EMPTY_FILE };
  if (head.length >= 12 && head.toString('latin1', 4, 8) === 'ftyp') {
    const major = head.toString('latin1', 8, 12);
    const boxEnd = Math.min(head.length, head.readUInt32BE(0));
    const brands = [major];
    for (let at = 16; at + 4 <= boxEnd; at += 4) brands.push(head.toString('latin1', at, at + 4));
    if (brands.some((brand) => MP4_BRANDS.has(brand))) return { mp4: true };
    if (major === 'qt  ') return { mp4: false, what: 'a QuickTime (.mov) video' };
    return { mp4: false, what: `an ISO media file of brand "${major.replace(/[^\x20-\x7e]/g, '?').trim()}"` };
  }
  if (head.length >= 4 && head.readUInt32BE(0) === 0x1a45dfa3) return { mp4: false, what: 'a WebM video' };
  if (head.toString('latin1', 0, 4) === 'GIF8') return { mp4: false, what: 'a GIF animation' };
  if (head.length >= 8 && head.readUInt32BE(0) === 0x89504e47) return { mp4: false, what: 'a PNG image' };
  if (head.toString('latin1', 0, 4) === 'RIFF') {
    const form = head.toString('latin1', 8, 12);
    if (form === 'WEBP') return { mp4: false, what: 'a WebP animation' };
    if (form === 'AVI ') return { mp4: false, what: 'an AVI video' };
  }
  return { mp4: false, what: 'a file that is not a video the gateway recognizes' };
}

/** The refusal of the cloud kinds that word it alike ("Runway returned a WebM video, not an MP4 video."). */
export function notAnMp4Video(engine: string, what: string): string {
  return `${engine} returned ${what}, not an MP4 video.`;
}

class NotMp4 extends Error {}

/**
 * Streams `body` to `outputPath` through `<outputPath>.part`. Resolves null when the MP4 is in
 * place, or what the file is when it is not one (checkContainer's words; nothing is left behind
 * then), for the engine to word its refusal. A failed read or write throws, the part removed.
 */
export async function saveMp4(body: AsyncIterable<Buffer> | Iterable<Buffer>, outputPath: string): Promise<string | null> {
  const tmp = `${outputPath}.part`;
  try {
    await pipeline(checkedBytes(body), createWriteStream(tmp));
    await rename(tmp, outputPath);
    return null;
  } catch (error) {
    await rm(tmp, { force: true });
    if (error instanceof NotMp4) return error.message;
    throw error;
  }
}

/** Passes the bytes on once their head shows an MP4; anything else stops the copy. */
async function* checkedBytes(body: AsyncIterable<Buffer> | Iterable<Buffer>): AsyncGenerator<Buffer> {
  let head: Buffer = Buffer.alloc(0);
  let checked = false;
  for await (const chunk of body) {
    if (checked) {
      yield chunk;
      continue;
    }
    head = Buffer.concat([head, chunk]);
    if (head.length < HEAD_BYTES) continue;
    verify(head);
    checked = true;
    yield head;
  }
  if (!checked) {
    verify(head);
    yield head;
  }
}

// The first HEAD_BYTES only, so the verdict does not depend on how the bytes came in chunks.
function verify(head: Buffer): void {
  const check = checkContainer(head.subarray(0, HEAD_BYTES));
  if (!check.mp4) throw new NotMp4(check.what);
}
