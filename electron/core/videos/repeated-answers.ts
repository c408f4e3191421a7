// Poll answers that end a task only when they keep coming: one garbled answer may be a proxy's
// hiccup, a run of them is an upstream that will not say anything usable about the task, and
// would otherwise hold the caller's money until max_task_seconds.
import { isGatewayError } from '../errors.js';
import { RepeatedFailureAnswer } from '../providers/upstream/upstream-errors.js';

/**
 * Answers in a row after which a task is failed: unreadable ones, or one a provider marks as the
 * task's failure when it keeps coming (RepeatedFailureAnswer).
 */
export const INVALID_ANSWERS_LIMIT = 5;

export interface RepeatedEnding {
  code: string;
  message: string;
  cancelUpstream: boolean;
}

/** How a task ends when `error` keeps coming; null for a passing fault. */
function endingFor(error: unknown): RepeatedEnding | null {
  if (error instanceof RepeatedFailureAnswer) return { code: 'generation_failed', message: error.taskMessage, cancelUpstream: false };
  if (!isGatewayError(error) || error.code !== 'upstream_invalid_response') return null;
  const message = `The upstream provider answered ${INVALID_ANSWERS_LIMIT} times in a row with something that is not a valid answer about this task.`;
  return { code: 'upstream_invalid_response', message, cancelUpstream: true };
}

/** Such answers in a row, per task. */
export class RepeatedAnswers {
  private readonly counts = new Map<string, number>();

  /** Counts a failed poll; the task's ending once INVALID_ANSWERS_LIMIT such answers came in a row, else null. */
  count(taskId: string, error: unknown): RepeatedEnding | null {
    const ending = endingFor(error);
    if (!ending) return null;
    const count = (this.counts.get(taskId) ?? 0) + 1;
    if (count >= INVALID_ANSWERS_LIMIT) return ending;
    this.counts.set(taskId, count);
    return null;
  }

  /** A usable answer came, or the task ended: the run starts over. */
  forget(taskId: string): void {
    this.counts.delete(taskId);
  }
}
