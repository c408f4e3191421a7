// Replicate behind the gateway (protocol notes in replicate-mapping.ts). Images: one prediction
// created in sync mode (Prefer: wait, up to 60 s and never past the provider's timeout, with
// Cancel-After as a backstop), polled when it comes back unfinished, its first output file
// fetched with the key; billed by the gateway's estimate (Replicate reports run time, not
// tokens). Videos: a prediction as a task, polled, cancelled with POST .../cancel; the finished
// MP4 is copied into the data dir at once (Replicate removes outputs after an hour) and the
// gateway serves it itself.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Logger } from '../../logger.js';
import { GatewayError } from '../../errors.js';
import { PROVIDER_KIND_INFO } from '../../../../shared/provider-kinds.js';
import { imageSize } from '../image-size.js';
import type { ImageEditJob, ImageJob, ImageOutcome, ImageProvider, ReferenceImage, VideoJob, VideoPoll, VideoProvider } from '../provider.js';
import { referenceMime } from '../../videos/reference-store.js';
import { randomSeed } from '../templates/placeholders.js';
import type { UpstreamClient, UpstreamProviderConfig } from '../upstream/upstream-client.js';
import { UpstreamAdapter } from '../upstream/upstream-adapter.js';
import { invalidResponse, pollRetryDelayMs, RepeatedFailureAnswer } from '../upstream/upstream-errors.js';
import { apiRoot } from './replicate-admin.js';
import { ImageDeadline } from './replicate-deadline.js';
import { ABORTED, CANCELED, IMAGE_FAILED, isTransient, OUTPUT_REMOVED, replicateError, VIDEO_FAILED, VIDEO_UNFETCHABLE, type CallKind } from './replicate-errors.js';
import { ReplicateFiles, unfetchable, type Reference } from './replicate-files.js';
import { isEnded, outputUrls, predictionBody, predictionOf, predictionRoute, progressOf, REPLICATE, type Prediction, type PredictionRoute } from './replicate-mapping.js';
import { defaultImageInput, defaultVideoInput, fillInput, type TemplateRequest } from './replicate-templates.js';

/** The longest sync wait Replicate takes (Prefer: wait=60). */
const MAX_SYNC_WAIT_S = 60;
/** Room past the sync wait for the answer itself; and the bound of every other API call. */
const CALL_TIMEOUT_MS = 30_000;
/** Pause between polls of an image that sync mode handed back unfinished (the client library polls every 500 ms). */
const IMAGE_POLL_MS = 500;
/** Cancel-After takes at least 5 s. */
const MIN_CANCEL_AFTER_S = 5;

export class ReplicateProvider extends UpstreamAdapter<UpstreamProviderConfig> implements ImageProvider, VideoProvider {
  readonly kind = 'replicate';
  /** Videos take minutes; every 2 s stays far below Replicate's 3000 requests a minute. */
  readonly pollIntervalMs = 2_000;
  /** A creation may first upload its references. */
  readonly submitTimeoutMs = 180_000;
  private readonly api: string;
  private readonly files: ReplicateFiles;

  constructor(
    config: UpstreamProviderConfig,
    http: UpstreamClient,
    private readonly logger: Logger,
  ) {
    super(config, http);
    this.api = apiRoot(config.baseUrl);
    this.files = new ReplicateFiles(http, this.api, () => this.auth());
  }

  generateImage(job: ImageJob): Promise<ImageOutcome> {
    return this.image(job, []);
  }

  editImage(job: ImageEditJob): Promise<ImageOutcome> {
    return this.image(job, job.images);
  }

  private async image(job: ImageJob, images: ReferenceImage[]): Promise<ImageOutcome> {
    const route = predictionRoute(job.upstreamModel);
    const deadline = new ImageDeadline(this.timeoutFor(job, PROVIDER_KIND_INFO.replicate.defaultTimeoutMs), job.signal);
    try {
      const references = images.map((image, i) => ({ mime: image.mime, bytes: image.bytes, filename: image.filename || `image-${i + 1}` }));
      const sent = await deadline.guard(this.files.send(references, deadline.signal));
      try {
        // An edit without a size keeps the first reference's shape (the gateway's rule): a template's sizes and ratios are its.
        const { width, height } = imageSize(job, images);
        const request: TemplateRequest = { prompt: job.prompt, width, height, seed: randomSeed(), images: sent.map((s) => s.url) };
        const input = job.workflow ? fillInput(job.workflow, request) : defaultImageInput(request, job.sizeGiven);
        const prediction = await this.runImage(route, input, deadline, job);
        const url = outputUrls(prediction.output)[0];
        if (url === undefined) throw invalidResponse('the prediction has no output file');
        const bytes = await deadline.guard(this.files.image(url, deadline.signal));
        job.onProgress?.(100);
        return { bytes, usage: this.estimateImageUsage(job) };
      } finally {
        this.files.forget(sent);
      }
    } finally {
      deadline.close();
    }
  }

