import sharp from 'sharp';

export interface Decoded {
  format: string;
  width: number;
  height: number;
}

/** Decodes base64 image bytes for real (not just the header) and reports format and size. */
export async function decodeB64(b64: string): Promise<Decoded> {
  const bytes = Buffer.from(b64, 'base64');
  const { info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
  const meta = await sharp(bytes).metadata();
  return { format: meta.format ?? 'unknown', width: info.width, height: info.height };
}

/** A small real image with a colored left half, in the requested format. */
export async function makeImage(width: number, height: number, format: 'png' | 'jpeg' | 'webp' = 'png'): Promise<Buffer> {
  const half = await sharp({ create: { width: Math.max(1, Math.floor(width / 2)), height, channels: 3, background: { r: 220, g: 40, b: 40 } } })
    .png()
    .toBuffer();
  return sharp({ create: { width, height, channels: 3, background: { r: 30, g: 90, b: 200 } } })
    .composite([{ input: half, left: 0, top: 0 }])
    .toFormat(format)
    .toBuffer();
}

/** A PNG stored without compression: its file is about width x height x 3 bytes, whatever the picture. */
export function uncompressedPng(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 90, g: 140, b: 60 } } })
    .png({ compressionLevel: 0 })
    .toBuffer();
}
