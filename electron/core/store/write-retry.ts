// The retry rule of background batch writers (usage counters, the activity log): a batch that
// cannot be written (a lock held too long, a full or read-only disk) goes back to the queue and
// is tried again later, backing off to half a minute, so storage trouble delays these rows
// instead of losing them. The log gets the first failure of a run and every tenth.
import type { Logger } from '../logger.js';

const MAX_DELAY_MS = 30_000;

export class WriteRetry {
  private failures = 0;
  private closed = false;

  constructor(
    private readonly logger: Logger,
    private readonly what: string,
    private readonly baseMs: number,
  ) {}

  succeeded(): void {
    this.failures = 0;
  }

  /** Records a failed batch; returns the delay before the next try, or null once closed. */
  failed(error: unknown, rows: number): number | null {
    this.failures++;
    if (this.failures === 1 || this.failures % 10 === 0) {
      this.logger.warn({ err: error, rows, failures: this.failures }, `could not write ${this.what}${this.closed ? '; lost at shutdown' : '; will retry'}`);
    }
    return this.closed ? null : Math.min(MAX_DELAY_MS, this.baseMs * 2 ** this.failures);
  }

  /** After the last flush at shutdown, failures are not retried (the database is closing). */
  close(): void {
    this.closed = true;
  }
}
