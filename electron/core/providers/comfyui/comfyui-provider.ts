// ComfyUI as an image and video provider: any workflow in API format is a model. A request
// uploads its references, fills the workflow's placeholders, queues it under a prompt id of the
// gateway's and follows it on the event stream (progress) and /history (the outcome); the file
// the workflow saved is read from /view. Video tasks live at the engine under their prompt id,
// so a gateway restart resumes them by that id alone, and hears their progress again under the
// client id derived from the task (comfyui-follow.ts).
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { invalid } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { sniffImage } from '../../images/image-sniff.js';
import { referenceMime } from '../../videos/reference-store.js';
import type { ImageEditJob, ImageJob, ImageOutcome, ImageProvider, VideoJob, VideoPoll, VideoProvider } from '../provider.js';
import type { Workflow } from '../templates/placeholders.js';
import type { UpstreamProviderConfig } from '../upstream/upstream-client.js';
import { UpstreamAdapter } from '../upstream/upstream-adapter.js';
import { invalidResponse } from '../upstream/upstream-errors.js';
import { saveMp4 } from '../upstream/video-file.js';
import type { UpstreamClient } from '../upstream/upstream-client.js';
import { ComfyEngine } from './comfyui-engine.js';
import { LOST, runFailed } from './comfyui-errors.js';
import { checkReferenceCount, fillWorkflow, imageOutput, outcomeOf, videoOutput, type FillRequest } from './comfyui-mapping.js';
import { VideoFollow } from './comfyui-follow.js';
import { PromptProgress } from './comfyui-progress.js';
import { ComfySocket, type SocketBackoff } from './comfyui-socket.js';
import { notMp4Message } from './comfyui-video.js';
import { waitForEnd, type WaitPolls } from './comfyui-wait.js';
import { editWorkflow, textToImageWorkflow, withCheckpoint } from './comfyui-workflow.js';

const MAX_IMAGE_BYTES = 96 * 1024 * 1024;
const MAX_VIDEO_BYTES = 2 * 1024 * 1024 * 1024;
const DOWNLOAD_TIMEOUT_MS = 600_000;
/** How long a request waits for the event stream to open before queueing without it (history is polled then). */
const SOCKET_WAIT_MS = 2_000;
const FALLBACK_TIMEOUT_MS = 600_000;
const EXTENSION = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' } as const;

/** How a generation on an edit workflow gets its references: as an edit. */
const GENERATION_HINT = (missing: number): string => `a generation carries no image; send ${missing === 1 ? 'it' : 'them'} as "image" to /v1/images/edits`;

export interface ComfyProviderOptions {
  polls?: WaitPolls;
  socketBackoff?: SocketBackoff;
}

export class ComfyUIProvider extends UpstreamAdapter<UpstreamProviderConfig> implements ImageProvider, VideoProvider {
  readonly kind = 'comfyui';
  private readonly engine: ComfyEngine;
  /** The image requests' stream, under a client id of this adapter's: an image does not outlive its process. */
  private readonly socket: ComfySocket;
  /** Video prompts followed by this process, by prompt id. */
  private readonly videos = new Map<string, VideoFollow>();
  /** Tasks whose prompt the engine lost once in this process: the second time, the task fails. */
  private readonly lostOnce = new Set<string>();
  private readonly listeners = new Set<(taskId: string) => void>();

  constructor(
    config: UpstreamProviderConfig,
    http: UpstreamClient,
    private readonly logger: Logger,
    private readonly options: ComfyProviderOptions = {},
  ) {
    super(config, http);
    this.engine = new ComfyEngine(this.base, http);
    this.socket = new ComfySocket(this.base, logger, options.socketBackoff);
  }

  generateImage(job: ImageJob): Promise<ImageOutcome> {
    return this.runImage(job, job.workflow ?? null, []);
  }

  editImage(job: ImageEditJob): Promise<ImageOutcome> {
    return this.runImage(job, job.workflow ?? null, job.images);
  }

  onVideoUpdate(listener: (taskId: string) => void): void {
    this.listeners.add(listener);
  }

  /** Closes the event stream (the adapter is replaced, or the gateway is stopping); calls in flight go on polling /history. */
  async close(): Promise<void> {
    for (const watch of this.videos.values()) watch.stop();
    this.videos.clear();
    this.socket.close();
  }

