// Accounts, holds and the ledger. Every money movement is one immediate transaction that writes
// the account row and a ledger row together, so the invariants hold at every moment:
//   balance = top-ups - charges;  available = balance + allowance left - active holds >= 0;
//   every hold ends exactly once (consumed or released).
import type { AccessType, BalanceView } from '../../../shared/api-types.js';
import type { Clock } from '../clock.js';
import { GatewayError } from '../errors.js';
import { newId } from '../ids.js';
import type { Db, Store } from '../store/database.js';
import type { AccountRow, HoldRow, LedgerRow } from '../store/schema.js';
import { allowanceLeft, availableNano, HoldLedger, type HoldResult } from './hold-ledger.js';
import { formatUsd } from './money.js';
import { ChargeBatch } from './charge-batch.js';
import { RequestHolds, type RequestHold } from './request-holds.js';

export { allowanceLeft, availableNano, type HoldResult } from './hold-ledger.js';
export type { RequestHold } from './request-holds.js';

type ChangeListener = (accountId: string) => void;

export class BillingService {
  private readonly listeners = new Set<ChangeListener>();
  private readonly moves: HoldLedger;
  private readonly requestHolds = new RequestHolds();
  private readonly charges: ChargeBatch<{ hold: RequestHold; chargeNano: number }, number>;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    periodMs: number = 30 * 86_400_000,
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

