// The adapter interface every provider implements: the built-in local engine today, OpenAI-style
// servers and queue-style partners later. Adapters speak their protocol and return normalized
// results; they never decide about money or access.
import type { ModelRecord } from '../../../shared/api-types.js';
import type { TokenUsage } from '../billing/pricing.js';
import type { Workflow } from './templates/placeholders.js';

export interface ReferenceImage {
  /** The form field it arrived under (image, image[]). */
  field: string;
  filename: string;
  /** Detected from the bytes, never from the declared type. */
  mime: 'image/png' | 'image/jpeg' | 'image/webp';
  bytes: Buffer;
}

export interface ImageJob {
  model: ModelRecord;
  upstreamModel: string;
  prompt: string;
  width: number;
  height: number;
  /** Whether the caller gave a size; edits keep the reference's size otherwise. */
  sizeGiven: boolean;
  /** The model's workflow or request template, placeholders unfilled; null: the kind's built-in one. */
  workflow: Workflow | null;
  signal?: AbortSignal;
  /** Engines that report their steps call this as they go (0-100), for the studio's progress. */
  onProgress?: (percent: number) => void;
  /** What remains of the request's time across its routes: the call ends by then (its own timeout may be shorter). */
  timeoutMs?: number;
  /**
   * Adapters that submit a job and then wait for it call this once the upstream has accepted
   * the job: from then on the work may cost money, so a failure is answered, never sent on to
   * another route.
   */
  onAccepted?: () => void;
}

export interface ImageEditJob extends ImageJob {
  images: ReferenceImage[];
}

export interface ImageOutcome {
  /** The image bytes (PNG from the local engine; whatever the upstream returned otherwise). */
  bytes: Buffer;
  /** The same bytes as base64 when the upstream sent them so (already checked): saves a re-encode. */
  b64?: string;
  usage: TokenUsage;
}

/**
 * A generation that may still be arriving: whole, or a large image relayed as it comes (its
 * head decoded for checking, its base64 text in pieces, its usage known once those have ended).
 */
export type ImageStreamOutcome =
  | { kind: 'whole'; outcome: ImageOutcome }
  | { kind: 'stream'; headBytes: Buffer; b64: AsyncIterable<Buffer>; usage(): TokenUsage; cancel(): Promise<void> };

export interface ImageProvider {
  readonly id: string;
  readonly kind: string;
  /** Token usage expected for the job: the amount held before the work starts. */
  estimateImageUsage(job: ImageJob | ImageEditJob): TokenUsage;
  /** The longest one image call may take (none: as long as it takes, the built-in engine). */
  readonly imageTimeoutMs?: number;
  generateImage(job: ImageJob): Promise<ImageOutcome>;
  /** generateImage for providers that can hand on a large image while it arrives. */
  generateImageStream?(job: ImageJob): Promise<ImageStreamOutcome>;
  editImage(job: ImageEditJob): Promise<ImageOutcome>;
}

export interface VideoJob {
  taskId: string;
  modelId: string;
  upstreamModel: string;
  requestType: string;
  prompt: string;
  seconds: number;
  /** The size as the client sent it (a named resolution or WxH), and its pixel dimensions. */
  size: string;
  width: number;
  height: number;
  /** Reference images saved in the data dir (they must survive a restart). */
  referencePaths: string[];
  /** Where a local render must write the MP4, and where an adapter that downloads puts it. */
  outputPath: string;
  /** The workflow or request template the task was created with; null: the kind's built-in one. */
  workflow: Workflow | null;
  /** Frames per second the model renders at (capabilities.fps, default 16). */
  fps: number;
}

export type VideoOutput = { kind: 'file'; path: string } | { kind: 'url'; url: string };

export type VideoPoll =
  | { state: 'queued' | 'in_progress'; progress: number }
  | { state: 'completed'; output: VideoOutput }
  | { state: 'failed'; message: string }
  /** The provider has no record of the job (the local engine after a restart): submit it again. */
  | { state: 'unknown' };

export interface VideoProvider {
  readonly id: string;
  readonly kind: string;
  /** Starts the job; throws a GatewayError when the provider refuses it. Returns the upstream id. */
  submitVideo(job: VideoJob): Promise<string>;
  pollVideo(job: VideoJob, upstreamId: string): Promise<VideoPoll>;
  cancelVideo(job: VideoJob, upstreamId: string): Promise<void>;
  /** The longest a submitVideo call may take; a creation holds its task this long. */
  readonly submitTimeoutMs?: number;
  /** How often active tasks are polled at most (remote APIs should not be hammered). */
  readonly pollIntervalMs?: number;
  /** How long after its submission a task is first polled (default: at once). */
  readonly firstPollAfterMs?: number;
  /** Local providers call this when a job changes, so the scheduler need not wait for its next tick. */
  onVideoUpdate?(listener: (taskId: string) => void): void;
}

/** What an adapter holds open beyond single calls (a local engine's event stream), let go when it is replaced or the gateway stops. */
export interface ProviderLifecycle {
  close?(): Promise<void>;
}

export type Provider = (ImageProvider | VideoProvider | (ImageProvider & VideoProvider)) & ProviderLifecycle;

export const isImageProvider = (p: Provider): p is ImageProvider => 'generateImage' in p;
export const isVideoProvider = (p: Provider): p is VideoProvider => 'submitVideo' in p;

/** What `mgw providers test` and the Providers view show: the verdict, and what the engine says about itself. */
export interface ProviderCheck {
  ok: boolean;
  message: string;
  /** The models the provider lists, when it lists any. */
  models: string[];
  /** What a local engine reports about itself (version, GPU, free VRAM, loaded checkpoint...). */
  facts: { label: string; value: string }[];
}

/** One model a local engine offers (a checkpoint): what discovery makes a catalog model of. */
export interface DiscoveredModel {
  /** The name the engine knows it by: the upstream model of the catalog entry. */
  upstreamModel: string;
  /** The tail of the catalog id ({provider}/{name}). */
  name: string;
  /** How many reference images its edits take. */
  maxReferenceImages: number;
}
