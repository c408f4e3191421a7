// The bytes a stable-diffusion.cpp server returns: encoded images (png with its "parameters" text,
// jpeg, webp) and video containers built from generated frames.
// Source followed: examples/common/media_io.cpp (encode_image_to_vector;
// create_video_from_sd_images_to_vector: "webm" -> create_webm_from_sd_images_to_vector (VP8 in
// WebM, libwebm), "webp" -> create_animated_webp_from_sd_images_to_vector (WebPAnimEncoder, each
// frame lround(1000 / fps) ms, quality = output_compression), anything else ->
// create_mjpg_avi_from_sd_images_to_vector (JPEG quality clamped to 1..90)); async_jobs.cpp
// (encode failure -> "failed to encode generated video container").
// Frames here are flat colours, distinct and deterministic per index (the "generated" video).
// Guess: WebM is produced with ffmpeg's libvpx (VP8), the codec the real server writes; without
// ffmpeg a WebM job fails the way the server's encoder failure does.
import sharp from 'sharp';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodePng } from './png.js';
import { withPngText } from './png-text.js';
import { writeMjpegAvi } from './avi-mjpeg.js';
import type { ImageFormat, VideoFormat } from './sdcpp-params.js';

/** One image as the server encodes it; PNGs carry get_image_params() as "parameters" (embed_image_metadata). */
export async function encodeImage(format: ImageFormat, width: number, height: number, seed: number, parameters: string, compression: number): Promise<Buffer> {
  const png = encodePng(width, height, { seed: (seed * 29) & 0xff });
  if (format === 'png') return withPngText(png, 'parameters', parameters);
  const quality = Math.min(100, Math.max(1, compression));
  return format === 'jpeg' ? sharp(png).jpeg({ quality }).toBuffer() : sharp(png).webp({ quality }).toBuffer();
}

/** Frame i's colour: hues spaced by the golden angle, so neighbouring frames differ clearly. */
export function frameColour(index: number): { r: number; g: number; b: number } {
  const hue = (index * 137.508) % 360;
  const c = 0.85 * 0.8;
  const x = c * (1 - Math.abs(((hue / 60) % 2) - 1));
  const m = 0.85 - c;
  const [r, g, b] = hue < 60 ? [c, x, 0] : hue < 120 ? [x, c, 0] : hue < 180 ? [0, c, x] : hue < 240 ? [0, x, c] : hue < 300 ? [x, 0, c] : [c, 0, x];
  const byte = (v: number) => Math.round((v + m) * 255);
  return { r: byte(r), g: byte(g), b: byte(b) };
}

function frame(index: number, width: number, height: number) {
  return sharp({ create: { width, height, channels: 3, background: frameColour(index) } });
}

/** The video frames as JPEGs (stb_image_write quality = clamp(quality, 1, 90)). */
export function jpegFrames(count: number, width: number, height: number, quality: number): Promise<Buffer[]> {
  const q = Math.min(90, Math.max(1, quality));
  return Promise.all(Array.from({ length: count }, (_, i) => frame(i, width, height).jpeg({ quality: q }).toBuffer()));
}

function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout: 60_000 }, (error) => (error ? reject(error) : resolve()));
  });
}

/** create_video_from_sd_images_to_vector for `count` generated frames. */
export async function encodeVideo(format: VideoFormat, count: number, width: number, height: number, fps: number, compression: number): Promise<Buffer> {
  if (format === 'webp') {
    const pngs = await Promise.all(Array.from({ length: count }, (_, i) => frame(i, width, height).png().toBuffer()));
    const delay = Math.max(1, Math.round(1000 / fps));
    const input = count === 1 ? pngs[0]! : pngs;
    return sharp(input, count === 1 ? {} : { join: { animated: true } }).webp({ quality: Math.max(1, compression), loop: 0, delay: Array(count).fill(delay) }).toBuffer();
  }
  const jpegs = await jpegFrames(count, width, height, compression);
  if (format === 'avi') return writeMjpegAvi(jpegs, { width, height, fps });
  const dir = await mkdtemp(join(tmpdir(), 'sdcpp-webm-'));
  try {
    await writeFile(join(dir, 'frames.mjpeg'), Buffer.concat(jpegs));
    const out = join(dir, 'out.webm');
    await run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'mjpeg', '-framerate', String(fps), '-i', join(dir, 'frames.mjpeg'), '-c:v', 'libvpx', '-g', '1', '-b:v', '2M', '-pix_fmt', 'yuv420p', '-f', 'webm', out]);
    return await readFile(out);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
