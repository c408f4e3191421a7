// A finished Veo video brought into the data dir. The operation names it by URI, a file of the
// Gemini API ("https://generativelanguage.googleapis.com/v1beta/files/{id}:download?alt=media"),
// which needs the key and redirects to storage (the docs fetch it with `curl -L` and the key
// header; the SDK's downloader asks files/{id}:download?alt=media). The key goes only to the
// API's own origin, and a redirect elsewhere drops it (the shared client). The file is kept for
// days there; the gateway copies it at completion and serves it itself (upstream/video-file.ts:
// streamed to `<output>.part`, checked to be an MP4, renamed into place).
import { GatewayError, isGatewayError } from '../../errors.js';
import type { UpstreamClient } from '../upstream/upstream-client.js';
import { RepeatedFailureAnswer } from '../upstream/upstream-errors.js';
import { notAnMp4Video, saveMp4 } from '../upstream/video-file.js';
import { GEMINI, VIDEO_UNFETCHABLE } from './gemini-errors.js';

const MAX_VIDEO_BYTES = 2 * 1024 * 1024 * 1024;
/** A large video on a slow link may take longer than an API call. */
const DOWNLOAD_TIMEOUT_MS = 600_000;
const MAX_REDIRECTS = 5;

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

/**
 * Puts the video at `outputPath`. Resolves null when it is there, or why the task fails (what
 * came is not an MP4). A video that cannot be fetched throws a passing fault the scheduler
 * retries with backoff, and a run of them fails the task (RepeatedFailureAnswer).
 */
export async function saveVideo(http: UpstreamClient, video: FinishedVideo, outputPath: string, api: string, key: string | null): Promise<string | null> {
  try {
    const body = video.uri === null ? [video.bytes ?? Buffer.alloc(0)] : await open(http, video.uri, api, key);
    const what = await saveMp4(body, outputPath);
    return what === null ? null : notAnMp4Video(GEMINI, what);
  } catch (error) {
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

/** A fetch that failed, as a fault that fails the task only when it keeps coming. */
function unfetchable(error: unknown): RepeatedFailureAnswer {
  const why = isGatewayError(error) && error.code === 'upstream_unavailable' ? error.message : `${VIDEO_UNFETCHABLE.slice(0, -1)}; the gateway tries again.`;
  return new RepeatedFailureAnswer(new GatewayError('upstream_unavailable', why), VIDEO_UNFETCHABLE);
}
