// A reference image whose header reads right can still be cut short or corrupt: the sniff reads
// only the header, and a decoder told to carry on paints the missing rows black. Each reference
// is decoded whole before anything is held, so such a file is the caller's 400, not a blank
// video or edit that is charged. Shrinking while decoding keeps it to a few ms per image.
// sharp (libvips) is loaded on first use: loading it costs ~75 ms, most of a cold start.
import { invalid } from '../errors.js';
import type { ReferenceImage } from '../providers/provider.js';

export async function checkImagesDecode(images: readonly ReferenceImage[]): Promise<void> {
  if (images.length === 0) return;
  const { default: sharp } = await import('sharp'); // the module system keeps it after the first
  for (const image of images) {
    try {
      await sharp(image.bytes, { failOn: 'error' }).resize(64, 64, { fit: 'inside' }).raw().toBuffer();
    } catch {
      throw invalid(`The image "${image.filename}" is cut short or corrupt and cannot be decoded.`, image.field);
    }
  }
}
