/**
 * Canvas -> PNG. Upscaling, quantisation and PNG filtering happen in one JS pass, then
 * zlib (on the libuv pool) deflates. Measured ~2x faster than handing a raw buffer to
 * sharp for resize + encode, and smaller than sharp's unfiltered fast mode.
 */
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { Canvas } from './canvas.js';

const deflate = promisify(zlib.deflate);
const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

interface Axis {
  i0: Int32Array;
  i1: Int32Array;
  f: Float32Array;
}

/** Bilinear source taps for each output coordinate (pixel-centre aligned). */
export function axisTaps(src: number, dst: number): Axis {
  const i0 = new Int32Array(dst);
  const i1 = new Int32Array(dst);
  const f = new Float32Array(dst);
  const ratio = src / dst;
  for (let o = 0; o < dst; o++) {
    const s = Math.min(Math.max((o + 0.5) * ratio - 0.5, 0), src - 1);
    const a = Math.floor(s);
    i0[o] = a;
    i1[o] = Math.min(a + 1, src - 1);
    f[o] = s - a;
  }
  return { i0, i1, f };
}

/** Horizontally resample one canvas row into `dst` (outW * 3 values, already scaled to 0..255). */
function resampleRow(src: Float32Array, rowOffset: number, xs: Axis, dst: Float32Array): void {
  const { i0, i1, f } = xs;
  const n = i0.length;
  for (let x = 0, o = 0; x < n; x++, o += 3) {
    const a = rowOffset + i0[x]! * 3;
    const b = rowOffset + i1[x]! * 3;
    const fx = f[x]!;
    const a0 = src[a]!;
    const a1 = src[a + 1]!;
    const a2 = src[a + 2]!;
    dst[o] = (a0 + (src[b]! - a0) * fx) * 255;
    dst[o + 1] = (a1 + (src[b + 1]! - a1) * fx) * 255;
    dst[o + 2] = (a2 + (src[b + 2]! - a2) * fx) * 255;
  }
}

/**
 * Build PNG scanlines (filter byte + RGB) for an outW x outH image: separable bilinear
 * upscale (each source row resampled once), rounding, and filter 1 ("Sub"), which with
 * zlib's RLE strategy was the fastest and smallest combination measured on these images.
 */
export function canvasToScanlines(canvas: Canvas, outW: number, outH: number): Buffer {
  const src = canvas.data;
  const rowStride = canvas.width * 3;
  const xs = axisTaps(canvas.width, outW);
  const ys = axisTaps(canvas.height, outH);
  const stride = outW * 3;
  const out = Buffer.allocUnsafe((stride + 1) * outH);
  let rowA = new Float32Array(stride);
  let rowB = new Float32Array(stride);
  let haveA = -1;
  let haveB = -1;
  for (let y = 0; y < outH; y++) {
    const y0 = ys.i0[y]!;
    const y1 = ys.i1[y]!;
    const fy = ys.f[y]!;
    if (y0 !== haveA) {
      if (y0 === haveB) {
        const t = rowA;
        rowA = rowB;
        rowB = t;
        haveA = y0;
        haveB = -1;
      } else {
        resampleRow(src, y0 * rowStride, xs, rowA);
        haveA = y0;
      }
    }
    if (y1 !== haveB) {
      resampleRow(src, y1 * rowStride, xs, rowB);
      haveB = y1;
    }
    const base = y * (stride + 1);
    out[base] = 1;
    let l0 = 0;
    let l1 = 0;
    let l2 = 0;
    for (let i = 0; i < stride; i += 3) {
      const v0 = rowA[i]! + (rowB[i]! - rowA[i]!) * fy + 0.5;
      const v1 = rowA[i + 1]! + (rowB[i + 1]! - rowA[i + 1]!) * fy + 0.5;
      const v2 = rowA[i + 2]! + (rowB[i + 2]! - rowA[i + 2]!) * fy + 0.5;
      const q0 = v0 <= 0 ? 0 : v0 >= 255 ? 255 : v0 | 0;
      const q1 = v1 <= 0 ? 0 : v1 >= 255 ? 255 : v1 | 0;
      const q2 = v2 <= 0 ? 0 : v2 >= 255 ? 255 : v2 | 0;
      out[base + 1 + i] = (q0 - l0) & 255;
      out[base + 2 + i] = (q1 - l1) & 255;
      out[base + 3 + i] = (q2 - l2) & 255;
      l0 = q0;
      l1 = q1;
      l2 = q2;
    }
  }
  return out;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(data, zlib.crc32(head.subarray(4))) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

function assemble(width: number, height: number, colourType: 2 | 6, compressed: Buffer): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = colourType; // 2 = RGB, 6 = RGBA
  ihdr[10] = 0; // deflate
  ihdr[11] = 0; // adaptive filtering method 0
  ihdr[12] = 0; // no interlace
  return Buffer.concat([SIGNATURE, chunk('IHDR', ihdr), chunk('IDAT', compressed), chunk('IEND', Buffer.alloc(0))]);
}

const DEFLATE_OPTIONS: zlib.ZlibOptions = { level: 1, strategy: zlib.constants.Z_RLE, memLevel: 9 };

/** Encode an 8-bit RGB PNG of exactly outW x outH from the (possibly smaller) canvas. */
export async function encodeCanvasPng(canvas: Canvas, outW: number, outH: number): Promise<Buffer> {
  const compressed = await deflate(canvasToScanlines(canvas, outW, outH), DEFLATE_OPTIONS);
  return assemble(outW, outH, 2, compressed);
}

/** Encode interleaved 8-bit RGB/RGBA pixels (same Sub filter + RLE deflate as above). */
export async function encodeRawPng(data: Uint8Array, width: number, height: number, channels: 3 | 4): Promise<Buffer> {
  const stride = width * channels;
  const out = Buffer.allocUnsafe((stride + 1) * height);
  for (let y = 0; y < height; y++) {
    const src = y * stride;
    const dst = y * (stride + 1);
    out[dst] = 1;
    for (let i = 0; i < channels; i++) out[dst + 1 + i] = data[src + i]!;
    for (let i = channels; i < stride; i++) out[dst + 1 + i] = (data[src + i]! - data[src + i - channels]!) & 255;
  }
  return assemble(width, height, channels === 4 ? 6 : 2, await deflate(out, DEFLATE_OPTIONS));
}
