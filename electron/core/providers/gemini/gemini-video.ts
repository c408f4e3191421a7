// A finished Veo video brought into the data dir. The operation names it by URI, a file of the
// Gemini API ("https://generativelanguage.googleapis.com/v1beta/files/{id}:download?alt=media"),
// which needs the key and redirects to storage (the docs fetch it with `curl -L` and the key
// header). As the official SDK does (js-genai: NodeDownloader with tFileName), only the file's id
// is taken from the URI and the file asked of the configured API, {api}/files/{id}:download?alt=media,
// with the key: the URI names Google's host even when the base URL is a proxy or a regional
// address, and the key belongs with the API it was given for. A URI that names no file is fetched
// as given, the key only to the API's own origin. A redirect elsewhere drops the key (the shared
// client). The file is kept for days there; the gateway copies it at completion and serves it
// itself (upstream/video-file.ts: streamed to `<output>.part`, checked to be an MP4, renamed into place).
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
 * A file's id as the API defines it: up to 40 characters, lowercase letters, digits and dashes,
 * neither first nor last a dash. Stricter than the SDK's first run of [a-z0-9] after "files/",
 * so that a storage URL that happens to hold "/files/" (".../files/x.mp4") is not taken for one.
 */
const FILE_ID = '[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?';
/** An absolute URI's path that names a file: ".../files/{id}" or ".../files/{id}:download". */
const FILE_PATH = new RegExp(`/files/(${FILE_ID})(?::download)?$`);
/** A file's resource name, "files/{id}", as the SDK also takes. */
const FILE_NAME = new RegExp(`^files/(${FILE_ID})$`);

/** Where the video is fetched, and whether the key goes with the request; null: not a URI the gateway fetches. */
export function videoSource(uri: string, api: string): { url: string; withKey: boolean } | null {
  const named = FILE_NAME.exec(uri);
  if (named) return { url: fileDownloadUrl(named[1]!, api), withKey: true };
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  const file = FILE_PATH.exec(url.pathname);
  if (file) return { url: fileDownloadUrl(file[1]!, api), withKey: true };
  return { url: url.href, withKey: keyAllowed(url.href, api) };
}

/** The SDK's download call: GET {baseUrl}/{apiVersion}/files/{id}:download?alt=media (`api` is the first two). */
function fileDownloadUrl(id: string, api: string): string {
  return `${api}/files/${id}:download?alt=media`;
}

/**
 * Puts the video at `outputPath`. Resolves null when it is there, or why the task fails (what
 * came is not an MP4). A video that cannot be fetched throws a passing fault the scheduler
 * retries with backoff, and a run of them fails the task (RepeatedFailureAnswer). A failure to
 * write it (the data dir full, read-only) is the gateway's own and is thrown as it is: the
 * scheduler polls again later, and the upstream is not blamed nor the task failed for it.
 */
export async function saveVideo(http: UpstreamClient, video: FinishedVideo, outputPath: string, api: string, key: string | null): Promise<string | null> {
  try {
    const body = video.uri === null ? [video.bytes ?? Buffer.alloc(0)] : await open(http, video.uri, api, key);
    const what = await saveMp4(body, outputPath);
    return what === null ? null : notAnMp4Video(GEMINI, what);
  } catch (error) {
    if (error instanceof RepeatedFailureAnswer) throw error;
    // What the upstream did (refused, broke the transfer, timed out) comes as a GatewayError from
    // the shared client; anything else is the write into the data dir (fs errors: ENOSPC, EROFS...).
    if (!isGatewayError(error)) throw error;
    throw unfetchable(error);
  }
}

async function open(http: UpstreamClient, uri: string, api: string, key: string | null): Promise<AsyncIterable<Buffer>> {
  const source = videoSource(uri, api);
  if (source === null) throw unfetchable(null);
  const headers: Record<string, string> = key && source.withKey ? { 'x-goog-api-key': key } : {};
  const { body } = await http.open({ method: 'GET', url: source.url, headers, followRedirects: MAX_REDIRECTS, timeoutMs: DOWNLOAD_TIMEOUT_MS }, MAX_VIDEO_BYTES);
  return body;
}

/** A fetch that failed, as a fault that fails the task only when it keeps coming. */
function unfetchable(error: unknown): RepeatedFailureAnswer {
  const why = isGatewayError(error) && error.code === 'upstream_unavailable' ? error.message : `${VIDEO_UNFETCHABLE.slice(0, -1)}; the gateway tries again.`;
  return new RepeatedFailureAnswer(new GatewayError('upstream_unavailable', why), VIDEO_UNFETCHABLE);
}
