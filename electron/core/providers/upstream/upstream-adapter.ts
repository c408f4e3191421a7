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

  /** The longest one image call may take: the owner's timeout for this provider, else the client's. */
  get imageTimeoutMs(): number {
    return this.config.timeoutMs ?? this.http.defaultTotalMs;
  }

  /**
   * The timeout of this image call: the owner's for this provider (else `fallbackMs`), cut to
   * what remains of the request's budget when earlier routes used some of it.
   */
  protected timeoutFor(job: ImageJob, fallbackMs: number): number {
    return Math.min(this.config.timeoutMs ?? fallbackMs, job.timeoutMs ?? Infinity);
  }

  /** What bounds one generation call: the client's departure, and its timeout (timeoutFor). */
  protected generationLimits(job: ImageJob): { signal?: AbortSignal; timeoutMs: number } {
    return { ...(job.signal ? { signal: job.signal } : {}), timeoutMs: this.timeoutFor(job, this.http.defaultTotalMs) };
  }
}
