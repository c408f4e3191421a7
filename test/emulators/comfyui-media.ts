// The bytes the ComfyUI emulator's nodes write: PNGs with SaveImage's tEXt metadata ("prompt",
// extra_pnginfo keys, as PIL's PngInfo.add_text writes them), the latent2rgb preview JPEG sent
// during sampling, a playable H.264 MP4 (SaveVideo, VHS h264-mp4), WebM-headed bytes (SaveWEBM,
// VHS webm: an EBML header and a Segment with Info and a video track, not playable), and a
// single-frame GIF/WebP for VHS's image/* formats.
import sharp from 'sharp';
import { encodePng, pngChunk } from './png.js';
import { playableMp4 } from './mp4.js';
import { pyJsonDumps } from './comfyui-python.js';

/** A width x height PNG (content varies with seed) carrying tEXt chunks after IHDR. */
export function pngWithText(width: number, height: number, seed: number, text: Record<string, unknown>): Buffer {
  const png = encodePng(width, height, { seed: seed & 0xff });
  const ihdrEnd = 8 + 8 + 13 + 4;
  const chunks = Object.entries(text).map(([key, value]) => pngChunk('tEXt', Buffer.from(`${key}\0${pyJsonDumps(value)}`, 'latin1')));
  return Buffer.concat([png.subarray(0, ihdrEnd), ...chunks, png.subarray(ihdrEnd)]);
}

function rawGradient(width: number, height: number, seed: number): Buffer {
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * 3;
      raw[at] = Math.floor((x * 255) / Math.max(1, width - 1));
      raw[at + 1] = Math.floor((y * 255) / Math.max(1, height - 1));
      raw[at + 2] = seed & 0xff;
    }
  }
  return raw;
}

const previewCache = new Map<string, Promise<Buffer>>();

/** latent_preview.py's Latent2RGB preview: a JPEG of the latent's size, contained in 512 px. */
export function previewJpeg(latentWidth: number, latentHeight: number, seed: number): Promise<Buffer> {
  const scale = Math.min(1, 512 / Math.max(latentWidth, latentHeight));
  const width = Math.max(1, Math.round(latentWidth * scale));
  const height = Math.max(1, Math.round(latentHeight * scale));
  const key = `${width}x${height}:${seed & 0xff}`;
  let jpeg = previewCache.get(key);
  if (!jpeg) {
    jpeg = sharp(rawGradient(width, height, seed), { raw: { width, height, channels: 3 } }).jpeg({ quality: 95 }).toBuffer();
    if (previewCache.size > 32) previewCache.clear();
    previewCache.set(key, jpeg);
  }
  return jpeg;
}

/** A playable H.264 MP4 with exactly `frames` frames at `fps` (rounded to a whole rate for the encoder). */
export function videoMp4(width: number, height: number, frames: number, fps: number): Buffer {
  const rate = Math.max(1, Math.round(fps));
  return playableMp4({ width, height, fps: rate, durationMs: (Math.max(1, frames) * 1000) / rate, bytesPerSecond: Math.round(width * height * 0.05) });
}

function ebmlSize(size: number): Buffer {
  // 8-byte size vint (0x01 then 7 bytes), valid for any size we write.
  const out = Buffer.alloc(8);
  out[0] = 0x01;
  out.writeUIntBE(size, 2, 6);
  return out;
}

function element(id: number[], ...payload: Buffer[]): Buffer {
  const body = Buffer.concat(payload);
  return Buffer.concat([Buffer.from(id), ebmlSize(body.length), body]);
}

const uint = (value: number, bytes = 4) => {
  const out = Buffer.alloc(bytes);
  out.writeUIntBE(value, 0, bytes);
  return out;
};

/** WebM-looking bytes (EBML DocType "webm", Segment/Info/Tracks with the video size), not decodable. */
export function webmBytes(width: number, height: number, frames: number, fps: number, codec: 'V_VP9' | 'V_AV1' = 'V_VP9'): Buffer {
  const header = element(
    [0x1a, 0x45, 0xdf, 0xa3],
    element([0x42, 0x86], uint(1, 1)), // EBMLVersion
    element([0x42, 0xf7], uint(1, 1)), // EBMLReadVersion
    element([0x42, 0xf2], uint(4, 1)), // EBMLMaxIDLength
    element([0x42, 0xf3], uint(8, 1)), // EBMLMaxSizeLength
    element([0x42, 0x82], Buffer.from('webm')), // DocType
    element([0x42, 0x87], uint(4, 1)), // DocTypeVersion
    element([0x42, 0x85], uint(2, 1)), // DocTypeReadVersion
  );
  const durationMs = (frames * 1000) / Math.max(0.01, fps);
  const duration = Buffer.alloc(8);
  duration.writeDoubleBE(durationMs, 0);
  const info = element([0x15, 0x49, 0xa9, 0x66], element([0x2a, 0xd7, 0xb1], uint(1_000_000)), element([0x44, 0x89], duration), element([0x4d, 0x80], Buffer.from('Lavf61.7.100')));
  const video = element([0xe0], element([0xb0], uint(width, 2)), element([0xba], uint(height, 2)));
  const track = element([0xae], element([0xd7], uint(1, 1)), element([0x83], uint(1, 1)), element([0x86], Buffer.from(codec)), video);
  const filler = Buffer.alloc(Math.min(256 * 1024, 512 + width * height * frames * 0.01));
  for (let i = 0; i < filler.length; i++) filler[i] = (i * 131) & 0xff;
  const segment = element([0x18, 0x53, 0x80, 0x67], info, element([0x16, 0x54, 0xae, 0x6b], track), element([0xec], filler));
  return Buffer.concat([header, segment]);
}

/** A single-frame GIF or WebP of the size (VHS image/gif, image/webp). */
export function stillImage(format: 'gif' | 'webp', width: number, height: number, seed: number): Promise<Buffer> {
  const image = sharp(rawGradient(width, height, seed), { raw: { width, height, channels: 3 } });
  return (format === 'gif' ? image.gif() : image.webp({ lossless: true })).toBuffer();
}

/** Python's mimetypes.guess_type for the extensions the emulator serves. */
export function contentTypeOf(filename: string): string {
  const ext = filename.slice(filename.lastIndexOf('.') + 1).toLowerCase();
  const types: Record<string, string> = {
    png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif', bmp: 'image/bmp',
    mp4: 'video/mp4', webm: 'video/webm', mov: 'video/quicktime', mkv: 'video/x-matroska', json: 'application/json', txt: 'text/plain',
  };
  return filename.includes('.') ? (types[ext] ?? 'application/octet-stream') : 'application/octet-stream';
}
