// What every upstream adapter starts from: its id, its base URL without trailing slashes, the
// shared HTTP client, and the built-in usage estimate for images (the hold before the call).
import type { TokenUsage } from '../../billing/pricing.js';
import { estimateImageUsage } from '../image-usage.js';
import type { ImageEditJob, ImageJob } from '../provider.js';
import type { UpstreamClient, UpstreamProviderConfig } from './upstream-client.js';

export abstract class UpstreamAdapter<Config extends UpstreamProviderConfig> {
  readonly id: string;
  protected readonly base: string;

  constructor(
    protected readonly config: Config,
    protected readonly http: UpstreamClient,
  ) {
    this.id = config.id;
    this.base = config.baseUrl.replace(/\/+$/, '');
  }

  estimateImageUsage(job: ImageJob | ImageEditJob): TokenUsage {
    return estimateImageUsage(job);
  }

  /** What bounds one generation call: the client's departure, and the owner's timeout for this provider when set. */
  protected generationLimits(job: ImageJob): { signal?: AbortSignal; timeoutMs?: number } {
    return { ...(job.signal ? { signal: job.signal } : {}), ...(this.config.timeoutMs !== undefined ? { timeoutMs: this.config.timeoutMs } : {}) };
  }
}
