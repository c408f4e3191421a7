// A finished ComfyUI video brought into the data dir: streamed from /view to `<output>.part`
// (memory stays flat), its container checked from its first bytes, then renamed into place.
// The contract promises video/mp4, and a workflow may save WebM (SaveWEBM, VHS video/webm), a
// GIF or a QuickTime file: those fail the task in plain words rather than reach a client.
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import type { UpstreamStream } from '../upstream/upstream-client.js';

/** ISO BMFF major or compatible brands of the MP4 family (ISO 14496-12/14, Apple's M4V, DASH). */
const MP4_BRANDS = new Set(['isom', 'iso2', 'iso3', 'iso4', 'iso5', 'iso6', 'iso7', 'iso8', 'iso9', 'mp41', 'mp42', 'mp71', 'avc1', 'av01', 'M4V ', 'M4VH', 'M4VP', 'dash', 'MSNV', 'f4v ']);

/** How many leading bytes the check reads (ftyp with a handful of compatible brands). */
const HEAD_BYTES = 64;

export type ContainerCheck = { mp4: true } | { mp4: false; what: string };

/** What a file is, from its first bytes: an MP4 (ftyp at offset 4 with an MP4-family brand), or what else. */
export function checkContainer(head: Buffer): ContainerCheck {
  if (head.length === 0) return { mp4: false, what: 'an empty file' };
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

export function notMp4Message(what: string): string {
  return `The engine produced ${what}, not an MP4; change the workflow's output node to save MP4 (H.264): SaveVideo with format mp4, or VHS_VideoCombine with format video/h264-mp4.`;
}

class NotMp4 extends Error {}

/**
 * Streams `stream` to `outputPath` through `<outputPath>.part`. Resolves null when the file is in
 * place, or the reason it is not an MP4 (nothing is left behind then).
 */
export async function saveMp4(stream: UpstreamStream, outputPath: string): Promise<string | null> {
  const tmp = `${outputPath}.part`;
  try {
    await pipeline(checkedBytes(stream.body), createWriteStream(tmp));
    await rename(tmp, outputPath);
    return null;
  } catch (error) {
    await rm(tmp, { force: true });
    if (error instanceof NotMp4) return notMp4Message(error.message);
    throw error;
  }
}

/** Passes the bytes on once their head shows an MP4; anything else stops the copy. */
async function* checkedBytes(body: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
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

function verify(head: Buffer): void {
  const check = checkContainer(head.subarray(0, HEAD_BYTES));
  if (!check.mp4) throw new NotMp4(check.what);
}
