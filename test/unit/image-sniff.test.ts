import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { isTruncatedJpeg, sniffImage } from '../../electron/core/images/image-sniff.js';

describe('sniffImage', () => {
  it.each(['png', 'jpeg', 'webp'] as const)('recognizes %s by content and reads its size', async (format) => {
    const bytes = await sharp({ create: { width: 37, height: 21, channels: 3, background: '#abc' } }).toFormat(format).toBuffer();
    expect(sniffImage(bytes)).toEqual({ mime: `image/${format}`, width: 37, height: 21 });
  });

  it('reads lossless and extended WebP headers', async () => {
    const lossless = await sharp({ create: { width: 50, height: 40, channels: 4, background: '#abcdef80' } }).webp({ lossless: true }).toBuffer();
    expect(sniffImage(lossless)).toEqual({ mime: 'image/webp', width: 50, height: 40 });
  });

  it('needs the whole PNG signature, not just an IHDR chunk where a PNG has one', async () => {
    const png = await sharp({ create: { width: 9, height: 7, channels: 3, background: '#abc' } }).png().toBuffer();
    for (const at of [0, 1, 4, 7]) {
      const damaged = Buffer.from(png);
      damaged[at] ^= 0x20;
      expect(sniffImage(damaged), `byte ${at}`).toBeNull();
    }
  });

  it('rejects other content', () => {
    expect(sniffImage(Buffer.from('GIF89a......'))).toBeNull();
    expect(sniffImage(Buffer.from('\x89PNG\r\n\x1a\n'))).toBeNull();
    expect(sniffImage(Buffer.alloc(0))).toBeNull();
    expect(sniffImage(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 2]))).toBeNull();
  });

  it('tells the well-formed start of a JPEG cut before its frame header from a broken one', async () => {
    const jpeg = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#123' } }).jpeg().toBuffer();
    const sof = jpeg.indexOf(Buffer.from([0xff, 0xc0]));
    expect(isTruncatedJpeg(jpeg.subarray(0, sof))).toBe(true);
    expect(isTruncatedJpeg(jpeg)).toBe(false); // whole: sniffImage reads it
    const broken = Buffer.from(jpeg.subarray(0, sof));
    broken[4 + jpeg.readUInt16BE(4)] = 0x00; // the second segment no longer starts with 0xFF
    expect(sniffImage(broken)).toBeNull();
    expect(isTruncatedJpeg(broken)).toBe(false);
    // An APP0 of 4 bytes followed by a byte that is not a marker: broken, not truncated.
    expect(isTruncatedJpeg(Buffer.concat([jpeg.subarray(0, 2), Buffer.from([0xff, 0xe0, 0x00, 0x04, 0x41, 0x42]), Buffer.alloc(12)]))).toBe(false);
    expect(isTruncatedJpeg(Buffer.from('not a jpeg at all'))).toBe(false);
  });
});
