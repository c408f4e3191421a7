// fal-style queue partners: submit POST {base}/{model_path} -> {request_id, status_url,
// response_url, cancel_url}; poll status_url (IN_QUEUE, IN_PROGRESS, COMPLETED); fetch the
// result from response_url; cancel with PUT cancel_url. Always the URLs it returns, never
// ones built here. Videos are partner-backed (the client is redirected to the output URL);
// images are fetched and returned as base64 like every other image.
import { readFile } from 'node:fs/promises';
import { GatewayError } from '../../errors.js';
import type { ImageEditJob, ImageJob, ImageOutcome, ImageProvider, VideoJob, VideoPoll, VideoProvider } from '../provider.js';
import { referenceMime } from '../../videos/reference-store.js';
import { dataUri } from '../upstream/image-payload.js';
import { imageFromUrl } from '../upstream/image-url.js';
import type { UpstreamProviderConfig } from '../upstream/upstream-client.js';
import { UpstreamAdapter } from '../upstream/upstream-adapter.js';
import { invalidResponse, pollRetryDelayMs, RepeatedFailureAnswer, UpstreamStatusError } from '../upstream/upstream-errors.js';

/** An image request waits this long for its queue job before giving up (unless the owner set a timeout). */
const IMAGE_WAIT_MS = 120_000;
const VIDEO_FAILED = 'The upstream provider could not generate this video.';
/** Reads of a finished image job's result before a passing refusal there is given up on. */
const IMAGE_RESULT_READS = 3;

export interface FalProviderConfig extends UpstreamProviderConfig {
  /** Pause between status polls of synchronous (image) jobs. */
  imagePollMs?: number;
}

interface QueueHandle {
  request_id: string;
  status_url: string;
  response_url: string;
  cancel_url: string;
}

interface StatusBody {
  status?: unknown;
  queue_position?: unknown;
  error?: unknown;
  error_type?: unknown;
}

/** Refusals of a poll that say nothing about the job: 429, 5xx, a refused or broken connection. */
function isTransient(error: unknown): error is GatewayError {
  if (error instanceof UpstreamStatusError) return error.upstreamStatus === 429 || error.upstreamStatus >= 500;
  return error instanceof GatewayError && error.code === 'upstream_unavailable';
}

export class FalProvider extends UpstreamAdapter<FalProviderConfig> implements ImageProvider, VideoProvider {
  readonly kind = 'fal';

  async generateImage(job: ImageJob): Promise<ImageOutcome> {
    return this.runImage(job, { prompt: job.prompt, image_size: { width: job.width, height: job.height }, num_images: 1 });
  }

  async editImage(job: ImageEditJob): Promise<ImageOutcome> {
    const urls = job.images.map((image) => dataUri(image.mime, image.bytes));
    const input: Record<string, unknown> = { prompt: job.prompt, image_urls: urls, image_url: urls[0], num_images: 1 };
    if (job.sizeGiven) input.image_size = { width: job.width, height: job.height };
    return this.runImage(job, input);
  }

  async submitVideo(job: VideoJob): Promise<string> {
    // fal's video models take duration as a string enum ("5", "10") and most take aspect_ratio;
    // resolution goes too, for the models that take a named one (fal ignores unknown fields).
    const input: Record<string, unknown> = { prompt: job.prompt, duration: String(job.seconds), resolution: job.size, aspect_ratio: aspectRatioOf(job.size) };
    const reference = job.referencePaths[0];
    if (reference) input.image_url = dataUri(referenceMime(reference), await readFile(reference));
    return JSON.stringify(await this.submit(job.upstreamModel, input));
  }

