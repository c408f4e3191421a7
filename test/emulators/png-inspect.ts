// Reads a PNG back strictly (signature, every chunk CRC, IHDR, inflated IDAT length), for tests
// that must prove an emulator's image is decodable rather than just PNG-shaped.
import { inflateSync } from 'node:zlib';
import { PNG_SIGNATURE, crc32 } from './png.js';

export interface PngInfo {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
  chunks: string[];
  /** Length of the inflated image data (rows with their filter bytes). */
  rawLength: number;
}

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

export function inspectPng(buf: Buffer): PngInfo {
  if (buf.length < 8 || !buf.subarray(0, 8).equals(PNG_SIGNATURE)) throw new Error('not a PNG: bad signature');
  let offset = 8;
  const chunks: string[] = [];
  const idat: Buffer[] = [];
  let ihdr: Buffer | undefined;
  while (offset + 12 <= buf.length) {
    const length = buf.readUInt32BE(offset);
    const type = buf.toString('latin1', offset + 4, offset + 8);
    const end = offset + 12 + length;
    if (end > buf.length) throw new Error(`chunk ${type} runs past the end`);
    const expected = buf.readUInt32BE(offset + 8 + length);
    if (crc32(buf.subarray(offset + 4, offset + 8 + length)) !== expected) throw new Error(`bad CRC in ${type}`);
    const data = buf.subarray(offset + 8, offset + 8 + length);
    chunks.push(type);
    if (type === 'IHDR') ihdr = data;
    if (type === 'IDAT') idat.push(data);
    offset = end;
    if (type === 'IEND') break;
  }
  if (!ihdr || ihdr.length !== 13) throw new Error('missing IHDR');
  if (chunks[0] !== 'IHDR' || chunks[chunks.length - 1] !== 'IEND') throw new Error(`bad chunk order ${chunks.join(',')}`);
  const width = ihdr.readUInt32BE(0);
  const height = ihdr.readUInt32BE(4);
  const bitDepth = ihdr[8] ?? 0;
  const colorType = ihdr[9] ?? 0;
  const raw = inflateSync(Buffer.concat(idat));
  const channels = CHANNELS[colorType];
  if (channels === undefined) throw new Error(`bad colour type ${colorType}`);
  const expectedRaw = height * (1 + Math.ceil((width * channels * bitDepth) / 8));
  if (raw.length !== expectedRaw) throw new Error(`IDAT inflates to ${raw.length} bytes, expected ${expectedRaw}`);
  return { width, height, bitDepth, colorType, chunks, rawLength: raw.length };
}
