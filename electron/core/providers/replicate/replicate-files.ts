// Files to and from Replicate. References go as data: URLs when small and through the Files API
// otherwise (the prediction input docs: "use a data URL when you have a small file <= 256kb";
// POST /v1/files, multipart `content`, answers {id, urls: {get}}; the client library's
// lib/files.js). Outputs are URLs on replicate.delivery that need the key ("You'll need to pass
// the Authorization header to request them", predictions.get); the key goes to Replicate's hosts
// only, and a redirect elsewhere drops it (the shared client).
import { GatewayError } from '../../errors.js';
import { dataUri } from '../upstream/image-payload.js';
import { imageFromUrl } from '../upstream/image-url.js';
import type { UpstreamClient } from '../upstream/upstream-client.js';
import { invalidResponse, UpstreamStatusError } from '../upstream/upstream-errors.js';
import { saveMp4 } from '../upstream/video-file.js';
import { replicateError } from './replicate-errors.js';
import { isObject, REPLICATE } from './replicate-mapping.js';

/** A reference this size or smaller goes inline as a data: URL. */
export const INLINE_REFERENCE_BYTES = 256 * 1024;
const MAX_IMAGE_BYTES = 64 * 1024 * 1024;
const MAX_VIDEO_BYTES = 2 * 1024 * 1024 * 1024;
const UPLOAD_TIMEOUT_MS = 120_000;
const IMAGE_FETCH_TIMEOUT_MS = 120_000;
/** A large video on a slow link may take longer than an API call. */
const VIDEO_FETCH_TIMEOUT_MS = 600_000;

export interface Reference {
  mime: string;
  bytes: Buffer;
  filename: string;
}

/** A reference in the model's input, and the uploaded file to delete once the prediction is over (null: inline). */
export interface SentReference {
  url: string;
  fileId: string | null;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Whether `url` may get the key: the API's own origin, replicate.delivery and its subdomains
 * (over https), and a loopback address on the API's port (an emulator answers as several names).
 */
export function keyAllowed(url: string, apiBase: string): boolean {
  let target: URL;
  let base: URL;
  try {
    [target, base] = [new URL(url), new URL(apiBase)];
  } catch {
    return false;
  }
  if (target.origin === base.origin) return true;
  if (target.protocol === 'https:' && (target.hostname === 'replicate.delivery' || target.hostname.endsWith('.replicate.delivery'))) return true;
  return target.protocol === base.protocol && target.port === base.port && LOOPBACK.has(target.hostname) && LOOPBACK.has(base.hostname);
}

export class ReplicateFiles {
  constructor(
    private readonly http: UpstreamClient,
    /** The API root, '<base>/v1'. */
    private readonly api: string,
    private readonly auth: () => Record<string, string>,
  ) {}

  /** The references as the model takes them, uploading the large ones. */
  async send(references: Reference[], signal?: AbortSignal): Promise<SentReference[]> {
    const sent: SentReference[] = [];
    try {
      for (const reference of references) {
        if (reference.bytes.length <= INLINE_REFERENCE_BYTES) sent.push({ url: dataUri(reference.mime, reference.bytes), fileId: null });
        else sent.push(await this.upload(reference, signal));
      }
    } catch (error) {
      this.forget(sent);
      throw error;
    }
    return sent;
  }

  private async upload(reference: Reference, signal?: AbortSignal): Promise<SentReference> {
    const { FormData } = await import('undici');
    const form = new FormData();
    form.append('content', new Blob([reference.bytes], { type: reference.mime }), reference.filename);
    form.append('metadata', new Blob(['{}'], { type: 'application/json' }));
    let body: unknown;
    try {
      ({ body } = await this.http.json<unknown>({ method: 'POST', url: `${this.api}/files`, headers: this.auth(), form, timeoutMs: UPLOAD_TIMEOUT_MS, ...(signal ? { signal } : {}) }));
    } catch (error) {
      throw replicateError(error, 'upload');
    }
    const urls = isObject(body) && isObject(body.urls) ? body.urls : {};
    if (!isObject(body) || typeof body.id !== 'string' || typeof urls.get !== 'string' || !/^https?:\/\//.test(urls.get)) throw invalidResponse('the uploaded file has no URL');
    return { url: urls.get, fileId: body.id };
  }

  /** Deletes uploaded files, best effort (they expire at Replicate anyway). */
  forget(sent: SentReference[]): void {
    for (const { fileId } of sent) {
      if (fileId === null) continue;
      void this.http.json({ method: 'DELETE', url: `${this.api}/files/${encodeURIComponent(fileId)}`, headers: this.auth(), timeoutMs: 30_000 }).catch(() => undefined);
    }
  }

  /** An output image: a data: URL decoded, or its URL fetched (with the key where it belongs). */
  async image(url: string, signal?: AbortSignal): Promise<Buffer> {
    if (url.startsWith('data:')) return imageFromUrl(this.http, url);
    try {
      const request = { method: 'GET' as const, url, headers: this.headersFor(url), followRedirects: 3, timeoutMs: IMAGE_FETCH_TIMEOUT_MS, ...(signal ? { signal } : {}) };
      return (await this.http.bytes(request, MAX_IMAGE_BYTES)).body;
    } catch (error) {
      throw outputError(error);
    }
  }

  /**
   * Saves an output video at `outputPath` (upstream/video-file.ts: streamed, checked to be an
   * MP4). Resolves null when it is in place, or the task's failure message when it is not an MP4.
   */
  async video(url: string, outputPath: string): Promise<string | null> {
    let stream: AsyncIterable<Buffer> | Buffer[];
    if (url.startsWith('data:')) {
      const comma = url.indexOf(',');
      if (comma === -1 || !url.slice(0, comma).endsWith(';base64')) throw invalidResponse('the video data URI is not base64');
      stream = [Buffer.from(url.slice(comma + 1), 'base64')];
    } else {
      try {
        stream = (await this.http.open({ method: 'GET', url, headers: this.headersFor(url), followRedirects: 3, timeoutMs: VIDEO_FETCH_TIMEOUT_MS }, MAX_VIDEO_BYTES)).body;
      } catch (error) {
        throw outputError(error);
      }
    }
    const what = await saveMp4(stream, outputPath);
    return what === null ? null : `${REPLICATE}\u2019s model produced ${what}, not an MP4; the gateway serves MP4 videos only (choose the model\u2019s MP4 output in its template, if it has one).`;
  }

  private headersFor(url: string): Record<string, string> {
    return keyAllowed(url, this.api) ? this.auth() : {};
  }
}

/**
 * A refused output fetch: gone or refused at its URL (404, 410, a 4xx) is an answer that breaks
 * the contract (502), as the success named it; the key refused there (401/403) is the key's
 * problem (503), and a 429 or 5xx a passing fault. Replicate's words stay in the log.
 */
function outputError(error: unknown): unknown {
  if (!(error instanceof UpstreamStatusError)) return error;
  const status = error.upstreamStatus;
  if (status === 401 || status === 403 || status === 429 || status >= 500) return error;
  return invalidResponse(`the output URL answered HTTP ${status}`);
}

/** The error a video whose output cannot be fetched gives while it is retried (the scheduler backs off, then fails the task). */
export function unfetchable(error: unknown): GatewayError {
  const headers = error instanceof GatewayError ? error.headers : {};
  return new GatewayError('upstream_unavailable', `The upstream provider is temporarily unavailable (the finished video could not be fetched).`, null, headers);
}
