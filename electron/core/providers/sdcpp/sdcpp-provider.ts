// The stable-diffusion.cpp server behind the gateway: images through its OpenAI-style routes
// (synchronous, bounded by the provider's timeout), videos through its asynchronous jobs, whose
// MJPEG AVI is re-encoded to H.264 MP4 by the project's own encoder (in its workers), so every
// video download is video/mp4. Protocol notes in sdcpp-mapping.ts.
//
// What the server cannot do, and so neither can this adapter: it has no way to stop an image it
// is rendering (its OpenAI routes run the generation inline, with no interrupt), so a client that
// leaves only ends the HTTP call; and its cancel removes a job from its queue but answers 409 for
// one that is generating ("cannot be interrupted yet"), which then runs to its end unwatched.
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import type { Logger } from '../../logger.js';
import { PROVIDER_KIND_INFO } from '../../../../shared/provider-kinds.js';
import type { ImageEditJob, ImageJob, ImageOutcome, ImageProvider, VideoJob, VideoPoll, VideoProvider } from '../provider.js';
import { referenceMime } from '../../videos/reference-store.js';
import type { UpstreamClient, UpstreamProviderConfig, UpstreamRequest } from '../upstream/upstream-client.js';
import { UpstreamAdapter } from '../upstream/upstream-adapter.js';
import { callDeadline } from '../upstream/call-deadline.js';
import { ENGINE, fromUpstream, generationEnded, SdcppStatusError, VIDEO_CANCELLED, VIDEO_EXPIRED, VIDEO_FAILED } from './sdcpp-errors.js';
import { editForm, generationBody, imageOfAnswer, jobIdOf, jobStateOf, vidGenBody } from './sdcpp-mapping.js';

type VideoEngine = typeof import('../../../engine/video/index.js');
let videoEngine: Promise<VideoEngine> | null = null;
/** The encoder loads only when a video is re-encoded: an images-only gateway never needs it. */
const loadVideoEngine = (): Promise<VideoEngine> => (videoEngine ??= import('../../../engine/video/index.js'));

/** An image answer: one PNG in base64 (a 4096x4096 one fits). */
const IMAGE_ANSWER_BYTES = 96 * 1024 * 1024;
/** A job answer; a finished video job carries its whole file in base64. */
const JOB_ANSWER_BYTES = 512 * 1024 * 1024;
const SMALL_ANSWER_BYTES = 1024 * 1024;
/** Past the provider's timeout, so that the adapter's own timer (which says which ended it) always fires first. */
const DEADLINE_MARGIN_MS = 5_000;
/** Polls, creations and cancels are quick for the server (it queues; one worker generates). */
const CALL_TIMEOUT_MS = 30_000;
/** A finished job's answer holds the video: room to read a large one. */
const RESULT_TIMEOUT_MS = 120_000;

export class SdcppProvider extends UpstreamAdapter<UpstreamProviderConfig> implements ImageProvider, VideoProvider {
  readonly kind = 'sdcpp';
  /** A local engine: its queue is cheap to ask, but a finished job's answer is the whole video. */
  readonly pollIntervalMs = 1_000;

  constructor(
    config: UpstreamProviderConfig,
    http: UpstreamClient,
    private readonly logger: Logger,
  ) {
    super(config, http);
  }

  async generateImage(job: ImageJob): Promise<ImageOutcome> {
    return this.image(job, { method: 'POST', url: `${this.base}/v1/images/generations`, json: generationBody(job) });
  }

  async editImage(job: ImageEditJob): Promise<ImageOutcome> {
    return this.image(job, { method: 'POST', url: `${this.base}/v1/images/edits`, form: await editForm(job) });
  }

  /** One synchronous generation, bounded by the provider's timeout and ended when the client leaves. */
  private async image(job: ImageJob, request: Pick<UpstreamRequest, 'method' | 'url' | 'json' | 'form'>): Promise<ImageOutcome> {
    const timeoutMs = this.timeoutFor(job, PROVIDER_KIND_INFO.sdcpp.defaultTimeoutMs);
    const deadline = callDeadline(timeoutMs, job.signal);
    let body: unknown;
    try {
      ({ body } = await this.call({ ...request, timeoutMs: timeoutMs + DEADLINE_MARGIN_MS, signal: deadline.signal }, IMAGE_ANSWER_BYTES));
    } catch (error) {
      if (!deadline.ended) throw error;
      this.logger.info({ provider: this.id, why: deadline.ended }, 'sd.cpp image call ended early; the server finishes the image unwatched (it has no interrupt)');
      throw generationEnded(deadline.ended);
    } finally {
      deadline.clear();
    }
    const { bytes, b64 } = imageOfAnswer(body);
    job.onProgress?.(100);
    return { bytes, b64, usage: this.estimateImageUsage(job) };
  }

