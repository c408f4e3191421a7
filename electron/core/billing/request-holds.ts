// Holds of synchronous requests (images) live in memory for the length of one HTTP request:
// the only write is the charge when one succeeds (a ledger row and the account, in one
// transaction); a failed one ends with nothing to write. That keeps the image hot path to one
// small transaction, and a crash can never leave an image hold behind: it never moved money.
// Every availability check of the process (video reserves included) subtracts these amounts.
import type { HoldRow } from '../store/schema.js';
import { Tally } from '../tally.js';

export interface RequestHold {
  holdId: string;
  accountId: string;
  amountNano: number;
  purpose: string;
  ref: string | null;
  createdAt: number;
}

export class RequestHolds {
  private readonly byId = new Map<string, RequestHold>();
  private readonly heldByAccount = new Tally();
  /** Holds whose charge is waiting for its transaction: they end by that charge only. */
  private readonly charging = new Set<string>();

  add(hold: RequestHold): void {
    this.byId.set(hold.holdId, hold);
    this.heldByAccount.add(hold.accountId, hold.amountNano);
  }

  /** Marks a hold as being charged; false when it has ended or is being charged already. */
  startCharge(hold: RequestHold): boolean {
    if (!this.byId.has(hold.holdId) || this.charging.has(hold.holdId)) return false;
    this.charging.add(hold.holdId);
    return true;
  }

  isCharging(hold: RequestHold): boolean {
    return this.charging.has(hold.holdId);
  }

  /** What the hold still counts in its account's in-memory total (0 once it has ended). */
  counted(hold: RequestHold): number {
    return this.byId.has(hold.holdId) ? hold.amountNano : 0;
  }

  /** Ends a hold in memory; false when it had already ended (so it ends exactly once). */
  take(hold: RequestHold): boolean {
    this.charging.delete(hold.holdId);
    if (!this.byId.delete(hold.holdId)) return false;
    this.heldByAccount.add(hold.accountId, -hold.amountNano);
    return true;
  }

  held(accountId: string): number {
    return this.heldByAccount.get(accountId);
  }

  /** The account's in-flight holds, shaped like database rows for listings. */
  rows(accountId: string): HoldRow[] {
    const rows: HoldRow[] = [];
    for (const h of this.byId.values()) {
      if (h.accountId !== accountId) continue;
      rows.push({ id: h.holdId, account_id: h.accountId, amount_nano: h.amountNano, status: 'active', purpose: h.purpose, ref: h.ref, charged_nano: 0, created_at: h.createdAt, settled_at: null, instance_id: null });
    }
    return rows;
  }
}
