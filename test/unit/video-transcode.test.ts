// transcodeToMp4 (electron/engine/video/transcode.ts): an MJPEG AVI as stable-diffusion.cpp
// writes one becomes an H.264 MP4 of the same size, frame count and duration (ffprobe, required),
// whose pictures are the AVI's; odd sizes are cut to even, dropped frames repeat the last one, an
// animated WebP is taken too; what cannot be decoded fails with VideoTranscodeError and leaves
// nothing at the output path; an abort stops it.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { shutdownVideoWorkers, transcodeToMp4, VideoTranscodeError } from '../../electron/engine/video/index.js';
import { buildMjpegAvi } from '../helpers/avi-writer.js';
import { ffprobe } from '../helpers/mp4.js';
import { requiredTool } from '../helpers/tools.js';

const dir = mkdtempSync(join(tmpdir(), 'video-transcode-'));
afterAll(async () => {
  await shutdownVideoWorkers();
  rmSync(dir, { recursive: true, force: true });
});

const RED: [number, number, number] = [220, 20, 20];
const BLUE: [number, number, number] = [20, 20, 220];

async function aviFile(name: string, options: Parameters<typeof buildMjpegAvi>[0]): Promise<string> {
  const path = join(dir, name);
  writeFileSync(path, await buildMjpegAvi(options));
  return path;
}

/** The RGB of the centre-bottom pixel of frame `index` of an MP4, decoded by ffmpeg. */
function pixelOf(path: string, index: number, width: number, height: number): number[] {
  const raw = execFileSync(requiredTool('ffmpeg'), ['-v', 'error', '-i', path, '-vf', `select=eq(n\\,${index})`, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], {
    maxBuffer: 64 << 20,
  });
  const at = ((height - 4) * width + Math.floor(width / 2)) * 3;
  return [raw[at]!, raw[at + 1]!, raw[at + 2]!];
}

const near = (actual: number[], expected: number[]) => actual.every((v, i) => Math.abs(v - expected[i]!) < 40);

describe('transcodeToMp4', () => {
  it('re-encodes an MJPEG AVI to an H.264 MP4 with its size, frames and duration', async () => {
    const colors = Array.from({ length: 24 }, (_, i): [number, number, number] => (i < 12 ? RED : BLUE));
    const input = await aviFile('clip.avi', { width: 320, height: 240, fps: 8, colors });
    const output = join(dir, 'clip.mp4');
    const progress: number[] = [];
    const video = await transcodeToMp4(input, output, { onProgress: (p) => progress.push(p) });
    expect(video).toMatchObject({ path: output, width: 320, height: 240, fps: 8, frames: 24, seconds: 3 });
    const probe = ffprobe(output);
    expect(probe).toMatchObject({ codec: 'h264', width: 320, height: 240, frames: 24 });
    expect(probe.duration).toBeCloseTo(3, 1);
    expect(progress.at(-1)).toBe(100);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(near(pixelOf(output, 0, 320, 240), RED)).toBe(true);
    expect(near(pixelOf(output, 23, 320, 240), BLUE)).toBe(true);
    // Only the MP4 is left: no temp file beside it.
    expect(readdirSync(dir).filter((n) => n.includes('clip.mp4'))).toEqual(['clip.mp4']);
  });

  it('cuts an odd frame size to even and repeats the last frame for a dropped one; video behind audio is found', async () => {
    const input = await aviFile('odd.avi', { width: 161, height: 99, fps: 10, colors: [RED, RED, BLUE, BLUE, BLUE], dropped: [3], audioFirst: true, recLists: true, noIndex: true });
    const output = join(dir, 'odd.mp4');
    const video = await transcodeToMp4(input, output);
    expect(video).toMatchObject({ width: 160, height: 98, frames: 5 });
    expect(ffprobe(output)).toMatchObject({ codec: 'h264', width: 160, height: 98, frames: 5 });
    expect(near(pixelOf(output, 3, 160, 98), BLUE)).toBe(true);
  });

  it('takes an animated WebP (sd.cpp\u2019s other video format)', async () => {
    const frame = (rgb: [number, number, number]) => sharp({ create: { width: 64, height: 48, channels: 3, background: { r: rgb[0], g: rgb[1], b: rgb[2] } } }).png().toBuffer();
    // The two equal red frames may be merged into one of 250 ms: it is shown for two frames.
    const pages = await Promise.all([RED, RED, BLUE, [20, 220, 20] as [number, number, number]].map(frame));
    const webp = await sharp(pages, { join: { animated: true } }).webp({ delay: [125, 125, 125, 125], loop: 0 }).toBuffer();
    const input = join(dir, 'anim.webp');
    writeFileSync(input, webp);
    const output = join(dir, 'anim.mp4');
    expect(await transcodeToMp4(input, output)).toMatchObject({ width: 64, height: 48, fps: 8, frames: 4 });
    expect(ffprobe(output)).toMatchObject({ codec: 'h264', width: 64, height: 48, frames: 4 });
  });

  it.each([
    ['WebM', Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3]), Buffer.alloc(60)]), /WebM/],
    ['unknown bytes', Buffer.from('{"error":"this is a JSON document, not a video"}'), /not one the gateway can decode/],
  ])('refuses %s with a plain VideoTranscodeError, leaving nothing behind', async (_name, bytes, message) => {
    const input = join(dir, `bad-${_name}.bin`);
    writeFileSync(input, bytes);
    const output = join(dir, `bad-${_name}.mp4`);
    const error = await transcodeToMp4(input, output).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VideoTranscodeError);
    expect((error as Error).message).toMatch(message);
    expect(existsSync(output)).toBe(false);
  });

  it('refuses an AVI whose codec is not MJPEG, and one with a frame that is not a JPEG', async () => {
    const h264 = await aviFile('h264.avi', { width: 32, height: 32, fps: 8, colors: [RED, RED], codec: 'H264' });
    await expect(transcodeToMp4(h264, join(dir, 'h264.mp4'))).rejects.toThrow(/not MJPEG/);
    const broken = await aviFile('broken.avi', { width: 32, height: 32, fps: 8, colors: [RED, RED, RED], corrupt: [1] });
    const error = await transcodeToMp4(broken, join(dir, 'broken.mp4')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VideoTranscodeError);
    expect((error as Error).message).toMatch(/frame 2 could not be decoded/);
    expect(existsSync(join(dir, 'broken.mp4'))).toBe(false);
    // The worker that refused it (the pool's first idle one takes the next job) is still sound.
    const good = await aviFile('after.avi', { width: 32, height: 32, fps: 8, colors: [BLUE, BLUE] });
    expect(await transcodeToMp4(good, join(dir, 'after.mp4'))).toMatchObject({ frames: 2 });
  });

  it('stops on abort, leaving nothing at the output path', async () => {
    const input = await aviFile('long.avi', { width: 320, height: 240, fps: 8, colors: Array.from({ length: 40 }, () => RED) });
    const output = join(dir, 'long.mp4');
    const abort = new AbortController();
    const done = transcodeToMp4(input, output, { signal: abort.signal, onProgress: (p) => p >= 0 && abort.abort() });
    await expect(done).rejects.toMatchObject({ name: 'AbortError' });
    expect(existsSync(output)).toBe(false);
  });
});