  async pollVideo(_job: VideoJob, upstreamId: string): Promise<VideoPoll> {
    const handle = parseHandle(upstreamId);
    const status = await this.status(handle);
    if (status.state !== 'completed') return status;
    let result: unknown;
    try {
      result = await this.result(handle);
    } catch (error) {
      // A failed request is COMPLETED and its result URL answers with the error: a model error
      // (4xx), or any answer fal tags with an error_type (a runner that crashed, a request that
      // timed out after fal's own retries). An untagged 5xx may be either: the scheduler fails the
      // task when it keeps coming. Anything else (a refused connection, a 429) is a failed poll.
      const tagged = error instanceof UpstreamStatusError && error.upstreamErrorType !== null;
      if (tagged || (error instanceof GatewayError && error.code === 'upstream_bad_request')) return { state: 'failed', message: VIDEO_FAILED };
      if (error instanceof UpstreamStatusError && error.upstreamStatus >= 500) throw new RepeatedFailureAnswer(error, VIDEO_FAILED);
      throw error;
    }
    const video = (result as { video?: { url?: unknown } }).video;
    if (!video || typeof video.url !== 'string' || !/^https?:\/\//.test(video.url)) throw invalidResponse('the result has no video URL');
    return { state: 'completed', output: { kind: 'url', url: video.url } };
  }

  async cancelVideo(_job: VideoJob, upstreamId: string): Promise<void> {
    await this.cancel(parseHandle(upstreamId));
  }


  private async cancel(handle: QueueHandle): Promise<void> {
    await this.http.json({ method: 'PUT', url: handle.cancel_url, headers: this.auth(handle.cancel_url), timeoutMs: 30_000 });
  }

  private async runImage(job: ImageJob, input: Record<string, unknown>): Promise<ImageOutcome> {
    const handle = await this.submit(job.upstreamModel, input);
    job.onAccepted?.();
    const state = await this.waitForImage(job, handle).catch(async (error: unknown) => {
      // Stopped waiting (too long, the client left, the queue unreachable): the job is cancelled, not left to run.
      await this.cancel(handle).catch(() => undefined);
      throw error;
    });
    if (state === 'failed') throw await this.imageFailure(handle);
    const result = (await this.imageResult(job, handle)) as { images?: { url?: unknown }[]; image?: { url?: unknown } };
    // Most fal image models answer {images: [...]}; some single-image ones {image: {...}}.
    const url = result.images?.[0]?.url ?? result.image?.url;
    if (typeof url !== 'string') throw invalidResponse('the result has no image');
    return { bytes: await imageFromUrl(this.http, url, job.signal), usage: this.estimateImageUsage(job) };
  }

  /**
   * The result of a finished image job. Its read is safe to repeat, and the job is paid for
   * upstream, so a passing refusal (429, an untagged 5xx, a reset) is tried again a few times
   * rather than losing the image; an answer fal tags with an error_type is the job's outcome.
   */
  private async imageResult(job: ImageJob, handle: QueueHandle): Promise<unknown> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.result(handle);
      } catch (error) {
        const tagged = error instanceof UpstreamStatusError && error.upstreamErrorType !== null;
        const pause = pollRetryDelayMs(error, attempt, this.config.imagePollMs ?? 250, 5_000);
        if (!isTransient(error) || tagged || attempt >= IMAGE_RESULT_READS || pause > 10_000 || job.signal?.aborted) throw error;
        await new Promise((r) => setTimeout(r, pause));
      }
    }
  }

  /**
   * Why a failed image job failed, in the error table's terms. fal ends a failed request as
   * COMPLETED and its result URL answers with the error itself: a model error (4xx) is the
   * request's fault (400), a request error (a runner that crashed, fal's own timeout: 5xx, tagged
   * with an error_type) is the provider being unavailable (503), a 429 is a rate limit.
   */
  private async imageFailure(handle: QueueHandle): Promise<GatewayError> {
    const rejected = new GatewayError('upstream_bad_request', 'The upstream provider could not generate this image.');
    try {
      await this.result(handle);
    } catch (error) {
      if (error instanceof GatewayError && (error.code === 'upstream_unavailable' || error.code === 'upstream_rate_limited')) return error;
    }
    return rejected;
  }

  /**
   * Polls an image job until it ends. A refusal of the poll itself (429, 5xx, a reset) is not
   * the job failing: the poll is tried again, after the Retry-After the queue asked for or a
   * growing pause, within the image's wait.
   */
  /** An image is a queue job: its wait, not one call, is what the timeout bounds. */
  override get imageTimeoutMs(): number {
    return this.config.timeoutMs ?? IMAGE_WAIT_MS;
  }

  private async waitForImage(job: ImageJob, handle: QueueHandle): Promise<'completed' | 'failed'> {
    const deadline = Date.now() + (this.timeoutFor(job, IMAGE_WAIT_MS));
    const pollMs = this.config.imagePollMs ?? 250;
    let failures = 0;
    for (;;) {
      if (job.signal?.aborted) throw new GatewayError('upstream_unavailable', 'The image request was cancelled.');
      let status: VideoPoll | null = null;
      let pause = pollMs;
      try {
        status = await this.status(handle);
        failures = 0;
      } catch (error) {
        if (!isTransient(error)) throw error;
        pause = pollRetryDelayMs(error, ++failures, pollMs, 5_000);
      }
      if (status?.state === 'failed' || status?.state === 'completed') return status.state;
      if (Date.now() + pause > deadline) throw new GatewayError('upstream_unavailable', 'The upstream provider did not finish the image in time.');
      await new Promise((r) => setTimeout(r, pause));
    }
  }

  private async submit(modelPath: string, input: Record<string, unknown>): Promise<QueueHandle> {
    const url = `${this.base}/${modelPath.split('/').map(encodeURIComponent).join('/')}`;
    const { body } = await this.http.json<Partial<QueueHandle>>({ method: 'POST', url, headers: this.auth(url), json: input });
    return parseHandle(JSON.stringify(body));
  }

  private async status(handle: QueueHandle): Promise<VideoPoll> {
    const { body } = await this.http.json<StatusBody>({ method: 'GET', url: handle.status_url, headers: this.auth(handle.status_url), timeoutMs: 30_000 });
    switch (body.status) {
      case 'IN_QUEUE':
        return { state: 'queued', progress: 0 };
      case 'IN_PROGRESS':
        return { state: 'in_progress', progress: 50 };
      case 'COMPLETED':
        return body.error || body.error_type ? { state: 'failed', message: VIDEO_FAILED } : { state: 'completed', output: { kind: 'url', url: '' } };
      // Not in fal's documented three, but some queue-style partners end a job so.
      case 'FAILED':
      case 'ERROR':
      case 'CANCELED':
      case 'CANCELLED':
        return { state: 'failed', message: VIDEO_FAILED };
      default:
        throw invalidResponse('the queue status is unknown');
    }
  }

  /** The finished job's output; a model error there means the job failed. */
  private async result(handle: QueueHandle): Promise<unknown> {
    try {
      return (await this.http.json<unknown>({ method: 'GET', url: handle.response_url, headers: this.auth(handle.response_url) })).body;
    } catch (error) {
      if (error instanceof GatewayError && error.code === 'upstream_bad_request') {
        throw new GatewayError('upstream_bad_request', 'The upstream provider could not generate this output.');
      }
      throw error;
    }
  }

  /**
   * The key goes only to the queue it was given for: the URLs a queue answer names are used as
   * given, but one on another host gets no credentials (loopback names count as one host).
   */
  private auth(url: string): Record<string, string> {
    const key = this.config.apiKey();
    return key && sameService(url, this.base) ? { authorization: `Key ${key}` } : {};
  }
}

