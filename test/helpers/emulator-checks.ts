// What the emulator tests check about the bodies they are sent: how many pieces a body arrived
// in, and whether an MP4 plays (ffprobe decodes every frame; a missing ffprobe fails, not skips).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ffprobe, hasFfprobe } from './mp4.js';

/** The body of a response read piece by piece, and how many pieces the client saw. */
export async function readChunks(res: Response): Promise<{ body: Buffer; chunks: number }> {
  const reader = res.body!.getReader();
  const pieces: Uint8Array[] = [];
  for (let read = await reader.read(); !read.done; read = await reader.read()) pieces.push(read.value);
  return { body: Buffer.concat(pieces), chunks: pieces.length };
}

/** ffprobe's decode of an MP4 held in memory. Throws when ffprobe is not installed. */
export function probeMp4(mp4: Buffer): ReturnType<typeof ffprobe> {
  if (!hasFfprobe) throw new Error('ffprobe (/usr/bin/ffprobe) is required to prove an MP4 plays; install ffmpeg');
  const dir = mkdtempSync(join(tmpdir(), 'emu-mp4-'));
  try {
    writeFileSync(join(dir, 'v.mp4'), mp4);
    return ffprobe(join(dir, 'v.mp4'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