  private async runImage(job: ImageJob, owned: Workflow | null, images: ImageEditJob['images']): Promise<ImageOutcome> {
    const deadline = Date.now() + (this.timeoutFor(job, FALLBACK_TIMEOUT_MS));
    const template = owned ?? (images.length > 0 ? editWorkflow(images.length) : textToImageWorkflow());
    // An edit always brings a reference, so none means a generation, whose request has no image field to name.
    checkReferenceCount(template, images.length, 'image', images.length === 0 ? GENERATION_HINT : undefined);
    const names = [];
    for (const image of images) names.push(await this.engine.upload(image.bytes, image.mime, uploadName(image.mime), job.signal));
    const { width, height } = outputSize(job, images);
    let workflow = fillWorkflow(template, { prompt: job.prompt, width, height, images: names, imageParam: 'image' });
    if (!owned) workflow = withCheckpoint(workflow, job.upstreamModel);

    const progress = new PromptProgress(workflow);
    const report = (message: Parameters<PromptProgress['feed']>[0]) => {
      if (progress.feed(message)) job.onProgress?.(progress.percent);
    };
    let promptId: string = randomUUID();
    // Watched before it is queued, so its first steps are not missed.
    let unwatch = this.socket.watch(promptId, report);
    try {
      await this.socket.ready(SOCKET_WAIT_MS);
      const queued = await this.queue(workflow, promptId, job.signal);
      job.onAccepted?.();
      if (queued !== promptId) {
        unwatch();
        unwatch = this.socket.watch(queued, report);
        promptId = queued;
      }
      const end = await waitForEnd({ engine: this.engine, socket: this.socket, promptId, deadline, ...(job.signal ? { signal: job.signal } : {}), ...(this.options.polls ? { polls: this.options.polls } : {}) });
      if (end.state === 'lost') throw runFailed(LOST);
      const outcome = outcomeOf(end.entry);
      if (outcome.state === 'failed') throw runFailed(outcome.message);
      const file = imageOutput(outcome.outputs);
      // Read from every output node's `images`, core or custom; a node that reports none leaves nothing to read.
      if (!file) throw invalidResponse('the workflow finished without an image in ComfyUI\'s history; its output node must report the image it saves, as SaveImage and PreviewImage do');
      const bytes = await this.download(file, job.signal);
      return { bytes, usage: this.estimateImageUsage(job) };
    } catch (error) {
      // A client that left, or a run past the provider's timeout, must not go on using the GPU.
      if (job.signal?.aborted || Date.now() >= deadline) await this.stop(promptId);
      throw error;
    } finally {
      unwatch();
    }
  }

  private async queue(workflow: Workflow, promptId: string, signal?: AbortSignal): Promise<string> {
    return this.engine.queuePrompt(workflow, this.socket.clientId, promptId, signal);
  }

  private async stop(promptId: string): Promise<void> {
    try {
      await this.engine.cancel(promptId);
    } catch (error) {
      this.logger.warn({ provider: this.id, promptId, err: (error as Error).message }, 'could not stop a ComfyUI prompt');
    }
  }

  private async download(file: Parameters<ComfyEngine['view']>[0], signal?: AbortSignal): Promise<Buffer> {
    const { body } = await this.engine.view(file, MAX_IMAGE_BYTES, 120_000, signal);
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(chunk);
    return Buffer.concat(chunks);
  }

  async submitVideo(job: VideoJob): Promise<string> {
    if (!job.workflow) throw invalid(`The model ${job.modelId} has no ComfyUI video workflow; the owner must put one with --workflow.`, 'model');
    checkReferenceCount(job.workflow, job.referencePaths.length, 'input_reference');
    const names = [];
    for (const path of job.referencePaths) {
      const mime = referenceMime(path);
      names.push(await this.engine.upload(await readFile(path), mime, uploadName(mime)));
    }
    const request: FillRequest = { prompt: job.prompt, width: job.width, height: job.height, images: names, video: { seconds: job.seconds, fps: job.fps }, imageParam: 'input_reference' };
    const workflow = fillWorkflow(job.workflow, request);
    let promptId: string = randomUUID();
    // Followed before it is queued, so its first steps are not missed.
    const follow = this.follow(promptId, job.taskId, workflow);
    try {
      await follow.ready(SOCKET_WAIT_MS);
      const queued = await this.engine.queuePrompt(workflow, follow.clientId, promptId);
      if (queued !== promptId) {
        this.videos.delete(promptId);
        follow.retarget(queued);
        this.videos.set(queued, follow);
        promptId = queued;
      }
      return promptId;
    } catch (error) {
      this.forget(promptId);
      throw error;
    }
  }