  /** Money moved on an account (in this process); the studio pushes billing events from here. */
  onChange(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(accountId: string): void {
    // After the current transaction's statements: listeners re-read through the same connection,
    // which Kysely hands out only once the transaction has committed.
    if (this.listeners.size > 0) queueMicrotask(() => this.listeners.forEach((listener) => listener(accountId)));
  }

  async createAccount(trx: Db, access: AccessType, balanceNano: number, allowanceNano: number): Promise<string> {
    const id = newId('acct', 12);
    const now = this.clock.now();
    await trx
      .insertInto('accounts')
      .values({
        id,
        access_type: access,
        balance_nano: 0,
        allowance_nano: allowanceNano,
        allowance_used_nano: 0,
        held_nano: 0,
        period_started_at: now,
        created_at: now,
      })
      .execute();
    if (balanceNano > 0) await this.topUpIn(trx, id, balanceNano, 'initial balance');
    return id;
  }

  async getAccount(accountId: string, trx: Db = this.store.db): Promise<AccountRow> {
    const row = await trx.selectFrom('accounts').selectAll().where('id', '=', accountId).executeTakeFirst();
    if (!row) throw new GatewayError('not_found', `No account ${accountId}.`, 'account_id');
    return row;
  }

  async topUp(accountId: string, amountNano: number, ref = 'top-up'): Promise<BalanceView> {
    if (!Number.isSafeInteger(amountNano) || amountNano <= 0) {
      throw new GatewayError('invalid_request', 'A top-up must be a positive amount.', 'amount');
    }
    await this.store.tx(async (trx) => {
      await this.getAccount(accountId, trx);
      await this.topUpIn(trx, accountId, amountNano, ref);
    });
    return this.view(accountId);
  }

  /** Inside the caller's transaction (the money moves are synchronous statements on its connection). */
  private async topUpIn(_trx: Db, accountId: string, amountNano: number, ref: string): Promise<void> {
    this.moves.topUp(accountId, amountNano, ref);
    this.changed(accountId);
  }

  /** A key's new access type and/or allowance; 400 when its active holds would be left uncovered (see HoldLedger). */
  async changeTerms(accountId: string, changes: { access?: AccessType; allowanceNano?: number }): Promise<void> {
    await this.store.txSync(() => this.moves.changeTerms(accountId, changes));
    this.changed(accountId);
  }

  async view(accountId: string): Promise<BalanceView> {
    // Through the money path, so an allowance period that ended shows as renewed.
    const a = await this.store.txSync(() => this.moves.getAccount(accountId));
    const inFlight = this.requestHolds.held(accountId);
    return {
      account_id: a.id,
      access: a.access_type as AccessType,
      balance_usd: formatUsd(a.balance_nano),
      allowance_remaining_usd: formatUsd(allowanceLeft(a)),
      holds_usd: formatUsd(a.held_nano + inFlight),
      available_usd: formatUsd(availableNano(a) - inFlight),
    };
  }

  /** Reserves `amountNano` or refuses with 402; nothing is written on refusal. */
  async reserve(accountId: string, amountNano: number, purpose: string, ref: string | null): Promise<HoldResult> {
    const hold = await this.store.txSync(() => this.moves.reserve(accountId, amountNano, purpose, ref));
    this.changed(accountId);
    return hold;
  }

  /**
   * A hold for the length of one synchronous request (an image): kept in memory only, refused
   * with 402 like reserve(). Its charge is the one write (see request-holds.ts).
   */
  async reserveRequest(accountId: string, amountNano: number, purpose: string, ref: string | null): Promise<RequestHold> {
    const hold: RequestHold = { holdId: newId('hold', 16), accountId, amountNano, purpose, ref, createdAt: this.clock.now() };
    // Checked and added in one synchronous step: with an await between them, concurrent requests
    // all passed the check before any was counted, together holding more than was available.
    await this.store.readSync(() => {
      this.moves.checkAvailable(accountId, amountNano);
      this.requestHolds.add(hold);
    });
    this.changed(accountId);
    return hold;
  }

  /**
   * Ends a request hold with a charge (capped like consume()), written before this resolves;
   * charges finishing together share one transaction (see charge-batch.ts). Returns the amount
   * charged, or null when the hold had already ended. When the write fails the hold is over all
   * the same, uncharged, and the caller answers with the storage error.
   */
  async consumeRequest(hold: RequestHold, chargeNano: number): Promise<number | null> {
    if (!this.requestHolds.startCharge(hold)) return null;
    try {
      return await this.charges.add({ hold, chargeNano });
    } finally {
      this.requestHolds.take(hold);
      this.changed(hold.accountId);
    }
  }

  /** Ends a request hold with no charge; nothing to write. False when it had already ended. */
  releaseRequest(hold: RequestHold): boolean {
    if (this.requestHolds.isCharging(hold) || !this.requestHolds.take(hold)) return false;
    this.changed(hold.accountId);
    return true;
  }

  /** reserve() inside the caller's transaction (with the idempotency check and task insert). */
  async reserveIn(_trx: Db, accountId: string, amountNano: number, purpose: string, ref: string | null): Promise<HoldResult> {
    const hold = this.moves.reserve(accountId, amountNano, purpose, ref);
    this.changed(accountId);
    return hold;
  }

  /**
   * Ends a hold by charging `chargeNano` (allowance first, then balance). A charge above the hold
   * (an upstream reporting more usage than estimated) is capped at what the account can cover.
   * Returns the amount charged, or null when the hold had already ended.
   */
  async consume(holdId: string, chargeNano: number): Promise<number | null> {
    const result = await this.store.txSync(() => this.moves.consume(holdId, chargeNano));
    if (result) this.changed(result.accountId);
    return result?.charged ?? null;
  }

  /** consume() inside the caller's transaction, so a task's terminal status and its hold end together. */
  async consumeIn(_trx: Db, holdId: string, chargeNano: number): Promise<number | null> {
    const result = this.moves.consume(holdId, chargeNano);
    if (result) this.changed(result.accountId);
    return result?.charged ?? null;
  }

  /** Releases a hold; returns false when it had already ended (so callers can be idempotent). */
  async release(holdId: string): Promise<boolean> {
    const accountId = await this.store.txSync(() => this.moves.release(holdId));
    if (accountId) this.changed(accountId);
    return accountId !== null;
  }

  async releaseIn(_trx: Db, holdId: string): Promise<boolean> {
    const accountId = this.moves.release(holdId);
    if (accountId) this.changed(accountId);
    return accountId !== null;
  }

  /**
   * Holds of synchronous requests cannot outlive the process. Request holds are never stored
   * active; this releases image holds stored by versions before them, left by a crash.
   */
  async releaseOrphans(purpose: string): Promise<number> {
    const orphans = await this.store.db
      .selectFrom('holds')
      .select('id')
      .where('status', '=', 'active')
      .where('purpose', '=', purpose)
      .execute();
    let released = 0;
    for (const { id } of orphans) if (await this.release(id)) released++;
    return released;
  }

  /** Stored and in-flight request holds, newest first. */
  async activeHolds(accountId: string): Promise<HoldRow[]> {
    const stored = await this.store.db
      .selectFrom('holds')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('status', '=', 'active')
      .execute();
    return [...stored, ...this.requestHolds.rows(accountId)].sort((a, b) => b.created_at - a.created_at);
  }

  /** Charges per UTC day (consumed holds), oldest first, for the studio's spend chart. */
  async spendByDay(accountId: string, days: number): Promise<{ day: string; nano: number }[]> {
    const since = this.clock.now() - days * 86_400_000;
    const rows = await this.store.db
      .selectFrom('ledger')
      .select(['created_at', 'amount_nano'])
      .where('account_id', '=', accountId)
      .where('kind', '=', 'consume')
      .where('created_at', '>=', since)
      .execute();
    const byDay = new Map<string, number>();
    for (let i = days - 1; i >= 0; i--) byDay.set(new Date(this.clock.now() - i * 86_400_000).toISOString().slice(0, 10), 0);
    for (const row of rows) {
      const day = new Date(row.created_at).toISOString().slice(0, 10);
      byDay.set(day, (byDay.get(day) ?? 0) + row.amount_nano);
    }
    return [...byDay.entries()].map(([day, nano]) => ({ day, nano }));
  }

  async ledgerFor(accountId: string, limit = 100): Promise<LedgerRow[]> {
    return this.store.db
      .selectFrom('ledger')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }
}
