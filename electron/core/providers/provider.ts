// The adapter interface every provider implements: the built-in local engine today, OpenAI-style
// servers and queue-style partners later. Adapters speak their protocol and return normalized
// results; they never decide about money or access.
import type { ModelRecord } from '../../../shared/api-types.js';
import type { TokenUsage } from '../billing/pricing.js';

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
  signal?: AbortSignal;
}

export interface ImageEditJob extends ImageJob {
  images: ReferenceImage[];
}

export interface ImageOutcome {
  /** The image bytes (PNG from the local engine; whatever the upstream returned otherwise). */
  bytes: Buffer;
  usage: TokenUsage;
}

export interface ImageProvider {
  readonly id: string;
  readonly kind: string;
  /** Token usage expected for the job: the amount held before the work starts. */
  estimateImageUsage(job: ImageJob | ImageEditJob): TokenUsage;
  generateImage(job: ImageJob): Promise<ImageOutcome>;
  editImage(job: ImageEditJob): Promise<ImageOutcome>;
}

export type Provider = ImageProvider;
