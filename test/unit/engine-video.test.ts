// Built-in video engine: real renders checked by walking the MP4 box tree (always) and by
// ffprobe/ffmpeg (required: the tests fail without them); progress, determinism, abort, validation and named sizes.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateImage } from '../../electron/engine/images/index.js';
import { renderVideo, resolveVideoSize, shutdownVideoWorkers, type RenderVideoInput } from '../../electron/engine/video/index.js';
import { requiredTool } from '../helpers/tools.js';

// Decode checks always run: without these tools the tests fail saying what to install.
const FFPROBE = () => requiredTool('ffprobe');
const FFMPEG = () => requiredTool('ffmpeg');

interface Box {
  type: string;
  start: number;
  size: number;
  header: number;
  children: Box[];
}

const CONTAINERS = new Set(['moov', 'trak', 'mdia', 'minf', 'stbl', 'dinf', 'edts']);

function parseBoxes(buf: Buffer, start = 0, end = buf.length): Box[] {
  const out: Box[] = [];
  let at = start;
  while (at + 8 <= end) {
    let size = buf.readUInt32BE(at);
    let header = 8;
    if (size === 1) {
      size = Number(buf.readBigUInt64BE(at + 8));
      header = 16;
    } else if (size === 0) size = end - at;
    if (size < header || at + size > end) throw new Error(`bad box at ${at}`);
    const box: Box = { type: buf.toString('latin1', at + 4, at + 8), start: at, size, header, children: [] };
    if (CONTAINERS.has(box.type)) box.children = parseBoxes(buf, at + header, at + size);
    // stsd: full box header + entry count, then sample entries (avc1, ...).
    if (box.type === 'stsd') box.children = parseBoxes(buf, at + header + 8, at + size);
    out.push(box);
    at += size;
  }
  if (at !== end) throw new Error(`trailing bytes at ${at}`);
  return out;
}

function find(boxes: Box[], path: string): Box {
  let level = boxes;
  let found: Box | undefined;
  for (const type of path.split('/')) {
    found = level.find((b) => b.type === type);
    if (found === undefined) throw new Error(`missing box ${path} (at ${type})`);
    level = found.children;
  }
  return found!;
}

interface Mp4Facts {
  topLevel: string[];
  avc1: { width: number; height: number };
  tkhd: { width: number; height: number };
  duration: number;
  samples: number;
  syncSamples: number[];
}

function inspectMp4(buf: Buffer): Mp4Facts {
  const boxes = parseBoxes(buf);
  const mvhd = find(boxes, 'moov/mvhd');
  const v1 = buf[mvhd.start + 8] === 1;
  const timescale = buf.readUInt32BE(mvhd.start + (v1 ? 28 : 20));
  const duration = v1 ? Number(buf.readBigUInt64BE(mvhd.start + 32)) : buf.readUInt32BE(mvhd.start + 24);
  const tkhd = find(boxes, 'moov/trak/tkhd');
  const tkhdSize = tkhd.start + tkhd.size; // width/height are the last 8 bytes, 16.16 fixed point
  // avc1 visual sample entry: 8 header + 6 reserved + 2 index + 16 predefined, then width, height.
  const avc1 = find(boxes, 'moov/trak/mdia/minf/stbl/stsd/avc1');
  const stsz = find(boxes, 'moov/trak/mdia/minf/stbl/stsz');
  const stss = find(boxes, 'moov/trak/mdia/minf/stbl/stss');
  const syncCount = buf.readUInt32BE(stss.start + 12);
  return {
    topLevel: boxes.map((b) => b.type),
    avc1: { width: buf.readUInt16BE(avc1.start + 32), height: buf.readUInt16BE(avc1.start + 34) },
    tkhd: { width: buf.readUInt32BE(tkhdSize - 8) / 65536, height: buf.readUInt32BE(tkhdSize - 4) / 65536 },
    duration: duration / timescale,
    samples: buf.readUInt32BE(stsz.start + 16),
    syncSamples: Array.from({ length: syncCount }, (_, i) => buf.readUInt32BE(stss.start + 16 + 4 * i)),
  };
}

function ffprobe(path: string): { codec: string; width: number; height: number; frames: number; duration: number } {
  const out = execFileSync(FFPROBE(), ['-v', 'error', '-count_frames', '-select_streams', 'v:0', '-show_entries', 'stream=codec_name,width,height,nb_read_frames:format=duration', '-of', 'json', path]).toString();
  const parsed = JSON.parse(out) as { streams: { codec_name: string; width: number; height: number; nb_read_frames: string }[]; format: { duration: string } };
  const s = parsed.streams[0]!;
  return { codec: s.codec_name, width: s.width, height: s.height, frames: Number(s.nb_read_frames), duration: Number(parsed.format.duration) };
}

