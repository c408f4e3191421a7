// Cancelling the upstream job of a video task that ended early (a cancel, a timeout, an upstream
// that kept answering nonsense). The cancel is owed until it goes through: the task's end writes
// it as pending (`upstream_cancel_until`), and a cancel that fails (the upstream down, rate
// limited, the provider gone from the config) or never ran (the process stopped first) is tried
// again by the scheduler's scans, with backoff, until the upstream takes it, says there is
// nothing to cancel, or UPSTREAM_CANCEL_RETRY_MS has passed.
import type { Clock } from '../clock.js';
import { isGatewayError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { VideoJob } from '../providers/provider.js';
import type { ProviderRegistry } from '../providers/registry.js';
import type { VideoTaskRow } from '../store/schema.js';
import { FailureBackoff } from './failure-backoff.js';
import type { VideoTaskStore } from './video-task-store.js';

/** Pending cancels sent at once: an upstream that hangs must not collect one call per ended task. */
const CANCELS_AT_ONCE = 16;

export class UpstreamCancels {
  /**
   * Tasks whose upstream cancel is under way (a scan does not start a second). Nobody waits for
   * them at shutdown: a pending cancel is on record, and the next start sends it again.
   */
  private readonly cancelling = new Set<string>();
  /** Tasks being ended with a cancel to send (endThenCancel), by how many such ends are under way. */
  private readonly ending = new Map<string, number>();
  /** Failed tries of a pending cancel, per task (a 429's wait, else backoff capped at a minute). */
  private readonly failures: FailureBackoff;

  constructor(
    private readonly tasks: VideoTaskStore,
    private readonly providers: ProviderRegistry,
    private readonly clock: Clock,
    private readonly logger: Logger,
    intervalMs: number,
    private readonly jobOf: (row: VideoTaskRow) => VideoJob,
  ) {
    this.failures = new FailureBackoff(intervalMs, 60_000);
  }

  /**
   * Ends a task with `end`, which writes its upstream cancel as pending and returns the task as it
   * was (null: it had ended already), then cancels that job. Scans leave the task alone from
   * before the end commits: one in between would otherwise send a second cancel.
   */
  async endThenCancel(taskId: string, end: () => Promise<VideoTaskRow | null>, ended: (row: VideoTaskRow) => void): Promise<VideoTaskRow | null> {
    this.ending.set(taskId, (this.ending.get(taskId) ?? 0) + 1);
    try {
      const row = await end();
      if (row) ended(row);
      if (row?.upstream_id) await this.guarded(row.id, () => this.send(row, row.upstream_id!, true));
      return row;
    } finally {
      const left = this.ending.get(taskId)! - 1;
      if (left) this.ending.set(taskId, left);
      else this.ending.delete(taskId);
    }
  }

  /** Cancels a job that is on no task's record (a surplus one), once, best effort. */
  cancelOnce(row: VideoTaskRow, upstreamId: string): Promise<void> {
    return this.send(row, upstreamId, false);
  }

  /** Starts the pending cancels that are due and not under way (at most CANCELS_AT_ONCE in all); returns their ends. */
  async retryDue(): Promise<Promise<void>[]> {
    const room = CANCELS_AT_ONCE - this.cancelling.size;
    if (room <= 0) return [];
    const due = (await this.tasks.cancelsDue(this.clock.now(), CANCELS_AT_ONCE + this.cancelling.size)).filter((row) => !this.cancelling.has(row.id) && !this.ending.has(row.id));
    return due.slice(0, room).map((row) => this.guarded(row.id, () => this.retry(row)));
  }

  private async guarded(taskId: string, cancel: () => Promise<void>): Promise<void> {
    this.cancelling.add(taskId);
    try {
      await cancel();
    } finally {
      this.cancelling.delete(taskId);
    }
  }

  private async retry(row: VideoTaskRow): Promise<void> {
    if (this.clock.now() < row.upstream_cancel_until!) return this.send(row, row.upstream_id!, true);
    this.logger.warn({ taskId: row.id }, 'gave up cancelling the upstream job of an ended video task');
    this.failures.forget(row.id);
    await this.record(row.id, () => this.tasks.cancelDone(row.id, row.upstream_id!));
  }

  /**
   * Asks the provider to cancel `upstreamId`. Done when it did, or refused because there is
   * nothing to cancel (400/404: finished, unknown); anything else is tried again with backoff
   * while the cancel is `pending`.
   */
  private async send(row: VideoTaskRow, upstreamId: string, pending: boolean): Promise<void> {
    let error: unknown = null;
    try {
      await (await this.providers.video(row.provider_id)).cancelVideo(this.jobOf(row), upstreamId);
    } catch (caught) {
      error = caught;
    }
    if (error === null || (isGatewayError(error) && error.code === 'upstream_bad_request')) {
      this.failures.forget(row.id);
      if (pending) await this.record(row.id, () => this.tasks.cancelDone(row.id, upstreamId));
      return;
    }
    const code = isGatewayError(error) ? error.code : 'error';
    if (!pending) {
      this.logger.warn({ taskId: row.id, code }, 'upstream cancel failed');
      return;
    }
    const { failures, waitMs } = this.failures.fail(row.id, error);
    if (failures === 1 || failures % 10 === 0) this.logger.warn({ taskId: row.id, code, failures }, 'upstream cancel failed');
    const next = this.clock.now() + waitMs;
    await this.record(row.id, () => this.tasks.schedulePoll(row.id, next));
  }

  /** Writes where a pending cancel stands; storage trouble leaves it pending and due, for the next scan. */
  private async record(taskId: string, write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (error) {
      this.logger.warn({ err: error, taskId }, 'could not record an upstream cancel');
    }
  }
}
