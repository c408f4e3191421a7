// fal-style queue partners: submit POST {base}/{model_path} -> {request_id, status_url,
// response_url, cancel_url}; poll status_url (IN_QUEUE, IN_PROGRESS, COMPLETED); fetch the
// result from response_url; cancel with PUT cancel_url. Always the URLs it returns, never
// ones built here. Videos are partner-backed (the client is redirected to the output URL);
// images are fetched and returned as base64 like every other image.
import { readFile } from 'node:fs/promises';
import { GatewayError } from '../../errors.js';
import type { ImageEditJob, ImageJob, ImageOutcome, ImageProvider, VideoJob, VideoPoll, VideoProvider } from '../provider.js';
import { dataUri } from '../upstream/image-payload.js';
import { imageFromUrl } from '../upstream/image-url.js';
import type { UpstreamProviderConfig } from '../upstream/upstream-client.js';
import { UpstreamAdapter } from '../upstream/upstream-adapter.js';
import { invalidResponse } from '../upstream/upstream-errors.js';

export const FAL_DEFAULT_BASE_URL = 'https://queue.fal.run';
/** An image request waits this long for its queue job before giving up. */
const IMAGE_WAIT_MS = 120_000;

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
    const input: Record<string, unknown> = { prompt: job.prompt, duration: job.seconds, resolution: job.size };
    const reference = job.referencePaths[0];
    if (reference) input.image_url = dataUri(mimeOf(reference), await readFile(reference));
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
      // A model error at the result URL is the job failing, not a failed poll.
      if (error instanceof GatewayError && error.code === 'upstream_bad_request') return { state: 'failed', message: error.message };
      throw error;
    }
    const video = (result as { video?: { url?: unknown } }).video;
    if (!video || typeof video.url !== 'string' || !/^https?:\/\//.test(video.url)) throw invalidResponse('the result has no video URL');
    return { state: 'completed', output: { kind: 'url', url: video.url } };
  }

  async cancelVideo(_job: VideoJob, upstreamId: string): Promise<void> {
    const handle = parseHandle(upstreamId);
    await this.http.json({ method: 'PUT', url: handle.cancel_url, headers: this.auth(), timeoutMs: 30_000 });
  }

  private async runImage(job: ImageJob, input: Record<string, unknown>): Promise<ImageOutcome> {
    const handle = await this.submit(job.upstreamModel, input);
    const deadline = Date.now() + IMAGE_WAIT_MS;
    for (;;) {
      const status = await this.status(handle);
      if (status.state === 'failed') throw new GatewayError('upstream_bad_request', 'The upstream provider could not generate this image.');
      if (status.state === 'completed') break;
      // Stopped waiting (too long, or the client left): the queued job is cancelled, not left to run.
      if (Date.now() > deadline || job.signal?.aborted) {
        await this.http.json({ method: 'PUT', url: handle.cancel_url, headers: this.auth() }).catch(() => undefined);
        throw new GatewayError('upstream_unavailable', job.signal?.aborted ? 'The image request was cancelled.' : 'The upstream provider did not finish the image in time.');
      }
      await new Promise((r) => setTimeout(r, this.config.imagePollMs ?? 250));
    }
    const result = (await this.result(handle)) as { images?: { url?: unknown }[]; image?: { url?: unknown } };
    // Most fal image models answer {images: [...]}; some single-image ones {image: {...}}.
    const url = result.images?.[0]?.url ?? result.image?.url;
    if (typeof url !== 'string') throw invalidResponse('the result has no image');
    return { bytes: await imageFromUrl(this.http, url, job.signal), usage: this.estimateImageUsage(job) };
  }

  private async submit(modelPath: string, input: Record<string, unknown>): Promise<QueueHandle> {
    const path = modelPath.split('/').map(encodeURIComponent).join('/');
    const { body } = await this.http.json<Partial<QueueHandle>>({ method: 'POST', url: `${this.base}/${path}`, headers: this.auth(), json: input });
    return parseHandle(JSON.stringify(body));
  }

  private async status(handle: QueueHandle): Promise<VideoPoll> {
    const { body } = await this.http.json<StatusBody>({ method: 'GET', url: handle.status_url, headers: this.auth(), timeoutMs: 30_000 });
    switch (body.status) {
      case 'IN_QUEUE':
        return { state: 'queued', progress: 0 };
      case 'IN_PROGRESS':
        return { state: 'in_progress', progress: 50 };
      case 'COMPLETED':
        return body.error ? { state: 'failed', message: 'The upstream provider could not generate this video.' } : { state: 'completed', output: { kind: 'url', url: '' } };
      // Not in fal's documented three, but some queue-style partners end a job so.
      case 'FAILED':
      case 'ERROR':
      case 'CANCELED':
      case 'CANCELLED':
        return { state: 'failed', message: 'The upstream provider could not generate this video.' };
      default:
        throw invalidResponse('the queue status is unknown');
    }
  }

  /** The finished job's output; a model error there means the job failed. */
  private async result(handle: QueueHandle): Promise<unknown> {
    try {
      return (await this.http.json<unknown>({ method: 'GET', url: handle.response_url, headers: this.auth() })).body;
    } catch (error) {
      if (error instanceof GatewayError && error.code === 'upstream_bad_request') {
        throw new GatewayError('upstream_bad_request', 'The upstream provider could not generate this output.');
      }
      throw error;
    }
  }

  private auth(): Record<string, string> {
    const key = this.config.apiKey();
    return key ? { authorization: `Key ${key}` } : {};
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

function mimeOf(path: string): string {
  if (path.endsWith('.png')) return 'image/png';
  if (path.endsWith('.webp')) return 'image/webp';
  return 'image/jpeg';
}