  /** Creates the prediction in sync mode and waits for its end; one the gateway stops waiting for is cancelled. */
  private async runImage(route: PredictionRoute, input: Record<string, unknown>, deadline: ImageDeadline, job: ImageJob): Promise<Prediction> {
    // To the nearest second: the few milliseconds spent before this call must not cost a whole
    // second of sync wait (2 s left less 3 ms is still "wait=2"); the deadline bounds the call anyway.
    const wait = Math.max(1, Math.min(MAX_SYNC_WAIT_S, Math.round(deadline.remainingMs() / 1000)));
    const cancelAfter = Math.max(MIN_CANCEL_AFTER_S, Math.ceil(deadline.timeoutMs / 1000));
    // Not bound to the deadline: the prediction's id comes with the answer, and is needed to cancel it.
    const creating = this.create(route, input, { wait, cancelAfter });
    let created: { status: number; prediction: Prediction };
    try {
      created = await deadline.guard(creating);
    } catch (error) {
      if (deadline.reason) {
        this.logger.info({ provider: this.id, why: deadline.reason }, 'replicate image call ended during its sync wait; the prediction is cancelled once its answer comes');
        void creating.then(({ prediction }) => (isEnded(prediction.status) ? undefined : this.cancel(prediction.id))).catch(() => undefined);
      }
      throw error;
    }
    let prediction = created.prediction;
    job.onAccepted?.();
    // Sync mode answers (201) as soon as all output files are there, the status maybe still "processing".
    const filesReady = created.status === 201 && outputUrls(prediction.output).length > 0;
    if (!isEnded(prediction.status) && !filesReady) {
      try {
        prediction = await this.waitImage(prediction, deadline, job);
      } catch (error) {
        await this.cancel(prediction.id).catch(() => undefined);
        throw error;
      }
    }
    switch (prediction.status) {
      case 'failed':
        throw new GatewayError('upstream_bad_request', IMAGE_FAILED);
      case 'canceled':
        throw new GatewayError('upstream_unavailable', CANCELED);
      case 'aborted':
        throw new GatewayError('upstream_unavailable', ABORTED);
      default:
        return prediction;
    }
  }

  /**
   * Polls until the prediction ends. A refused poll (429, 5xx, no answer) says nothing about the
   * prediction: it is tried again after the Retry-After asked for or a growing pause.
   */
  private async waitImage(first: Prediction, deadline: ImageDeadline, job: ImageJob): Promise<Prediction> {
    let prediction = first;
    let failures = 0;
    let pause = IMAGE_POLL_MS;
    for (;;) {
      const progress = progressOf(prediction.logs);
      if (progress !== null) job.onProgress?.(progress);
      if (isEnded(prediction.status)) return prediction;
      await deadline.sleep(pause);
      try {
        prediction = await deadline.guard(this.get(prediction.id, deadline.signal));
        failures = 0;
        pause = IMAGE_POLL_MS;
      } catch (error) {
        if (deadline.reason || !isTransient(error)) throw error;
        pause = pollRetryDelayMs(error, ++failures, IMAGE_POLL_MS, 5_000);
      }
    }
  }

  async submitVideo(job: VideoJob): Promise<string> {
    const route = predictionRoute(job.upstreamModel);
    const references: Reference[] = await Promise.all(job.referencePaths.map(async (path) => ({ mime: referenceMime(path), bytes: await readFile(path), filename: basename(path) })));
    const sent = await this.files.send(references);
    const request: TemplateRequest = { prompt: job.prompt, width: job.width, height: job.height, seed: randomSeed(), images: sent.map((s) => s.url), seconds: job.seconds };
    const input = job.workflow ? fillInput(job.workflow, request) : defaultVideoInput(request);
    try {
      return (await this.create(route, input, {})).prediction.id;
    } catch (error) {
      this.files.forget(sent);
      throw error;
    }
  }

