// Failures in a row per task, and how long to wait after the latest: the upstream's Retry-After
// when the error carries one, else exponential backoff from `baseMs` up to `capMs`, with full
// jitter (pollRetryDelayMs). The scheduler keeps one for polls and one for steps it could not
// write; pending upstream cancels keep their own.
import { pollRetryDelayMs } from '../providers/upstream/upstream-errors.js';

export class FailureBackoff {
  private readonly counts = new Map<string, number>();

  constructor(
    private readonly baseMs: number,
    private readonly capMs: number,
  ) {}

  /** Counts a failure of `taskId`: how many came in a row, and the wait before its next try. */
  fail(taskId: string, error: unknown): { failures: number; waitMs: number } {
    const failures = (this.counts.get(taskId) ?? 0) + 1;
    this.counts.set(taskId, failures);
    return { failures, waitMs: pollRetryDelayMs(error, failures, this.baseMs, this.capMs) };
  }

  /** It went through (or ended): the next failure starts a new run. */
  forget(taskId: string): void {
    this.counts.delete(taskId);
  }
}
