// What bounds one image call at Replicate: the provider's timeout and the client leaving. Calls
// raced against it end with the reason in gateway words, whatever error their own abort made.
import { imageEnded } from './replicate-errors.js';

export type EndReason = 'timeout' | 'left';

export class ImageDeadline {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly ended: Promise<never>;
  private readonly leave = () => this.end('left');
  reason: EndReason | null = null;
  readonly endsAt: number;

  constructor(
    readonly timeoutMs: number,
    private readonly client: AbortSignal | undefined,
  ) {
    this.endsAt = Date.now() + timeoutMs;
    this.ended = new Promise<never>((_, reject) => this.controller.signal.addEventListener('abort', () => reject(imageEnded(this.reason ?? 'left')), { once: true }));
    // Nobody may be racing it when it ends.
    this.ended.catch(() => undefined);
    this.timer = setTimeout(() => this.end('timeout'), timeoutMs);
    if (client?.aborted) this.end('left');
    else client?.addEventListener('abort', this.leave, { once: true });
  }

  /** Aborts the calls bound to it when the call ends. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  remainingMs(): number {
    return Math.max(0, this.endsAt - Date.now());
  }

  /** `work`, or the end's error as soon as the call ends (which wins over the error its abort made). */
  async guard<T>(work: Promise<T>): Promise<T> {
    if (this.reason) throw imageEnded(this.reason);
    try {
      return await Promise.race([work, this.ended]);
    } catch (error) {
      if (this.reason) throw imageEnded(this.reason);
      throw error;
    }
  }

  /** A pause that the end cuts short (with its error). */
  sleep(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    return this.guard(new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))).finally(() => clearTimeout(timer));
  }

  close(): void {
    clearTimeout(this.timer);
    this.client?.removeEventListener('abort', this.leave);
  }

  private end(why: EndReason): void {
    if (this.reason) return;
    this.reason = why;
    this.controller.abort();
  }
}