/** Mean and spread of the luma of one decoded frame (ffmpeg). */
function lumaStats(path: string, frame: number, width: number, height: number): { mean: number; std: number } {
  const raw = execFileSync(FFMPEG(), ['-v', 'error', '-i', path, '-vf', `select=eq(n\\,${frame})`, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'gray', '-']);
  expect(raw.length).toBe(width * height);
  let sum = 0;
  for (const v of raw) sum += v;
  const mean = sum / raw.length;
  let sq = 0;
  for (const v of raw) sq += (v - mean) ** 2;
  return { mean, std: Math.sqrt(sq / raw.length) };
}

let dir = '';
let reference: Buffer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'engine-video-'));
  reference = (await generateImage({ prompt: 'mountain lake at sunset with pine trees', width: 320, height: 240 })).png;
});

afterAll(async () => {
  await shutdownVideoWorkers();
  rmSync(dir, { recursive: true, force: true });
});

async function renderChecked(name: string, input: RenderVideoInput): Promise<{ path: string; bytes: Buffer; progress: number[] }> {
  const progress: number[] = [];
  const path = join(dir, name);
  const result = await renderVideo(input, path, { onProgress: (p) => progress.push(p) });
  const bytes = readFileSync(path);
  const fps = input.fps ?? 24;
  expect(result).toEqual({ path, bytes: bytes.length, width: input.width, height: input.height, frames: input.seconds * fps, fps, seconds: input.seconds });

  const facts = inspectMp4(bytes);
  expect(facts.topLevel[0]).toBe('ftyp');
  expect(facts.topLevel).toContain('moov');
  // faststart: the index comes before the media data.
  expect(facts.topLevel.indexOf('moov')).toBeLessThan(facts.topLevel.indexOf('mdat'));
  expect(facts.avc1).toEqual({ width: input.width, height: input.height });
  expect(facts.tkhd).toEqual({ width: input.width, height: input.height });
  expect(Math.abs(facts.duration - input.seconds)).toBeLessThanOrEqual(0.1);
  expect(facts.samples).toBe(input.seconds * fps);
  expect(facts.syncSamples[0]).toBe(1);
  expect(facts.syncSamples.length).toBeLessThan(facts.samples);

  const probe = ffprobe(path);
  expect(probe.codec).toBe('h264');
  expect([probe.width, probe.height]).toEqual([input.width, input.height]);
  expect(probe.frames).toBe(input.seconds * fps);
  expect(Math.abs(probe.duration - input.seconds)).toBeLessThanOrEqual(0.1);

  expect(progress.length).toBeGreaterThanOrEqual(20);
  for (let i = 1; i < progress.length; i++) expect(progress[i]!).toBeGreaterThan(progress[i - 1]!);
  expect(progress[0]!).toBeGreaterThanOrEqual(0);
  expect(progress.at(-1)).toBe(100);
  expect(progress.filter((p) => p === 100)).toHaveLength(1);
  expect(readdirSync(dir).filter((f) => f.endsWith('.part'))).toEqual([]);
  return { path, bytes, progress };
}

