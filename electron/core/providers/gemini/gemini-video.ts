// A finished Veo video brought into the data dir. The operation names it by URI, a file of the
// Gemini API ("https://generativelanguage.googleapis.com/v1beta/files/{id}:download?alt=media"),
// which needs the key and redirects to storage (the docs fetch it with `curl -L` and the key
// header; the SDK's downloader asks files/{id}:download?alt=media). The key goes only to the
// API's own origin, and a redirect elsewhere drops it (the shared client). The file is kept for
// days there; the gateway copies it at completion and serves it itself. The bytes are streamed
// to `<output>.part`, their head checked to be an MP4, then renamed into place.
import { createWriteStream } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { GatewayError, isGatewayError } from '../../errors.js';
import { checkContainer } from '../comfyui/comfyui-video.js';
import type { UpstreamClient } from '../upstream/upstream-client.js';
import { RepeatedFailureAnswer } from '../upstream/upstream-errors.js';
import { GEMINI, VIDEO_UNFETCHABLE } from './gemini-errors.js';

const MAX_VIDEO_BYTES = 2 * 1024 * 1024 * 1024;
/** A large video on a slow link may take longer than an API call. */
const DOWNLOAD_TIMEOUT_MS = 600_000;
const MAX_REDIRECTS = 5;
/** How many leading bytes the container check reads. */
const HEAD_BYTES = 64;

/** Where the video is: the URI to fetch, or (rarely) its bytes inline in the operation. */
export interface FinishedVideo {
  uri: string | null;
  bytes: Buffer | null;
}

/** Whether `url` may get the key: only the API's own origin. */
export function keyAllowed(url: string, api: string): boolean {
  try {
    return new URL(url).origin === new URL(api).origin;
  } catch {
    return false;
  }
}

class NotMp4 extends Error {}

/**
 * Puts the video at `outputPath`. Resolves null when it is there, or why the task fails (what
 * came is not an MP4). A video that cannot be fetched throws a passing fault the scheduler
 * retries with backoff, and a run of them fails the task (RepeatedFailureAnswer).
 */
export async function saveVideo(http: UpstreamClient, video: FinishedVideo, outputPath: string, api: string, key: string | null): Promise<string | null> {
  const tmp = `${outputPath}.part`;
  try {
    if (video.uri === null) {
      const what = notMp4(video.bytes ?? Buffer.alloc(0));
      if (what) return what;
      await writeFile(tmp, video.bytes!);
    } else {
      await pipeline(checked(await open(http, video.uri, api, key)), createWriteStream(tmp));
    }
    await rename(tmp, outputPath);
    return null;
  } catch (error) {
    await rm(tmp, { force: true });
    if (error instanceof NotMp4) return error.message;
    if (error instanceof RepeatedFailureAnswer) throw error;
    throw unfetchable(error);
  }
}

async function open(http: UpstreamClient, uri: string, api: string, key: string | null): Promise<AsyncIterable<Buffer>> {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw unfetchable(null);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw unfetchable(null);
  const headers: Record<string, string> = key && keyAllowed(url.href, api) ? { 'x-goog-api-key': key } : {};
  const { body } = await http.open({ method: 'GET', url: url.href, headers, followRedirects: MAX_REDIRECTS, timeoutMs: DOWNLOAD_TIMEOUT_MS }, MAX_VIDEO_BYTES);
  return body;
}

/** Passes the bytes on once their head shows an MP4; anything else stops the copy. */
async function* checked(body: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let head: Buffer = Buffer.alloc(0);
  let passed = false;
  for await (const chunk of body) {
    if (passed) {
      yield chunk;
      continue;
    }
    head = Buffer.concat([head, chunk]);
    if (head.length < HEAD_BYTES) continue;
    const what = notMp4(head);
    if (what) throw new NotMp4(what);
    passed = true;
    yield head;
  }
  if (!passed) {
    const what = notMp4(head);
    if (what) throw new NotMp4(what);
    yield head;
  }
}

function notMp4(head: Buffer): string | null {
  const check = checkContainer(head);
  return check.mp4 ? null : `${GEMINI} returned ${check.what}, not an MP4 video.`;
}

/** A fetch that failed, as a fault that fails the task only when it keeps coming. */
function unfetchable(error: unknown): RepeatedFailureAnswer {
  const why = isGatewayError(error) && error.code === 'upstream_unavailable' ? error.message : `${VIDEO_UNFETCHABLE.slice(0, -1)}; the gateway tries again.`;
  return new RepeatedFailureAnswer(new GatewayError('upstream_unavailable', why), VIDEO_UNFETCHABLE);
}