function parseHandle(text: string): QueueHandle {
  let value: Partial<QueueHandle>;
  try {
    value = JSON.parse(text) as Partial<QueueHandle>;
  } catch {
    throw invalidResponse('the queue handle is not JSON');
  }
  for (const field of ['request_id', 'status_url', 'response_url', 'cancel_url'] as const) {
    if (typeof value[field] !== 'string' || (field !== 'request_id' && !/^https?:\/\//.test(value[field]))) {
      throw invalidResponse(`the queue answer has no ${field}`);
    }
  }
  return value as QueueHandle;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

function sameService(url: string, base: string): boolean {
  const [a, b] = [new URL(url), new URL(base)];
  if (a.origin === b.origin) return true;
  return a.protocol === b.protocol && a.port === b.port && LOOPBACK.has(a.hostname) && LOOPBACK.has(b.hostname);
}

/** The nearest of the aspect ratios fal's video models list, for a named or exact size. */
function aspectRatioOf(size: string): string {
  const exact = /^(\d+)x(\d+)$/.exec(size);
  if (!exact) return '16:9';
  const ratio = Number(exact[1]) / Number(exact[2]);
  const choices: [string, number][] = [['16:9', 16 / 9], ['9:16', 9 / 16], ['1:1', 1], ['4:3', 4 / 3], ['3:4', 3 / 4]];
  return choices.reduce((best, c) => (Math.abs(Math.log(c[1] / ratio)) < Math.abs(Math.log(best[1] / ratio)) ? c : best))[0];
}
