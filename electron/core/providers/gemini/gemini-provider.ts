// Google's Gemini API behind the gateway (protocol notes in gemini-mapping.ts, templates in
// gemini-templates.ts). Every call carries the key as x-goog-api-key (the SDK's node auth).
// Images: one generateContent call, bounded by the provider's timeout; the image is the answer's
// first inlineData part, billed by the answer's usageMetadata (else the gateway's estimate); an
// answer without an image is refused in gateway words and charged nothing. Videos: Veo through
// predictLongRunning, the operation polled until done, its video copied into the data dir at
// once (the API keeps it for days, behind the key) and served by the gateway itself.
//
// What the API cannot do, and so neither can this adapter: it has no way to cancel a Veo
// operation. A cancelled task stops being polled and its hold is released; the operation runs to
// its end at Google, which may bill the owner for it.
import { readFile } from 'node:fs/promises';
import type { Logger } from '../../logger.js';
import { imageSize } from '../image-size.js';
import type { ImageEditJob, ImageJob, ImageOutcome, ImageProvider, ReferenceImage, VideoJob, VideoPoll, VideoProvider } from '../provider.js';
import { referenceMime } from '../../videos/reference-store.js';
import { randomSeed, type Workflow } from '../templates/placeholders.js';
import type { UpstreamClient, UpstreamProviderConfig, UpstreamRequest } from '../upstream/upstream-client.js';
import { UpstreamAdapter } from '../upstream/upstream-adapter.js';
import { UpstreamStatusError } from '../upstream/upstream-errors.js';
import { geminiError, OPERATION_GONE, VIDEO_EMPTY, VIDEO_FAILED, VIDEO_FILTERED, type CallKind } from './gemini-errors.js';
import { apiRoot, imageOfAnswer, modelName, operationNameOf, operationStateOf, usageOf } from './gemini-mapping.js';
import { defaultImageBody, defaultVideoBody, fillBody, type TemplateRequest } from './gemini-templates.js';
import { saveVideo } from './gemini-video.js';

/** Creating an operation carries the references inline: room for a few megabytes. */
const SUBMIT_TIMEOUT_MS = 60_000;
const POLL_TIMEOUT_MS = 30_000;

export class GeminiProvider extends UpstreamAdapter<UpstreamProviderConfig> implements ImageProvider, VideoProvider {
  readonly kind = 'gemini';
  /** Veo takes from seconds to minutes; Google's own examples poll every 10 s. */
  readonly pollIntervalMs = 10_000;
  readonly submitTimeoutMs = SUBMIT_TIMEOUT_MS + 30_000;
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

  private async image(job: ImageJob, images: ReferenceImage[]): Promise<ImageOutcome> {
    // An edit without a size keeps the first reference's shape: {{aspect_ratio}} and the sizes are its.
    const { width, height } = imageSize(job, images);
    const request: TemplateRequest = {
      prompt: job.prompt,
      width,
      height,
      seed: randomSeed(),
      images: images.map((image) => ({ mime: image.mime, bytes: image.bytes })),
    };
    const body = job.workflow ? fillBody(job.workflow, request) : defaultImageBody(request, job.sizeGiven);
    const answer = await this.call(
      { method: 'POST', url: `${this.api}/${modelName(job.upstreamModel)}:generateContent`, json: body, ...this.generationLimits(job) },
      'image',
      body,
    );
    const image = imageOfAnswer(answer);
    job.onProgress?.(100);
    return { bytes: image.bytes, b64: image.b64, usage: usageOf(answer) ?? this.estimateImageUsage(job) };
  }

  async submitVideo(job: VideoJob): Promise<string> {
    const images = await Promise.all(job.referencePaths.map(async (path) => ({ mime: referenceMime(path), bytes: await readFile(path) })));
    const request: TemplateRequest = { prompt: job.prompt, width: job.width, height: job.height, seed: randomSeed(), images, seconds: job.seconds };
    const body: Workflow = job.workflow ? fillBody(job.workflow, request) : defaultVideoBody(request);
    const answer = await this.call(
      { method: 'POST', url: `${this.api}/${modelName(job.upstreamModel)}:predictLongRunning`, json: body, timeoutMs: SUBMIT_TIMEOUT_MS },
      'video',
      body,
    );
    return operationNameOf(answer);
  }

  async pollVideo(job: VideoJob, operation: string): Promise<VideoPoll> {
    let answer: unknown;
    try {
      answer = await this.call({ method: 'GET', url: `${this.api}/${operation}`, timeoutMs: POLL_TIMEOUT_MS }, 'poll');
    } catch (error) {
      // The operation is gone (expired, or never this key's): there is nothing left to wait for.
      if (error instanceof UpstreamStatusError && error.upstreamStatus === 404) return { state: 'failed', message: OPERATION_GONE };
      throw error;
    }
    const state = operationStateOf(answer);
    if (!state.done) return { state: 'in_progress', progress: 50 };
    switch (state.outcome) {
      case 'error':
        this.logger.warn({ provider: this.id, taskId: job.taskId }, 'Veo operation ended with an error');
        return { state: 'failed', message: VIDEO_FAILED };
      case 'filtered':
        return { state: 'failed', message: VIDEO_FILTERED };
      case 'empty':
        return { state: 'failed', message: VIDEO_EMPTY };
      case 'video': {
        const refused = await saveVideo(this.http, state, job.outputPath, this.api, this.config.apiKey());
        if (refused) return { state: 'failed', message: refused };
        return { state: 'completed', output: { kind: 'file', path: job.outputPath } };
      }
    }
  }

  /** The Gemini API has no cancel for an operation: the task stops being polled, and that is all. */
  async cancelVideo(job: VideoJob, operation: string): Promise<void> {
    this.logger.info({ provider: this.id, taskId: job.taskId, operation }, 'the Gemini API cannot cancel a Veo operation; it runs to its end unwatched');
  }

  /**
   * A JSON call with the key; a refusal mapped again from Google's error body (gemini-errors.ts),
   * kept as an UpstreamStatusError for a poll's 404 (which the poll reads itself).
   */
  private async call(request: UpstreamRequest, kind: CallKind, sent?: Workflow): Promise<unknown> {
    try {
      return (await this.http.json<unknown>({ ...request, headers: this.auth() })).body;
    } catch (error) {
      if (kind === 'poll' && error instanceof UpstreamStatusError && error.upstreamStatus === 404) throw error;
      throw geminiError(error, kind, sent);
    }
  }

  private auth(): Record<string, string> {
    const key = this.config.apiKey();
    return key ? { 'x-goog-api-key': key } : {};
  }
}
