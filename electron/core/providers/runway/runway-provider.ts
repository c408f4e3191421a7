// Runway behind the gateway: every generation is a task (POST the endpoint, GET /v1/tasks/{id}
// no more often than every 5 s, DELETE to cancel). Images are waited for here, within the
// provider's timeout, and fetched at once from their output URL; videos are followed by the
// scheduler and their MP4 copied into the data dir when they finish (Runway's URLs expire in a
// day or two). Protocol notes in runway-mapping.ts; requests in runway-templates.ts.
import { readFile } from 'node:fs/promises';
import { PROVIDER_KIND_INFO } from '../../../../shared/provider-kinds.js';
import { GatewayError, isGatewayError } from '../../errors.js';
import { sniffImage } from '../../images/image-sniff.js';
import type { Logger } from '../../logger.js';
import { referenceMime } from '../../videos/reference-store.js';
import type { ImageEditJob, ImageJob, ImageOutcome, ImageProvider, ReferenceImage, VideoJob, VideoPoll, VideoProvider } from '../provider.js';
import { randomSeed } from '../templates/placeholders.js';
import { dataUri } from '../upstream/image-payload.js';
import { imageFromUrl } from '../upstream/image-url.js';
import type { UpstreamClient, UpstreamProviderConfig, UpstreamRequest } from '../upstream/upstream-client.js';
import { UpstreamAdapter } from '../upstream/upstream-adapter.js';
import { callDeadline } from '../upstream/call-deadline.js';
import { invalidResponse, RepeatedFailureAnswer, unavailable, UpstreamStatusError } from '../upstream/upstream-errors.js';
import { generationEnded, IMAGE_CANCELLED, imageFailure, runwayError, taskFailure, VIDEO_CANCELLED, VIDEO_GONE, VIDEO_OUTPUT_LOST, type CallKind } from './runway-errors.js';
import { apiRoot, createdIdOf, MAX_DATA_URI_CHARS, percent, POLL_INTERVAL_MS, RUNWAY, RUNWAY_VERSION, taskOf, type Endpoint, type RunwayTask } from './runway-mapping.js';
import { saveVideo } from './runway-outputs.js';
import { requestBody } from './runway-templates.js';

/** Creations carry inline images (up to 5 MB each); polls and cancels are small. */
const CREATE_TIMEOUT_MS = 60_000;
const CALL_TIMEOUT_MS = 30_000;
/** Beyond the creation call: reading a reference from disk, recording the task. */
const SUBMIT_MARGIN_MS = 5_000;

export class RunwayProvider extends UpstreamAdapter<UpstreamProviderConfig> implements ImageProvider, VideoProvider {
  readonly kind = 'runway';
  readonly pollIntervalMs = POLL_INTERVAL_MS;
  // Runway asks for 5 s between reads of a task, counted from its creation (its SDK waits too).
  readonly firstPollAfterMs = POLL_INTERVAL_MS;
  /** One creation call, with room to read a reference from disk. */
  readonly submitTimeoutMs = CREATE_TIMEOUT_MS + SUBMIT_MARGIN_MS;
  private readonly api: string;

  constructor(
    config: UpstreamProviderConfig,
    http: UpstreamClient,
    private readonly logger: Logger,
  ) {
    super(config, http);
    this.api = apiRoot(config.baseUrl);
  }

  generateImage(job: ImageJob): Promise<ImageOutcome> {
    return this.image(job, []);
  }

  editImage(job: ImageEditJob): Promise<ImageOutcome> {
    return this.image(job, job.images);
  }

  /**
   * One image: a text_to_image task, polled until it ends, bounded by the provider's timeout and
   * the client's presence (either ending it cancels the task, which would otherwise run on and be
   * paid for); its output fetched at once.
   */
  private async image(job: ImageJob, images: ReferenceImage[]): Promise<ImageOutcome> {
    const timeoutMs = this.timeoutFor(job, PROVIDER_KIND_INFO.runway.defaultTimeoutMs);
    const deadline = callDeadline(timeoutMs, job.signal);
    let id: string | null = null;
    let running = false;
    try {
      // An edit without a size keeps its first reference's shape (the gateway's rule).
      const first = !job.sizeGiven && images[0] ? sniffImage(images[0].bytes) : null;
      const { width, height } = first ?? job;
      const uris = images.map((image, i) => inline(image.mime, image.bytes, i, 'image'));
      const body = requestBody(job.workflow, { endpoint: 'text_to_image', upstreamModel: job.upstreamModel, prompt: job.prompt, width, height, seed: randomSeed(), images: uris });
      id = await this.create('text_to_image', body, deadline.signal);
      job.onAccepted?.();
      running = true;
      const task = await this.waitForImage(id, job, deadline.signal);
      running = false;
      if (task.status === 'FAILED') throw imageFailure(task.failureCode);
      if (task.status === 'CANCELLED') throw new GatewayError('upstream_unavailable', IMAGE_CANCELLED);
      const bytes = await imageFromUrl(this.http, task.output[0]!, deadline.signal);
      job.onProgress?.(100);
      return { bytes, usage: this.estimateImageUsage(job) };
    } catch (error) {
      // Stopped waiting on a running task (too long, the client left, a poll refused for good): it
      // is cancelled, not left to run and be paid for. Not awaited: a slow cancel must not hold the answer.
      if (id !== null && running) {
        const task = id;
        this.cancel(task).catch((cancelError: unknown) => this.logger.warn({ provider: this.id, task, code: isGatewayError(cancelError) ? cancelError.code : 'error' }, 'Runway image task could not be cancelled'));
      }
      if (!deadline.ended) throw error;
      this.logger.info({ provider: this.id, task: id, why: deadline.ended }, 'Runway image request ended early');
      throw generationEnded(deadline.ended);
    } finally {
      deadline.clear();
    }
  }