describe('renderVideo', () => {
  it('renders text-to-video as a playable H.264 MP4 with exact size, frame count and duration', async () => {
    const { path } = await renderChecked('text.mp4', { prompt: 'sunset over the ocean with waves', width: 256, height: 144, seconds: 2 });
    // A real picture, not a flat colour; and seeking to the last second decodes.
    expect(lumaStats(path, 30, 256, 144).std).toBeGreaterThan(8);
    const tail = execFileSync(FFMPEG(), ['-v', 'error', '-ss', '1.8', '-i', path, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'gray', '-']);
    expect(tail.length).toBe(256 * 144);
  });

  it('renders image-to-video from PNG and JPEG references, fading in from black', async () => {
    const { path } = await renderChecked('image.mp4', { prompt: 'slow zoom', width: 256, height: 144, seconds: 2, reference });
    const jpeg = await sharp(reference).jpeg({ quality: 80 }).toBuffer();
    await renderChecked('image-jpeg.mp4', { prompt: 'pan left', width: 192, height: 108, seconds: 1, fps: 30, reference: jpeg });
    const first = lumaStats(path, 0, 256, 144);
    const middle = lumaStats(path, 24, 256, 144);
    expect(first.mean).toBeLessThan(24);
    expect(middle.mean).toBeGreaterThan(first.mean + 30);
    expect(middle.std).toBeGreaterThan(10);
  });

  it.each([
    'galaxy nebula with a planet', 'neon city synthwave grid', 'snowy mountains at night with aurora', 'stormy sea in the rain',
    'abstract fluid gradient', 'fireflies in a dark forest', 'underwater bubbles', 'xyzzy',
  ])('renders the "%s" scene', async (prompt) => {
    await renderChecked(`scene-${prompt.replace(/\W+/g, '-')}.mp4`, { prompt, width: 160, height: 90, seconds: 1 });
  });

  it('is deterministic: same input gives the same bytes, a different prompt or seed does not', async () => {
    const input = { prompt: 'forest lake at dawn', width: 128, height: 72, seconds: 1, seed: 7 };
    const a = readFileSync((await renderVideo(input, join(dir, 'det-a.mp4'))).path);
    // Cross a wall-clock second so container timestamps, if any leaked in, would differ.
    await new Promise((r) => setTimeout(r, 1050 - (Date.now() % 1000)));
    const b = readFileSync((await renderVideo(input, join(dir, 'det-b.mp4'))).path);
    const c = readFileSync((await renderVideo({ ...input, seed: 8 }, join(dir, 'det-c.mp4'))).path);
    const d = readFileSync((await renderVideo({ ...input, prompt: 'desert dunes' }, join(dir, 'det-d.mp4'))).path);
    expect(a.equals(b)).toBe(true);
    expect(a.equals(c)).toBe(false);
    expect(a.equals(d)).toBe(false);
    const i1 = readFileSync((await renderVideo({ ...input, reference }, join(dir, 'det-i1.mp4'))).path);
    const i2 = readFileSync((await renderVideo({ ...input, reference }, join(dir, 'det-i2.mp4'))).path);
    expect(i1.equals(i2)).toBe(true);
  });

  it('aborts mid-render with AbortError and leaves no file behind, then keeps working', async () => {
    const out = join(dir, 'aborted.mp4');
    const controller = new AbortController();
    const seen: number[] = [];
    const pending = renderVideo({ prompt: 'ocean', width: 854, height: 480, seconds: 10 }, out, {
      signal: controller.signal,
      onProgress: (p) => {
        seen.push(p);
        if (p >= 5) controller.abort();
      },
    });
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen.length).toBeGreaterThan(0);
    expect(Math.max(...seen)).toBeLessThan(100);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.startsWith('.aborted'))).toEqual([]);

    await expect(renderVideo({ prompt: 'x', width: 64, height: 64, seconds: 1 }, join(dir, 'pre.mp4'), { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
    expect(existsSync(join(dir, 'pre.mp4'))).toBe(false);
    // The pool replaced the terminated worker.
    await renderChecked('after-abort.mp4', { prompt: 'ocean', width: 128, height: 72, seconds: 1 });
  });

  it('rejects invalid input with EngineInputError and writes nothing', async () => {
    const base = { prompt: 'x', width: 128, height: 72, seconds: 1 };
    const bad: RenderVideoInput[] = [
      { ...base, width: 127 }, { ...base, height: 0 }, { ...base, width: 4000 }, { ...base, seconds: 0.5 }, { ...base, seconds: 21 },
      { ...base, fps: 0 }, { ...base, fps: 61 }, { ...base, fps: 23.5 }, { ...base, seed: Number.NaN },
      { ...base, reference: Buffer.from('definitely not an image') },
    ];
    for (const [i, input] of bad.entries()) {
      const out = join(dir, `bad-${i}.mp4`);
      await expect(renderVideo(input, out)).rejects.toMatchObject({ name: 'EngineInputError' });
      expect(existsSync(out)).toBe(false);
    }
  });
});

describe('resolveVideoSize', () => {
  it('maps named sizes and even WxH within limits', () => {
    expect(resolveVideoSize('480p')).toEqual({ width: 854, height: 480 });
    expect(resolveVideoSize('720p')).toEqual({ width: 1280, height: 720 });
    expect(resolveVideoSize('1080p')).toEqual({ width: 1920, height: 1080 });
    expect(resolveVideoSize(' 720P ')).toEqual({ width: 1280, height: 720 });
    expect(resolveVideoSize('640x360')).toEqual({ width: 640, height: 360 });
    expect(resolveVideoSize('1080x1920')).toEqual({ width: 1080, height: 1920 });
  });

  it.each(['', '360p', '4k', '641x360', '640x361', '0x0', '8x8', '3840x2160', '1920x1920', '640 x 360', '-640x360', '640x360x2', 'abc'])('rejects %j', (size) => {
    expect(resolveVideoSize(size)).toBeNull();
  });
});
