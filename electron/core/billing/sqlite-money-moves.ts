// Money on SQLite: every move a synchronous transaction of prepared statements (hold-ledger.ts),
// image holds in memory for the length of their request (request-holds.ts), and their charges
// written in group commits (charge-batch.ts).
import type { Clock } from '../clock.js';
import type { Db, Store } from '../store/database.js';
import type { AccountRow, HoldRow } from '../store/schema.js';
import { ChargeBatch } from './charge-batch.js';
import { HoldLedger, type HoldResult } from './hold-ledger.js';
import type { Charged, MoneyMoves } from './money-moves.js';
import { RequestHolds, type RequestHold } from './request-holds.js';

export class SqliteMoneyMoves implements MoneyMoves {
  private readonly moves: HoldLedger;
  private readonly requestHolds = new RequestHolds();
  private readonly charges: ChargeBatch<{ hold: RequestHold; chargeNano: number }, number>;

  constructor(
    private readonly store: Store,
    clock: Clock,
    periodMs: number,
  ) {
    this.moves = new HoldLedger(store.raw, clock, periodMs, (accountId) => this.requestHolds.held(accountId));
    this.charges = new ChargeBatch(
      (write) => store.txSync(write),
      ({ hold, chargeNano }) => {
        // Out of memory as soon as it is charged: the next charge of the batch must not count
        // this hold as held on top of its charge.
        const charged = this.moves.chargeRequestHold(hold, chargeNano, this.requestHolds.counted(hold));
        this.requestHolds.take(hold);
        return charged;
      },
    );
  }

  /** The money moves are synchronous statements on the transaction's own connection. */
  async topUpIn(_trx: Db, accountId: string, amountNano: number, ref: string): Promise<void> {
    this.moves.topUp(accountId, amountNano, ref);
  }

  changeTerms(accountId: string, changes: { access?: string; allowanceNano?: number }): Promise<void> {
    return this.store.txSync(() => this.moves.changeTerms(accountId, changes));
  }

  account(accountId: string): Promise<AccountRow> {
    // Through the money path, so an allowance period that ended shows as renewed.
    return this.store.txSync(() => this.moves.getAccount(accountId));
  }

  inFlight(accountId: string): number {
    return this.requestHolds.held(accountId);
  }

  reserve(accountId: string, amountNano: number, purpose: string, ref: string | null): Promise<HoldResult> {
    return this.store.txSync(() => this.moves.reserve(accountId, amountNano, purpose, ref));
  }

  async reserveIn(_trx: Db, accountId: string, amountNano: number, purpose: string, ref: string | null): Promise<HoldResult> {
    return this.moves.reserve(accountId, amountNano, purpose, ref);
  }

  /** SQLite's one writer already has the transaction to itself (BEGIN IMMEDIATE). */
  async lockAccountIn(): Promise<void> {}

  consume(holdId: string, chargeNano: number): Promise<Charged | null> {
    return this.store.txSync(() => this.moves.consume(holdId, chargeNano));
  }

  async consumeIn(_trx: Db, holdId: string, chargeNano: number): Promise<Charged | null> {
    return this.moves.consume(holdId, chargeNano);
  }

  release(holdId: string): Promise<string | null> {
    return this.store.txSync(() => this.moves.release(holdId));
  }

  async releaseIn(_trx: Db, holdId: string): Promise<string | null> {
    return this.moves.release(holdId);
  }

  async reserveRequest(hold: RequestHold): Promise<void> {
    // Checked and added in one synchronous step: with an await between them, concurrent requests
    // all passed the check before any was counted, together holding more than was available.
    await this.store.readSync(() => {
      this.moves.checkAvailable(hold.accountId, hold.amountNano);
      this.requestHolds.add(hold);
    });
  }

  async consumeRequest(hold: RequestHold, chargeNano: number): Promise<number | null> {
    if (!this.requestHolds.startCharge(hold)) return null;
    try {
      return await this.charges.add({ hold, chargeNano });
    } finally {
      this.requestHolds.take(hold);
    }
  }

  releaseRequest(hold: RequestHold): boolean {
    return !this.requestHolds.isCharging(hold) && this.requestHolds.take(hold);
  }

  requestHoldRows(accountId: string): HoldRow[] {
    return this.requestHolds.rows(accountId);
  }

  /** One server per data dir: at its start, every stored hold of a synchronous request is a crash's. */
  async orphans(purpose: string): Promise<string[]> {
    const rows = await this.store.db.selectFrom('holds').select('id').where('status', '=', 'active').where('purpose', '=', purpose).execute();
    return rows.map((row) => row.id);
  }
}