  /** Polls the image task every POLL_INTERVAL_MS (longer when Runway asks) until it ends. */
  private async waitForImage(id: string, job: ImageJob, signal: AbortSignal): Promise<Extract<RunwayTask, { status: 'SUCCEEDED' | 'FAILED' | 'CANCELLED' }>> {
    let waitMs = POLL_INTERVAL_MS;
    for (;;) {
      await pause(waitMs, signal);
      waitMs = POLL_INTERVAL_MS;
      let task: RunwayTask;
      try {
        task = await this.task(id, signal);
      } catch (error) {
        // A rate limit, Runway shedding load, a dropped connection: the task is still there; poll again.
        if (signal.aborted || !isPassing(error)) throw statusOf(error) === 404 ? invalidResponse('Runway no longer has the image task it created') : error;
        waitMs = Math.max(POLL_INTERVAL_MS, retryAfterMs(error));
        continue;
      }
      switch (task.status) {
        case 'PENDING':
        case 'THROTTLED':
          continue;
        case 'RUNNING':
          job.onProgress?.(percent(task.progress));
          continue;
        case 'SUCCEEDED':
        case 'FAILED':
        case 'CANCELLED':
          return task;
      }
    }
  }

  async submitVideo(job: VideoJob): Promise<string> {
    const endpoint: Endpoint = job.requestType === 'image-to-video' && job.referencePaths.length > 0 ? 'image_to_video' : 'text_to_video';
    const images: string[] = [];
    for (const [i, path] of job.referencePaths.entries()) images.push(inline(referenceMime(path), await readFile(path), i, 'input_reference'));
    const body = requestBody(job.workflow, { endpoint, upstreamModel: job.upstreamModel, prompt: job.prompt, width: job.width, height: job.height, seed: randomSeed(), images, seconds: job.seconds });
    return this.create(endpoint, body);
  }

  /**
   * The task's state; a finished one has its MP4 copied into the data dir first. Every failed
   * poll asks the scheduler to wait at least the poll interval before the next (its backoff may
   * start lower), and a video that cannot be fetched is retried so, then ends the task.
   */
  async pollVideo(job: VideoJob, upstreamId: string): Promise<VideoPoll> {
    try {
      return await this.videoState(job, upstreamId);
    } catch (error) {
      throw notBefore(error, POLL_INTERVAL_MS);
    }
  }

  private async videoState(job: VideoJob, upstreamId: string): Promise<VideoPoll> {
    let task: RunwayTask;
    try {
      task = await this.task(upstreamId);
    } catch (error) {
      // Deleted at Runway (its dashboard): no task to follow, nor to pay for.
      if (error instanceof GatewayError && error.code === 'upstream_bad_request' && statusOf(error) === 404) return { state: 'failed', message: VIDEO_GONE };
      throw error;
    }
    switch (task.status) {
      case 'PENDING':
      case 'THROTTLED':
        return { state: 'queued', progress: 0 };
      case 'RUNNING':
        return { state: 'in_progress', progress: percent(task.progress) };
      case 'FAILED':
        return { state: 'failed', message: taskFailure(task.failureCode, 'video').message };
      case 'CANCELLED':
        return { state: 'failed', message: VIDEO_CANCELLED };
      case 'SUCCEEDED': {
        let problem: string | null;
        try {
          problem = await saveVideo(this.http, task.output[0]!, job.outputPath);
        } catch (error) {
          // Expired, refused or unreachable: the next poll gets fresh URLs; a run of these ends the task.
          this.logger.warn({ provider: this.id, taskId: job.taskId, code: isGatewayError(error) ? error.code : 'error' }, 'Runway video could not be fetched from its output URL');
          const cause = unavailable('its output URL could not be fetched');
          throw new RepeatedFailureAnswer(new GatewayError(cause.code, cause.message, null, isGatewayError(error) ? error.headers : {}), VIDEO_OUTPUT_LOST);
        }
        if (problem) return { state: 'failed', message: problem };
        return { state: 'completed', output: { kind: 'file', path: job.outputPath } };
      }
    }
  }

