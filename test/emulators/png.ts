// A tiny PNG encoder (RGB, 8 bits per channel) on node:zlib, so the emulators can return real,
// decodable images without sharp. CRC32 is our own table: node:zlib only has crc32 on newer Node.
import { deflateSync } from 'node:zlib';

const CRC_TABLE: Uint32Array = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (ISO 3309 / PNG) of the given bytes. */
export function crc32(data: Uint8Array, seed = 0): number {
  let c = (seed ^ 0xffffffff) >>> 0;
  for (let i = 0; i < data.length; i++) c = (CRC_TABLE[(c ^ (data[i] ?? 0)) & 0xff] ?? 0) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** One PNG chunk: length, type, data and the CRC of type and data. */
export function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

export interface PngOptions {
  /** Varies the blue channel so different requests can produce different images. */
  seed?: number;
}

/**
 * A width x height RGB gradient (red across, green down). Rows use the Sub filter, which turns
 * the smooth gradient into near-constant bytes, so even 1024x1024 deflates to a few KB.
 */
export function encodePng(width: number, height: number, options: PngOptions = {}): Buffer {
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    throw new Error(`bad PNG size ${width}x${height}`);
  }
  const blue = (options.seed ?? 128) & 0xff;
  const stride = 1 + width * 3;
  const raw = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const row = y * stride;
    const green = Math.floor((y * 255) / Math.max(1, height - 1));
    raw[row] = 1; // filter type Sub: each byte is stored minus the byte one pixel to the left
    let prevR = 0;
    let prevG = 0;
    let prevB = 0;
    for (let x = 0; x < width; x++) {
      const red = Math.floor((x * 255) / Math.max(1, width - 1));
      const at = row + 1 + x * 3;
      raw[at] = (red - prevR) & 0xff;
      raw[at + 1] = (green - prevG) & 0xff;
      raw[at + 2] = (blue - prevB) & 0xff;
      prevR = red;
      prevG = green;
      prevB = blue;
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type: truecolour RGB
  ihdr[10] = 0; // compression
  ihdr[11] = 0; // filter method
  ihdr[12] = 0; // no interlace
  return Buffer.concat([
    PNG_SIGNATURE,
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(raw, { level: 6 })),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

const cache = new Map<string, Buffer>();

/** encodePng, memoised: emulators answer the same sizes over and over in benchmarks. */
export function cachedPng(width: number, height: number, seed = 128): Buffer {
  const key = `${width}x${height}:${seed}`;
  let png = cache.get(key);
  if (!png) {
    png = encodePng(width, height, { seed });
    if (cache.size > 64) cache.clear();
    cache.set(key, png);
  }
  return png;
}

/** Scales a size down so its longer side is at most `maxSide` (keeps the aspect ratio). */
export function capSize(width: number, height: number, maxSide: number): { width: number; height: number } {
  const longest = Math.max(width, height);
  if (longest <= maxSide) return { width, height };
  const scale = maxSide / longest;
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}
