// Reads an upstream image answer: the base64 is checked to be real base64 here; that the bytes
// are a PNG, JPEG or WebP is checked for every provider alike by the image service.
import { invalidResponse } from './upstream-errors.js';

/**
 * Decodes and checks upstream base64. Node's decoder skips characters that are not base64, so
 * a decoded length short of what the text length implies means the text was not clean base64;
 * that check is ten times faster than a regular expression over megabytes. The decoder also
 * takes the URL-safe '-' and '_', which strict clients refuse, so those are looked for apart.
 */
export function decodeImageBase64(value: unknown): Buffer {
  if (typeof value !== 'string' || value.length === 0) throw invalidResponse('no image in the response');
  const padding = value.endsWith('==') ? 2 : value.endsWith('=') ? 1 : 0;
  const bytes = Buffer.from(value, 'base64');
  const clean = value.length % 4 === 0 && bytes.length === (value.length / 4) * 3 - padding && !value.includes('-') && !value.includes('_');
  if (!clean) throw invalidResponse('the image is not valid base64');
  return bytes;
}

/**
 * Reads `{..., "data": [{"b64_json": "<megabytes>"}], ...}` without making JSON.parse scan the
 * image: the base64 string is cut out (it has no quotes or escapes) and the rest parsed. Any
 * unusual layout (escapes, other shapes) falls back to a full parse.
 */
export interface ImagesJson {
  data?: { b64_json?: unknown; url?: unknown }[];
  usage?: { input_tokens?: unknown; output_tokens?: unknown; input_tokens_details?: { cached_tokens?: unknown } };
}

export function parseImagesJson(text: string): { body: ImagesJson; b64: string | null } {
  const marker = text.indexOf('"b64_json"');
  if (marker !== -1) {
    const open = text.indexOf('"', text.indexOf(':', marker + 10));
    const close = open === -1 ? -1 : text.indexOf('"', open + 1);
    const between = open === -1 ? '' : text.slice(marker + 10, open);
    if (close !== -1 && /^\s*:\s*$/.test(between)) {
      const b64 = text.slice(open + 1, close);
      if (!b64.includes('\\')) {
        const body = JSON.parse(text.slice(0, open) + '""' + text.slice(close + 1)) as ImagesJson;
        if (body.data?.[0]?.b64_json === '') return { body, b64 };
      }
    }
  }
  return { body: JSON.parse(text) as ImagesJson, b64: null };
}

/** A data: URI of an image, for providers that take inputs by URL. */
export const dataUri = (mime: string, bytes: Buffer): string => `data:${mime};base64,${bytes.toString('base64')}`;
