// One bound on the upload bytes held in memory at once, across every request. Each form keeps
// its files whole (up to the model's limits, 3 x 8 MB for an edit), and request windows do not
// bound how many uploads are open at once: slow uploads may run for 300 s each. Past the bound a
// form is refused with 429 and Retry-After; nothing of it is kept.
import { GatewayError } from '../core/errors.js';

/** Default: 256 MiB, room for ten full three-image edits at 8 MiB each, and then some. */
export const DEFAULT_UPLOAD_BUDGET_BYTES = 256 * 1024 * 1024;

export class UploadBudget {
  private held = 0;

  constructor(readonly limitBytes: number = DEFAULT_UPLOAD_BUDGET_BYTES) {}

  /** Bytes of forms being read now. */
  get heldBytes(): number {
    return this.held;
  }

  /** Takes `bytes` for a form being read; throws 429 when that would pass the bound. */
  take(bytes: number): void {
    if (this.held + bytes > this.limitBytes) {
      throw new GatewayError(
        'rate_limit_exceeded',
        `The gateway is receiving too many uploads at once (${Math.round(this.limitBytes / 1024 / 1024)} MiB in flight); retry in a moment.`,
        null,
        { 'retry-after': '1' },
      );
    }
    this.held += bytes;
  }

  give(bytes: number): void {
    this.held -= bytes;
  }
}