  /** DELETE cancels a running task (and deletes an ended one); one Runway no longer has is done. */
  async cancelVideo(_job: VideoJob, upstreamId: string): Promise<void> {
    await this.cancel(upstreamId);
  }

  private async cancel(id: string): Promise<void> {
    try {
      await this.call('cancel', { method: 'DELETE', url: this.taskUrl(id), timeoutMs: CALL_TIMEOUT_MS });
    } catch (error) {
      if (statusOf(error) !== 404) throw error;
    }
  }

  private async create(endpoint: Endpoint, body: Record<string, unknown>, signal?: AbortSignal): Promise<string> {
    const request: UpstreamRequest = { method: 'POST', url: `${this.api}/${endpoint}`, json: body, timeoutMs: CREATE_TIMEOUT_MS, ...(signal ? { signal } : {}) };
    return createdIdOf(await this.call('create', request, body, endpoint));
  }

  private async task(id: string, signal?: AbortSignal): Promise<RunwayTask> {
    return taskOf(await this.call('poll', { method: 'GET', url: this.taskUrl(id), timeoutMs: CALL_TIMEOUT_MS, ...(signal ? { signal } : {}) }));
  }

  private taskUrl(id: string): string {
    return `${this.api}/tasks/${encodeURIComponent(id)}`;
  }

  /** A call to Runway's API (key and version headers); its JSON answer (null for a 204), refusals in Runway's terms. */
  private async call(kind: CallKind, request: UpstreamRequest, sent: Record<string, unknown> = {}, endpoint = ''): Promise<unknown> {
    const key = this.config.apiKey();
    const headers = { ...(key ? { authorization: `Bearer ${key}` } : {}), 'x-runway-version': RUNWAY_VERSION };
    try {
      const { status, body } = await this.http.bytes({ ...request, headers }, 1024 * 1024);
      if (body.length === 0) return null;
      return this.http.parseBody(request, status, body.toString('utf8'), (text) => JSON.parse(text) as unknown);
    } catch (error) {
      throw runwayError(error, kind, sent, endpoint);
    }
  }
}

/** A reference as a data URI, refused here when Runway would refuse it for its length. */
function inline(mime: string, bytes: Buffer, index: number, param: string): string {
  const uri = dataUri(mime, bytes);
  if (uri.length >= MAX_DATA_URI_CHARS) {
    throw new GatewayError('reference_image_too_large', `Reference image ${index + 1} is too large for ${RUNWAY}, which takes images inline up to 5 MB once base64-encoded (about 3.7 MB of file); send a smaller image.`, param);
  }
  return uri;
}

/** Waits `ms`, or rejects as soon as `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new DOMException('The wait was ended.', 'AbortError'));
    const stop = () => {
      clearTimeout(timer);
      reject(new DOMException('The wait was ended.', 'AbortError'));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    signal.addEventListener('abort', stop, { once: true });
  });
}

/** The upstream status of a refusal, when it was one. */
const statusOf = (error: unknown): number | null => (error instanceof UpstreamStatusError ? error.upstreamStatus : (error as { upstreamStatus?: number }).upstreamStatus ?? null);

/** A failed poll that says nothing about the task: a rate limit, Runway unavailable, no answer. */
function isPassing(error: unknown): boolean {
  if (!isGatewayError(error)) return false;
  const status = statusOf(error);
  return error.code === 'upstream_rate_limited' || (error.code === 'upstream_unavailable' && (status === null || status >= 500));
}

function retryAfterMs(error: unknown): number {
  const seconds = isGatewayError(error) ? Number(error.headers['retry-after']) : NaN;
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 0;
}

/**
 * The same error, asking its scheduler to wait at least `ms` before the next poll (as a
 * Retry-After, which the scheduler honours over its own backoff); a longer wait Runway asked for
 * is kept. Poll errors reach no client.
 */
function notBefore(error: unknown, ms: number): unknown {
  if (!isGatewayError(error)) return error;
  const seconds = String(Math.max(ms, retryAfterMs(error)) / 1000);
  const headers = { ...error.headers, 'retry-after': seconds };
  const floored = new GatewayError(error.code, error.message, error.param, headers);
  return error instanceof RepeatedFailureAnswer ? new RepeatedFailureAnswer(floored, error.taskMessage) : floored;
}
