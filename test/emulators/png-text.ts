// PNG text chunks: both engines embed the generation parameters in the PNGs they return (A1111's
// encode_pil_to_base64 writes image.info["parameters"] as a tEXt chunk; stable-diffusion.cpp's
// encode_image_to_vector writes get_image_params() under the same key).
import { PNG_SIGNATURE, pngChunk } from './png.js';

function textChunk(key: string, value: string): Buffer {
  // PIL's PngInfo.add_text writes tEXt when the value is Latin-1, else an uncompressed iTXt.
  const latin1 = !/[^\x00-\xff]/.test(value);
  const type = latin1 ? 'tEXt' : 'iTXt';
  const data = latin1
    ? Buffer.concat([Buffer.from(key, 'latin1'), Buffer.from([0]), Buffer.from(value, 'latin1')])
    : Buffer.concat([Buffer.from(key, 'latin1'), Buffer.from([0, 0, 0, 0, 0]), Buffer.from(value, 'utf8')]);
  return pngChunk(type, data);
}

/** The PNG with a text chunk `key` = `value` inserted right after IHDR. */
export function withPngText(png: Buffer, key: string, value: string): Buffer {
  if (!png.subarray(0, 8).equals(PNG_SIGNATURE)) throw new Error('not a PNG');
  const ihdrEnd = 8 + 8 + png.readUInt32BE(8) + 4;
  return Buffer.concat([png.subarray(0, ihdrEnd), textChunk(key, value), png.subarray(ihdrEnd)]);
}

/** Every tEXt / uncompressed iTXt chunk of a PNG, key -> value. */
export function readPngText(png: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  for (let at = 8; at + 12 <= png.length; ) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const data = png.subarray(at + 8, at + 8 + length);
    const zero = data.indexOf(0);
    if (type === 'tEXt' && zero > 0) out[data.toString('latin1', 0, zero)] = data.toString('latin1', zero + 1);
    if (type === 'iTXt' && zero > 0 && data[zero + 1] === 0) {
      const lang = data.indexOf(0, zero + 3);
      const translated = lang === -1 ? -1 : data.indexOf(0, lang + 1);
      if (translated !== -1) out[data.toString('latin1', 0, zero)] = data.toString('utf8', translated + 1);
    }
    at += 12 + length;
  }
  return out;
}
