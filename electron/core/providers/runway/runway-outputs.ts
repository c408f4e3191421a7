// Runway's outputs brought into the gateway: its output URLs are signed links on its storage
// host that expire within 24-48 hours ("download the assets and store them in your own storage",
// the tasks reference), so a finished video is copied into the data dir at once and an image
// fetched at once. They are fetched without the key (another host), following a CDN's redirects.
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { checkContainer } from '../comfyui/comfyui-video.js';
import type { UpstreamClient } from '../upstream/upstream-client.js';
import { invalidResponse } from '../upstream/upstream-errors.js';
import { RUNWAY } from './runway-mapping.js';

const MAX_VIDEO_BYTES = 2 * 1024 * 1024 * 1024;
/** A large video on a slow link may take longer than an API call. */
const DOWNLOAD_TIMEOUT_MS = 600_000;
/** How many leading bytes the container check reads. */
const HEAD_BYTES = 64;

class NotMp4 extends Error {}

/**
 * Streams the video at `url` to `outputPath` through `<outputPath>.part` (memory stays flat), its
 * container checked from its first bytes. Resolves null when the MP4 is in place, or the reason
 * it is not one (nothing is left behind then); a failed fetch throws (its GatewayError).
 */
export async function saveVideo(http: UpstreamClient, url: string, outputPath: string): Promise<string | null> {
  const stream = await http.open({ method: 'GET', url, followRedirects: 3, timeoutMs: DOWNLOAD_TIMEOUT_MS }, MAX_VIDEO_BYTES);
  const tmp = `${outputPath}.part`;
  try {
    await pipeline(checked(stream.body), createWriteStream(tmp));
    await rename(tmp, outputPath);
    return null;
  } catch (error) {
    await rm(tmp, { force: true });
    if (error instanceof NotMp4) return `${RUNWAY} returned ${error.message}, not an MP4 video.`;
    throw error;
  }
}

/** Passes the bytes on once their head shows an MP4; anything else stops the copy. */
async function* checked(body: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let head = Buffer.alloc(0);
  let passed = false;
  for await (const chunk of body) {
    if (passed) {
      yield chunk;
      continue;
    }
    head = Buffer.concat([head, chunk]);
    if (head.length < HEAD_BYTES) continue;
    verify(head);
    passed = true;
    yield head;
  }
  if (!passed) {
    if (head.length === 0) throw invalidResponse('the video at the output URL is empty');
    verify(head);
    yield head;
  }
}

function verify(head: Buffer): void {
  const container = checkContainer(head);
  if (!container.mp4) throw new NotMp4(container.what);
}
