// The AVI reader of the transcode (electron/engine/video/avi-reader.ts): header facts, the video
// frames in order whatever surrounds them (an audio stream, 'rec ' groups, JUNK, no index),
// dropped frames, and plain refusals of what is not an AVI it can follow.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { aviFrames, AviFormatError, bufferSource, fileSource, isMjpeg, readAviInfo } from '../../electron/engine/video/avi-reader.js';
import { writeMjpegAvi } from '../emulators/avi-mjpeg.js';
import { buildMjpegAvi, testFrameJpeg, type AviOptions } from '../helpers/avi-writer.js';

const dir = mkdtempSync(join(tmpdir(), 'avi-reader-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const colors: [number, number, number][] = [[200, 30, 30], [30, 200, 30], [30, 30, 200], [200, 200, 30], [30, 200, 200]];
const base: AviOptions = { width: 64, height: 48, fps: 12, colors };

async function framesOf(bytes: Buffer): Promise<Buffer[]> {
  const source = bufferSource(bytes);
  const out: Buffer[] = [];
  for await (const frame of aviFrames(source, await readAviInfo(source))) out.push(frame);
  return out;
}

const isJpeg = (b: Buffer) => b.length > 4 && b[0] === 0xff && b[1] === 0xd8;

describe('AVI reader', () => {
  it('reads the headers as stable-diffusion.cpp writes them', async () => {
    const info = await readAviInfo(bufferSource(await buildMjpegAvi(base)));
    expect(info).toMatchObject({ width: 64, height: 48, fps: 12, frames: 5, codec: 'MJPG', stream: 0 });
    expect(isMjpeg(info.codec)).toBe(true);
    expect(info.movi).toHaveLength(1);
  });

  it('reads the sd.cpp emulator\u2019s AVI (written apart, from the same source) frame for frame', async () => {
    const jpegs = await Promise.all(colors.map((c, i) => testFrameJpeg(80, 48, c, i)));
    const bytes = writeMjpegAvi(jpegs, { width: 80, height: 48, fps: 16 });
    expect(await readAviInfo(bufferSource(bytes))).toMatchObject({ width: 80, height: 48, fps: 16, frames: 5, codec: 'MJPG', stream: 0 });
    expect(await framesOf(bytes)).toEqual(jpegs);
  });

  it('yields each JPEG frame in order, from a file read piece by piece', async () => {
    const bytes = await buildMjpegAvi(base);
    const path = join(dir, 'plain.avi');
    writeFileSync(path, bytes);
    const source = await fileSource(path);
    try {
      const frames: Buffer[] = [];
      for await (const frame of aviFrames(source, await readAviInfo(source))) frames.push(frame);
      expect(frames).toHaveLength(5);
      expect(frames.every(isJpeg)).toBe(true);
      expect(frames).toEqual(await framesOf(bytes));
    } finally {
      await source.close();
    }
  });

  it('finds the video as stream 01 behind an audio stream, skipping the audio chunks', async () => {
    const bytes = await buildMjpegAvi({ ...base, audioFirst: true });
    expect(bytes.includes(Buffer.from('01dc'))).toBe(true);
    expect((await readAviInfo(bufferSource(bytes))).stream).toBe(1);
    const frames = await framesOf(bytes);
    expect(frames).toHaveLength(5);
    expect(frames.every(isJpeg)).toBe(true);
  });

  it("follows 'rec ' groups and needs no idx1", async () => {
    const frames = await framesOf(await buildMjpegAvi({ ...base, recLists: true, noIndex: true }));
    expect(frames).toHaveLength(5);
    expect(frames.every(isJpeg)).toBe(true);
  });

  it('yields an empty frame for a dropped one', async () => {
    const frames = await framesOf(await buildMjpegAvi({ ...base, dropped: [2] }));
    expect(frames.map((f) => f.length === 0)).toEqual([false, false, true, false, false]);
  });

  it('reports the codec of a stream that is not MJPEG', async () => {
    const info = await readAviInfo(bufferSource(await buildMjpegAvi({ ...base, codec: 'H264' })));
    expect(info.codec).toBe('H264');
    expect(isMjpeg(info.codec)).toBe(false);
  });

  it.each([
    ['not RIFF', Buffer.from('this is plainly not an AVI file at all')],
    ['a WebP', Buffer.concat([Buffer.from('RIFF'), Buffer.from([20, 0, 0, 0]), Buffer.from('WEBPVP8 '), Buffer.alloc(12)])],
  ])('refuses %s', async (_name, bytes) => {
    await expect(readAviInfo(bufferSource(bytes))).rejects.toThrow(AviFormatError);
  });

  it('refuses a file cut inside its frames, saying so', async () => {
    const bytes = await buildMjpegAvi({ ...base, noIndex: true });
    const cut = bytes.subarray(0, bytes.length - 100);
    await expect(framesOf(cut)).rejects.toThrow(/past the end|ends inside/);
  });

  it('refuses a file without a video stream', async () => {
    const bytes = await buildMjpegAvi(base);
    // Turn the stream's type into audio: no 'vids' left.
    const at = bytes.indexOf(Buffer.from('vids'));
    bytes.write('auds', at, 'latin1');
    await expect(readAviInfo(bufferSource(bytes))).rejects.toThrow(/no video stream/);
  });
});
