// Images an upstream answers with by URL: fal's results, and the DALL-E models of OpenAI-compatible
// servers (whose default response_format is url). The gateway answers with base64 only, so the
// image is fetched here (the image service checks its bytes, as for any provider).
import { decodeImageBase64 } from './image-payload.js';
import type { UpstreamClient } from './upstream-client.js';
import { invalidResponse, UpstreamStatusError } from './upstream-errors.js';

const MAX_IMAGE_BYTES = 64 * 1024 * 1024;

/**
 * The image at `url`: a base64 data: URI is decoded; an http(s) URL is fetched without the
 * provider's key (it usually points at someone else's storage host), following up to 3
 * redirects (a CDN handing on to its storage). The upstream's success named this image, so a
 * 4xx there (gone, expired, refused) is an answer that breaks the contract (502), not a request
 * the upstream rejected nor a wrong provider key; a 429 or 5xx there stays a passing fault.
 */
export async function imageFromUrl(http: UpstreamClient, url: string, signal?: AbortSignal): Promise<Buffer> {
  if (url.startsWith('data:')) {
    const comma = url.indexOf(',');
    if (comma === -1 || !url.slice(0, comma).endsWith(';base64')) throw invalidResponse('the image data URI is not base64');
    return decodeImageBase64(url.slice(comma + 1));
  }
  if (!/^https?:\/\//i.test(url)) throw invalidResponse('the image URL is not http(s)');
  try {
    return (await http.bytes({ method: 'GET', url, followRedirects: 3, ...(signal ? { signal } : {}) }, MAX_IMAGE_BYTES)).body;
  } catch (error) {
    if (error instanceof UpstreamStatusError && error.upstreamStatus < 500 && error.upstreamStatus !== 429) {
      throw invalidResponse(`the image URL answered HTTP ${error.upstreamStatus}`);
    }
    throw error;
  }
}
