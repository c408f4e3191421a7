// The built-in provider ("local"): one registry entry serving both the image and the video
// engine, each in its own file.
import type { TokenUsage } from '../../billing/pricing.js';
import type { Logger } from '../../logger.js';
import type { ImageEditJob, ImageJob, ImageOutcome, ImageProvider, VideoJob, VideoPoll, VideoProvider } from '../provider.js';
import { LocalImageProvider } from './local-image-provider.js';
import { LOCAL_PROVIDER_ID } from './local-models.js';
import { LocalVideoProvider } from './local-video-provider.js';

export class LocalProvider implements ImageProvider, VideoProvider {
  readonly id = LOCAL_PROVIDER_ID;
  readonly kind = 'local';
  /** Submitting only queues a render in memory. */
  readonly submitTimeoutMs = 5_000;
  private readonly images: LocalImageProvider;
  private readonly videos: LocalVideoProvider;

  constructor(logger: Logger) {
    this.images = new LocalImageProvider(logger);
    this.videos = new LocalVideoProvider(logger);
  }

  estimateImageUsage(job: ImageJob | ImageEditJob): TokenUsage {
    return this.images.estimateImageUsage(job);
  }
  generateImage(job: ImageJob): Promise<ImageOutcome> {
    return this.images.generateImage(job);
  }
  editImage(job: ImageEditJob): Promise<ImageOutcome> {
    return this.images.editImage(job);
  }
  submitVideo(job: VideoJob): Promise<string> {
    return this.videos.submitVideo(job);
  }
  pollVideo(job: VideoJob): Promise<VideoPoll> {
    return this.videos.pollVideo(job);
  }
  cancelVideo(job: VideoJob): Promise<void> {
    return this.videos.cancelVideo(job);
  }
  onVideoUpdate(listener: (taskId: string) => void): void {
    this.videos.onVideoUpdate(listener);
  }
  shutdown(): Promise<void> {
    return this.videos.shutdown();
  }
}
