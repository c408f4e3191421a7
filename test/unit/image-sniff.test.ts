import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { sniffImage } from '../../electron/core/images/image-sniff.js';

describe('sniffImage', () => {
  it.each(['png', 'jpeg', 'webp'] as const)('recognizes %s by content and reads its size', async (format) => {
    const bytes = await sharp({ create: { width: 37, height: 21, channels: 3, background: '#abc' } }).toFormat(format).toBuffer();
    expect(sniffImage(bytes)).toEqual({ mime: `image/${format}`, width: 37, height: 21 });
  });

  it('reads lossless and extended WebP headers', async () => {
    const lossless = await sharp({ create: { width: 50, height: 40, channels: 4, background: '#abcdef80' } }).webp({ lossless: true }).toBuffer();
    expect(sniffImage(lossless)).toEqual({ mime: 'image/webp', width: 50, height: 40 });
  });

  it('rejects other content', () => {
    expect(sniffImage(Buffer.from('GIF89a......'))).toBeNull();
    expect(sniffImage(Buffer.from('\x89PNG\r\n\x1a\n'))).toBeNull();
    expect(sniffImage(Buffer.alloc(0))).toBeNull();
    expect(sniffImage(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 2]))).toBeNull();
  });
});
