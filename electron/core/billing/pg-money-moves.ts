// Money on PostgreSQL (team mode): every move its own transaction on locked rows
// (pg-hold-ledger.ts), image holds included, so that what one instance holds every other
// instance sees. An image hold whose release could not be written (the database away) is kept
// here and written later: it must not stay held for good.
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { Db, Store } from '../store/database.js';
import type { AccountRow, HoldRow } from '../store/schema.js';
import type { HoldResult } from './hold-ledger.js';
import type { Charged, MoneyMoves } from './money-moves.js';
import { PgHoldLedger } from './pg-hold-ledger.js';
import type { RequestHold } from './request-holds.js';

const RELEASE_RETRY_MS = 1_000;

export class PgMoneyMoves implements MoneyMoves {
  private readonly ledger: PgHoldLedger;
  private readonly unreleased = new Set<string>();
  private retryTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly store: Store,
    clock: Clock,
    periodMs: number,
    private readonly instanceId: string,
    private readonly logger: Logger,
  ) {
    this.ledger = new PgHoldLedger(clock, periodMs, instanceId);
  }

  topUpIn(trx: Db, accountId: string, amountNano: number, ref: string): Promise<void> {
    return this.ledger.topUp(trx, accountId, amountNano, ref);
  }

  changeTerms(accountId: string, changes: { access?: string; allowanceNano?: number }): Promise<void> {
    return this.store.tx((trx) => this.ledger.changeTerms(trx, accountId, changes));
  }

  account(accountId: string): Promise<AccountRow> {
    return this.store.tx((trx) => this.ledger.lockAccount(trx, accountId));
  }

  /** Image holds are stored rows here: the account's held amount counts them already. */
  inFlight(): number {
    return 0;
  }

  reserve(accountId: string, amountNano: number, purpose: string, ref: string | null): Promise<HoldResult> {
    return this.store.tx((trx) => this.ledger.reserve(trx, accountId, amountNano, purpose, ref));
  }

  reserveIn(trx: Db, accountId: string, amountNano: number, purpose: string, ref: string | null): Promise<HoldResult> {
    return this.ledger.reserve(trx, accountId, amountNano, purpose, ref);
  }

  async lockAccountIn(trx: Db, accountId: string): Promise<void> {
    await this.ledger.lockAccount(trx, accountId);
  }

  consume(holdId: string, chargeNano: number): Promise<Charged | null> {
    return this.store.tx((trx) => this.ledger.consume(trx, holdId, chargeNano));
  }

  consumeIn(trx: Db, holdId: string, chargeNano: number): Promise<Charged | null> {
    return this.ledger.consume(trx, holdId, chargeNano);
  }

  release(holdId: string): Promise<string | null> {
    return this.store.tx((trx) => this.ledger.release(trx, holdId));
  }

  releaseIn(trx: Db, holdId: string): Promise<string | null> {
    return this.ledger.release(trx, holdId);
  }

  async reserveRequest(hold: RequestHold): Promise<void> {
    await this.store.tx((trx) => this.ledger.reserve(trx, hold.accountId, hold.amountNano, hold.purpose, hold.ref, hold.holdId));
  }

  /** The full cost or a 402 (see chargeRequestHold in hold-ledger.ts); a refused charge ends the hold uncharged. */
  async consumeRequest(hold: RequestHold, chargeNano: number): Promise<number | null> {
    try {
      return (await this.store.tx((trx) => this.ledger.consume(trx, hold.holdId, chargeNano, true)))?.charged ?? null;
    } catch (error) {
      await this.releaseRequest(hold);
      throw error;
    }
  }

  async releaseRequest(hold: RequestHold): Promise<boolean> {
    try {
      return (await this.release(hold.holdId)) !== null;
    } catch (error) {
      this.logger.warn({ err: error, holdId: hold.holdId }, 'could not release an image hold; will retry');
      this.unreleased.add(hold.holdId);
      this.retryLater();
      return true;
    }
  }

  private retryLater(): void {
    if (this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void Promise.all(
        [...this.unreleased].map((holdId) =>
          this.release(holdId).then(
            () => this.unreleased.delete(holdId),
            () => undefined,
          ),
        ),
      ).then(() => {
        if (this.unreleased.size > 0) this.retryLater();
      });
    }, RELEASE_RETRY_MS);
    this.retryTimer.unref();
  }

  requestHoldRows(): HoldRow[] {
    return [];
  }

  /** Image holds of instances that stopped beating: their requests are gone. */
  async orphans(purpose: string): Promise<string[]> {
    const rows = await this.store.db
      .selectFrom('holds')
      .select('id')
      .where('status', '=', 'active')
      .where('purpose', '=', purpose)
      .where((eb) =>
        eb.or([
          eb('instance_id', 'is', null),
          eb('instance_id', 'not in', eb.selectFrom('instances').select('id').where('alive_until', '>', Date.now())),
        ]),
      )
      .where((eb) => eb.or([eb('instance_id', 'is', null), eb('instance_id', '!=', this.instanceId)]))
      .execute();
    return rows.map((row) => row.id);
  }
}
