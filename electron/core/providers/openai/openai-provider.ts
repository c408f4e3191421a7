// Any OpenAI-compatible server (including another gateway like this one): images through
// /images/generations (JSON) and /images/edits (multipart, several files as image[]), videos
// through the /videos protocol (create multipart, retrieve, download content, delete).
import { createWriteStream } from 'node:fs';
import { readFile, rename, rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import type { TokenUsage } from '../../billing/pricing.js';
import { isCount } from '../../catalog/capability-read.js';
import { GatewayError, isGatewayError } from '../../errors.js';
import type { ImageEditJob, ImageJob, ImageOutcome, ImageProvider, ImageStreamOutcome, VideoJob, VideoPoll, VideoProvider } from '../provider.js';
import { referenceMime } from '../../videos/reference-store.js';
import { decodeImageBase64, parseImagesJson, type ImagesJson } from '../upstream/image-payload.js';
import { imageFromUrl } from '../upstream/image-url.js';
import { readImagesJson } from '../upstream/images-json-stream.js';
import type { UpstreamProviderConfig, UpstreamRequest } from '../upstream/upstream-client.js';
import { UpstreamAdapter } from '../upstream/upstream-adapter.js';
import { invalidResponse } from '../upstream/upstream-errors.js';

interface VideoObject {
  id?: unknown;
  status?: unknown;
  progress?: unknown;
  error?: { message?: unknown } | null;
}

const MAX_VIDEO_BYTES = 2 * 1024 * 1024 * 1024;
/** A large video on a slow link may take longer than the 120 s of an API call. */
const DOWNLOAD_TIMEOUT_MS = 600_000;

export class OpenAIProvider extends UpstreamAdapter<UpstreamProviderConfig> implements ImageProvider, VideoProvider {
  readonly kind = 'openai';

  async generateImage(job: ImageJob): Promise<ImageOutcome> {
    const { body } = await this.http.parsed(this.generationRequest(job), parseImagesJson);
    return this.outcome(body, job);
  }

  async generateImageStream(job: ImageJob): Promise<ImageStreamOutcome> {
    const request = this.generationRequest(job);
    const { status, body } = await this.http.open(request);
    const read = await readImagesJson(body);
    if (read.kind === 'whole') return { kind: 'whole', outcome: await this.outcome(this.http.parseBody(request, status, read.text, parseImagesJson), job) };
    const { stream } = read;
    return {
      kind: 'stream',
      headBytes: stream.headBytes,
      b64: stream.b64,
      cancel: () => stream.cancel(),
      usage: () => {
        const answer = stream.body();
        // The relay emptied b64_json: anywhere else than data[0], the image was not where it belongs.
        if (!Array.isArray(answer.data) || answer.data[0]?.b64_json !== '') throw invalidResponse('no image in the response');
        return this.usageOf(answer, job);
      },
    };
  }

  private generationRequest(job: ImageJob): UpstreamRequest {
    return {
      method: 'POST',
      url: `${this.base}/images/generations`,
      headers: this.auth(),
      json: { model: job.upstreamModel, prompt: job.prompt, size: `${job.width}x${job.height}`, n: 1 },
      ...this.generationLimits(job),
    };
  }

  async editImage(job: ImageEditJob): Promise<ImageOutcome> {
    const { FormData } = await import('undici');
    const form = new FormData();
    form.append('model', job.upstreamModel);
    form.append('prompt', job.prompt);
    if (job.sizeGiven) form.append('size', `${job.width}x${job.height}`);
    // As the OpenAI SDK sends them: one file as `image`, several as `image[]`.
    const field = job.images.length === 1 ? 'image' : 'image[]';
    for (const image of job.images) form.append(field, new Blob([image.bytes], { type: image.mime }), image.filename || 'image.png');
    const { body } = await this.http.parsed(
      { method: 'POST', url: `${this.base}/images/edits`, headers: this.auth(), form, ...this.generationLimits(job) },
      parseImagesJson,
    );
    return this.outcome(body, job);
  }

  async submitVideo(job: VideoJob): Promise<string> {
    const { FormData } = await import('undici');
    const form = new FormData();
    form.append('model', job.upstreamModel);
    form.append('prompt', job.prompt);
    form.append('seconds', String(job.seconds));
    form.append('size', job.size);
    // The part's type is the image's (a strict upstream refuses application/octet-stream).
    for (const path of job.referencePaths) {
      form.append('input_reference', new Blob([await readFile(path)], { type: referenceMime(path) }), path.split('/').pop() ?? 'reference');
    }
    const { body } = await this.http.json<VideoObject>({ method: 'POST', url: `${this.base}/videos`, headers: this.auth(), form });
    if (typeof body.id !== 'string' || body.id.length === 0) throw invalidResponse('the created video has no id');
    return body.id;
  }

  async pollVideo(job: VideoJob, upstreamId: string): Promise<VideoPoll> {
    const { body } = await this.http.json<VideoObject>({ method: 'GET', url: `${this.base}/videos/${encodeURIComponent(upstreamId)}`, headers: this.auth(), timeoutMs: 30_000 });
    const progress = typeof body.progress === 'number' ? body.progress : 0;
    switch (body.status) {
      case 'queued':
        return { state: 'queued', progress };
      case 'in_progress':
        return { state: 'in_progress', progress };
      case 'completed':
        await this.download(upstreamId, job.outputPath);
        return { state: 'completed', output: { kind: 'file', path: job.outputPath } };
      case 'failed':
      case 'timeout': // what another gateway like this one reports for a task its upstream never finished
        return { state: 'failed', message: 'The upstream provider could not generate this video.' };
      default:
        throw invalidResponse('the video has an unknown status');
    }
  }

  /**
   * DELETE cancels a running video on another gateway like this one, but OpenAI deletes only a
   * completed or failed video (its API reference), refusing a running one with a 400. That 400
   * is "not yet", not "nothing to cancel": the pending cancel is tried again (upstream-cancels.ts)
   * until the video has ended and its stored assets are deleted. The upstream job itself runs to
   * its end meanwhile; OpenAI offers no way to stop it.
   */
  async cancelVideo(_job: VideoJob, upstreamId: string): Promise<void> {
    const url = `${this.base}/videos/${encodeURIComponent(upstreamId)}`;
    try {
      await this.http.json({ method: 'DELETE', url, headers: this.auth(), timeoutMs: 30_000 });
    } catch (error) {
      if (!isGatewayError(error) || error.code !== 'upstream_bad_request') throw error;
      const { body } = await this.http.json<VideoObject>({ method: 'GET', url, headers: this.auth(), timeoutMs: 30_000 });
      if (body.status === 'queued' || body.status === 'in_progress') {
        throw new GatewayError('upstream_unavailable', 'The upstream video is still running; it is deleted once it has ended.');
      }
      // It has ended, perhaps just after the refused DELETE: deleted now. Refused again, it has
      // nothing left to delete (a second refusal propagates as final).
      await this.http.json({ method: 'DELETE', url, headers: this.auth(), timeoutMs: 30_000 });
    }
  }

  /** Streams the finished video to `<output>.part` (memory stays flat however large it is), then renames it. */
  private async download(upstreamId: string, outputPath: string): Promise<void> {
    const { contentType, body } = await this.http.open(
      // Another gateway like this one redirects the content of a partner-backed video to its output URL.
      { method: 'GET', url: `${this.base}/videos/${encodeURIComponent(upstreamId)}/content`, headers: this.auth(), followRedirects: 3, timeoutMs: DOWNLOAD_TIMEOUT_MS },
      MAX_VIDEO_BYTES,
    );
    const tmp = `${outputPath}.part`;
    try {
      await pipeline(videoBytes(contentType, body), createWriteStream(tmp));
      await rename(tmp, outputPath);
    } catch (error) {
      await rm(tmp, { force: true });
      throw error;
    }
  }

  /** The image of an answer: its b64_json, or (DALL-E models answer by URL by default) its url fetched. */
  private async outcome(parsed: { body: ImagesJson; b64: string | null }, job: ImageJob | ImageEditJob): Promise<ImageOutcome> {
    const { body } = parsed;
    if (!Array.isArray(body.data) || body.data.length === 0) throw invalidResponse('no image in the response');
    const b64 = parsed.b64 ?? body.data[0]?.b64_json;
    const url = body.data[0]?.url;
    if ((b64 === undefined || b64 === null) && typeof url === 'string') {
      const bytes = await imageFromUrl(this.http, url, job.signal);
      return { bytes, usage: this.usageOf(body, job) };
    }
    return { bytes: decodeImageBase64(b64), b64: b64 as string, usage: this.usageOf(body, job) };
  }

  /**
   * The usage the upstream reported, or the estimate when it reported none. OpenAI counts cached
   * tokens inside input_tokens (input_tokens_details.cached_tokens is a part of it); the gateway's
   * usage keeps them apart (cache_tokens are billed on top of input_tokens), so they are taken out.
   */
  private usageOf(body: ImagesJson, job: ImageJob | ImageEditJob): TokenUsage {
    const usage = body.usage;
    const reported = usage && typeof usage.input_tokens === 'number' && typeof usage.output_tokens === 'number';
    if (!reported) return this.estimateImageUsage(job);
    const input = usage.input_tokens!;
    const reportedCache = usage.input_tokens_details?.cached_tokens ?? undefined;
    // Counts that are not whole and non-negative would bill a fraction (a 500) or a credit.
    if (!isCount(input) || !isCount(usage.output_tokens) || (reportedCache !== undefined && !isCount(reportedCache))) {
      throw invalidResponse('the usage is not whole token counts');
    }
    const cached = reportedCache === undefined ? null : Math.min(reportedCache, input);
    return cached === null
      ? { input_tokens: input, output_tokens: usage.output_tokens! }
      : { input_tokens: input - cached, output_tokens: usage.output_tokens!, cache_tokens: cached };
  }

  private auth(): Record<string, string> {
    const key = this.config.apiKey();
    return key ? { authorization: `Bearer ${key}` } : {};
  }
}

/**
 * Passes a finished video's download on, refusing what is plainly not one: nothing at all, or an
 * error document answered with a 2xx (an HTML, JSON or text page). Anything else is the
 * upstream's video, kept as sent: the owner has paid the upstream for it, and refusing bytes
 * that are not an MP4 would fail a finished generation over its container.
 */
async function* videoBytes(contentType: string | null, body: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  if (contentType && isDocumentType(contentType)) throw invalidResponse(`the video content is a ${contentType} document, not a video`);
  let first = true;
  for await (const chunk of body) {
    if (chunk.length === 0) continue;
    // No type, or a generic one: a body that opens like JSON or markup is an error page.
    if (first && (!contentType || contentType === 'application/octet-stream') && /^\s*[{<]/.test(chunk.toString('latin1', 0, 64))) {
      throw invalidResponse('the video content is a document, not a video');
    }
    first = false;
    yield chunk;
  }
  if (first) throw invalidResponse('the video content is empty');
}

const isDocumentType = (type: string): boolean =>
  type.startsWith('text/') || type === 'application/json' || type.endsWith('+json') || type === 'application/xml' || type.endsWith('+xml');
