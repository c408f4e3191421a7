// Images an upstream answers with by URL: fal's results, and the DALL-E models of OpenAI-compatible
// servers (whose default response_format is url). The gateway answers with base64 only, so the
// image is fetched here (the image service checks its bytes, as for any provider).
import { decodeImageBase64 } from './image-payload.js';
import type { UpstreamClient } from './upstream-client.js';
import { invalidResponse } from './upstream-errors.js';

const MAX_IMAGE_BYTES = 64 * 1024 * 1024;

/**
 * The image at `url`: a base64 data: URI is decoded; an http(s) URL is fetched without the
 * provider's key (it usually points at someone else's storage host).
 */
export async function imageFromUrl(http: UpstreamClient, url: string, signal?: AbortSignal): Promise<Buffer> {
  if (url.startsWith('data:')) {
    const comma = url.indexOf(',');
    if (comma === -1 || !url.slice(0, comma).endsWith(';base64')) throw invalidResponse('the image data URI is not base64');
    return decodeImageBase64(url.slice(comma + 1));
  }
  if (!/^https?:\/\//i.test(url)) throw invalidResponse('the image URL is not http(s)');
  return (await http.bytes({ method: 'GET', url, ...(signal ? { signal } : {}) }, MAX_IMAGE_BYTES)).body;
}