  async pollVideo(job: VideoJob, upstreamId: string): Promise<VideoPoll> {
    const prediction = await this.get(upstreamId);
    switch (prediction.status) {
      case 'starting':
        return { state: 'queued', progress: 0 };
      case 'processing':
        return { state: 'in_progress', progress: progressOf(prediction.logs) ?? 0 };
      case 'failed':
        return { state: 'failed', message: VIDEO_FAILED };
      case 'canceled':
        return { state: 'failed', message: CANCELED };
      case 'aborted':
        return { state: 'failed', message: ABORTED };
      case 'succeeded':
        return this.saveVideo(job, prediction);
    }
  }

  /**
   * Copies the finished video into the data dir. One that cannot be fetched now (its host
   * refusing, down, a broken transfer) is a passing fault while it lasts: the scheduler polls
   * again with backoff, and a run of them fails the task with its hold released.
   */
  private async saveVideo(job: VideoJob, prediction: Prediction): Promise<VideoPoll> {
    // Models that answer several files (a video and its poster) name the video by its extension.
    const urls = outputUrls(prediction.output);
    const url = urls.find((u) => /\.mp4(\?|$)/i.test(u)) ?? urls[0];
    if (url === undefined) {
      if (prediction.dataRemoved) return { state: 'failed', message: OUTPUT_REMOVED };
      throw invalidResponse('the finished prediction has no output file');
    }
    let notMp4: string | null;
    try {
      notMp4 = await this.files.video(url, job.outputPath);
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error; // the gateway's own storage: the scheduler rests the task
      this.logger.warn({ provider: this.id, taskId: job.taskId, code: error.code }, 'replicate video output could not be fetched');
      throw new RepeatedFailureAnswer(unfetchable(error), VIDEO_UNFETCHABLE);
    }
    if (notMp4 !== null) return { state: 'failed', message: notMp4 };
    return { state: 'completed', output: { kind: 'file', path: job.outputPath } };
  }

  /** Cancels the prediction; one already ended is left as it is (Replicate answers it unchanged). */
  async cancelVideo(_job: VideoJob, upstreamId: string): Promise<void> {
    await this.cancel(upstreamId);
  }

  private async create(route: PredictionRoute, input: Record<string, unknown>, options: { wait?: number; cancelAfter?: number }): Promise<{ status: number; prediction: Prediction }> {
    const headers: Record<string, string> = { ...this.auth() };
    if (options.wait !== undefined) headers.prefer = `wait=${options.wait}`;
    if (options.cancelAfter !== undefined) headers['cancel-after'] = `${options.cancelAfter}s`;
    const { status, body } = await this.call('create', input, {
      method: 'POST',
      url: `${this.api}${route.path}`,
      headers,
      json: predictionBody(route, input),
      timeoutMs: (options.wait ?? 0) * 1000 + CALL_TIMEOUT_MS,
    });
    return { status, prediction: predictionOf(body) };
  }

  private async get(id: string, signal?: AbortSignal): Promise<Prediction> {
    const { body } = await this.call('poll', {}, { method: 'GET', url: this.predictionUrl(id), headers: this.auth(), timeoutMs: CALL_TIMEOUT_MS, ...(signal ? { signal } : {}) });
    return predictionOf(body);
  }

  private async cancel(id: string): Promise<void> {
    await this.call('poll', {}, { method: 'POST', url: `${this.predictionUrl(id)}/cancel`, headers: this.auth(), timeoutMs: CALL_TIMEOUT_MS });
    this.logger.info({ provider: this.id, prediction: id }, `${REPLICATE} prediction cancelled`);
  }

  private async call(kind: CallKind, input: Record<string, unknown>, request: Parameters<UpstreamClient['json']>[0]): Promise<{ status: number; body: unknown }> {
    try {
      return await this.http.json<unknown>(request);
    } catch (error) {
      throw replicateError(error, kind, input);
    }
  }

  private predictionUrl(id: string): string {
    return `${this.api}/predictions/${encodeURIComponent(id)}`;
  }

  private auth(): Record<string, string> {
    const key = this.config.apiKey();
    return key ? { authorization: `Bearer ${key}` } : {};
  }
}