  /**
   * Where a prompt stands, from /history (ended) and /queue (pending or running); progress
   * from the events this process heard. A prompt this process does not follow yet (queued
   * before a gateway restart, or by a team instance that died) is followed from here on, under
   * the client id it was queued with: its percent moves again at the next event the engine
   * sends, and the first `progress_state` brings back the samplers that ran before.
   */
  async pollVideo(job: VideoJob, upstreamId: string): Promise<VideoPoll> {
    let entry = await this.engine.history(upstreamId);
    if (entry === null) {
      const place = await this.engine.place(upstreamId);
      if (place !== 'absent') {
        const percent = (this.videos.get(upstreamId) ?? this.follow(upstreamId, job.taskId, job.workflow)).progress.percent;
        return place === 'running' ? { state: 'in_progress', progress: Math.min(99, percent) } : { state: 'queued', progress: 0 };
      }
      entry = await this.engine.history(upstreamId);
      if (entry === null) return this.lost(job, upstreamId);
    }
    const outcome = outcomeOf(entry);
    if (outcome.state === 'failed') {
      this.forget(upstreamId);
      this.lostOnce.delete(job.taskId);
      return { state: 'failed', message: outcome.message };
    }
    const file = videoOutput(outcome.outputs);
    if (!file) {
      this.forget(upstreamId);
      return { state: 'failed', message: 'The workflow finished without saving a video; its output node must be SaveVideo or VHS_VideoCombine saving MP4.' };
    }
    const what = await saveMp4((await this.engine.view(file, MAX_VIDEO_BYTES, DOWNLOAD_TIMEOUT_MS)).body, job.outputPath);
    const problem = what === null ? null : notMp4Message(what);
    this.forget(upstreamId);
    this.lostOnce.delete(job.taskId);
    return problem ? { state: 'failed', message: problem } : { state: 'completed', output: { kind: 'file', path: job.outputPath } };
  }

  async cancelVideo(job: VideoJob, upstreamId: string): Promise<void> {
    this.forget(upstreamId);
    this.lostOnce.delete(job.taskId);
    await this.engine.cancel(upstreamId);
  }

  /** The engine no longer knows the prompt: queued again once, then the task fails rather than loop. */
  private lost(job: VideoJob, upstreamId: string): VideoPoll {
    this.forget(upstreamId);
    this.logger.warn({ provider: this.id, taskId: job.taskId, promptId: upstreamId }, 'ComfyUI no longer knows a video prompt');
    if (this.lostOnce.has(job.taskId)) {
      this.lostOnce.delete(job.taskId);
      return { state: 'failed', message: LOST };
    }
    this.lostOnce.add(job.taskId);
    return { state: 'unknown' };
  }

  /** Stays in `videos` after the prompt's last event (its percent is read until the task ends), until forget(). */
  private follow(promptId: string, taskId: string, workflow: Workflow | null): VideoFollow {
    const changed = () => {
      for (const listener of this.listeners) listener(taskId);
    };
    const follow = new VideoFollow({ base: this.base, logger: this.logger, backoff: this.options.socketBackoff, taskId, workflow, changed }, promptId);
    this.videos.set(promptId, follow);
    return follow;
  }

  private forget(promptId: string): void {
    this.videos.get(promptId)?.stop();
    this.videos.delete(promptId);
  }
}

function uploadName(mime: keyof typeof EXTENSION): string {
  return `mgw-${randomUUID()}.${EXTENSION[mime]}`;
}

/**
 * The size the workflow renders: the one asked for, else (an edit without a size keeps its
 * reference's) the first reference's, down to a multiple of 8 as latents need.
 */
function outputSize(job: ImageJob, images: ImageEditJob['images']): { width: number; height: number } {
  const first = !job.sizeGiven && images[0] ? sniffImage(images[0].bytes) : null;
  if (!first) return { width: job.width, height: job.height };
  return { width: Math.max(64, Math.floor(first.width / 8) * 8), height: Math.max(64, Math.floor(first.height / 8) * 8) };
}