  async submitVideo(job: VideoJob): Promise<string> {
    const path = job.requestType === 'image-to-video' ? job.referencePaths[0] : undefined;
    const reference = path ? { mime: referenceMime(path), bytes: await readFile(path) } : null;
    const { body } = await this.call({ method: 'POST', url: `${this.base}/sdcpp/v1/vid_gen`, json: vidGenBody(job, reference), timeoutMs: CALL_TIMEOUT_MS }, SMALL_ANSWER_BYTES);
    return jobIdOf(body);
  }

  async pollVideo(job: VideoJob, upstreamId: string): Promise<VideoPoll> {
    let body: unknown;
    try {
      ({ body } = await this.call({ method: 'GET', url: this.jobUrl(upstreamId), timeoutMs: RESULT_TIMEOUT_MS }, JOB_ANSWER_BYTES));
    } catch (error) {
      // 404: the server has no record of the job (it restarted): the scheduler submits it again.
      if (error instanceof SdcppStatusError && error.engineStatus === 404 && error.engineError !== null) return { state: 'unknown' };
      // 410: it finished and its result was dropped (the server keeps one for 10 minutes).
      if (error instanceof SdcppStatusError && error.engineStatus === 410) return { state: 'failed', message: VIDEO_EXPIRED };
      throw error;
    }
    const state = jobStateOf(body);
    switch (state.status) {
      case 'queued':
        return { state: 'queued', progress: 0 };
      case 'generating':
        // The server reports no steps: halfway says "running" without claiming more.
        return { state: 'in_progress', progress: 50 };
      case 'failed':
        return { state: 'failed', message: VIDEO_FAILED };
      case 'cancelled':
        return { state: 'failed', message: VIDEO_CANCELLED };
      case 'completed':
        return this.saveVideo(job, state.video);
    }
  }

  /**
   * Writes the engine's video beside the output, then puts an MP4 at the output: one it sent as
   * MP4 as is, anything else re-encoded (in the encoder's workers). A file it cannot decode
   * fails the task in plain words; the encoder itself failing is retried by the scheduler.
   */
  private async saveVideo(job: VideoJob, video: Buffer): Promise<VideoPoll> {
    const source = `${job.outputPath}.sdcpp.part`;
    try {
      await writeFile(source, video);
      if (video.toString('latin1', 4, 8) === 'ftyp') {
        await rename(source, job.outputPath);
        return { state: 'completed', output: { kind: 'file', path: job.outputPath } };
      }
      const { transcodeToMp4, VideoTranscodeError } = await loadVideoEngine();
      try {
        const mp4 = await transcodeToMp4(source, job.outputPath);
        this.logger.info({ provider: this.id, taskId: job.taskId, frames: mp4.frames, width: mp4.width, height: mp4.height }, 'sd.cpp video re-encoded to MP4');
      } catch (error) {
        if (!(error instanceof VideoTranscodeError)) throw error;
        this.logger.warn({ provider: this.id, taskId: job.taskId, reason: error.message }, 'sd.cpp video could not be re-encoded');
        return { state: 'failed', message: `${ENGINE} returned a video the gateway cannot convert to MP4: ${error.message}.` };
      }
      return { state: 'completed', output: { kind: 'file', path: job.outputPath } };
    } finally {
      await rm(source, { force: true });
    }
  }

  /**
   * Cancels the job: a queued one leaves the server's queue. Nothing left to cancel (404, 410)
   * is done; a generating one (409) cannot be stopped by any means the server offers, so asking
   * again would change nothing: it runs to its end and its result expires there.
   */
  async cancelVideo(_job: VideoJob, upstreamId: string): Promise<void> {
    try {
      await this.call({ method: 'POST', url: `${this.jobUrl(upstreamId)}/cancel`, timeoutMs: CALL_TIMEOUT_MS }, JOB_ANSWER_BYTES);
    } catch (error) {
      if (!(error instanceof SdcppStatusError) || ![404, 409, 410].includes(error.engineStatus)) throw error;
      if (error.engineStatus === 409) this.logger.info({ provider: this.id, job: upstreamId }, 'sd.cpp job is generating and cannot be interrupted; it runs to its end');
    }
  }

  private jobUrl(upstreamId: string): string {
    return `${this.base}/sdcpp/v1/jobs/${encodeURIComponent(upstreamId)}`;
  }

  /**
   * A call through the shared upstream client, its JSON answer read up to `maxBytes`; a refusal
   * mapped again from the engine's flat {"error"} body (see sdcpp-errors.ts).
   */
  private async call(request: UpstreamRequest, maxBytes: number): Promise<{ status: number; body: unknown }> {
    try {
      const { status, body } = await this.http.bytes(request, maxBytes);
      return { status, body: this.http.parseBody(request, status, new TextDecoder().decode(body), (text) => JSON.parse(text) as unknown) };
    } catch (error) {
      throw fromUpstream(error);
    }
  }
}
