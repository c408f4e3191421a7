// Accounts, holds and the ledger. Every money movement is one immediate transaction that writes
// the account row and a ledger row together, so the invariants hold at every moment:
//   balance = top-ups - charges;  available = balance + allowance left - active holds >= 0;
//   every hold ends exactly once (consumed or released).
import type { AccessType, BalanceView } from '../../../shared/api-types.js';
import type { Clock } from '../clock.js';
import { GatewayError } from '../errors.js';
import { newId } from '../ids.js';
import { silentLogger, type Logger } from '../logger.js';
import type { Db, Store } from '../store/database.js';
import type { AccountRow, HoldRow, LedgerRow } from '../store/schema.js';
import { allowanceLeft, availableNano, type HoldResult } from './hold-ledger.js';
import { formatUsd } from './money.js';
import type { MoneyMoves } from './money-moves.js';
import { PgMoneyMoves } from './pg-money-moves.js';
import type { RequestHold } from './request-holds.js';
import { SqliteMoneyMoves } from './sqlite-money-moves.js';

export { allowanceLeft, availableNano, type HoldResult } from './hold-ledger.js';
export type { RequestHold } from './request-holds.js';

type ChangeListener = (accountId: string) => void;

export class BillingService {
  private readonly listeners = new Set<ChangeListener>();
  private readonly moves: MoneyMoves;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    periodMs: number = 30 * 86_400_000,
    /** Team mode: the instance its image holds are stored under (pg-money-moves.ts). */
    team: { instanceId: string; logger?: Logger } | null = null,
  ) {
    this.moves =
      store.dialect === 'postgres'
        ? new PgMoneyMoves(store, clock, periodMs, team?.instanceId ?? newId('inst', 12), team?.logger ?? silentLogger)
        : new SqliteMoneyMoves(store, clock, periodMs);
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
    // Whole nano-USD: an amount computed in floating point (K x $0.40) must not store a fraction
    // (PostgreSQL's bigint refuses one; SQLite would keep a REAL in an integer column).
    balanceNano = Math.round(balanceNano);
    allowanceNano = Math.round(allowanceNano);
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

  /** Inside the caller's transaction. */
  private async topUpIn(trx: Db, accountId: string, amountNano: number, ref: string): Promise<void> {
    await this.moves.topUpIn(trx, accountId, amountNano, ref);
    this.changed(accountId);
  }

  /** A key's new access type and/or allowance; 400 when its active holds would be left uncovered (see HoldLedger). */
  async changeTerms(accountId: string, changes: { access?: AccessType; allowanceNano?: number }): Promise<void> {
    await this.moves.changeTerms(accountId, changes);
    this.changed(accountId);
  }

  async view(accountId: string): Promise<BalanceView> {
    const a = await this.moves.account(accountId);
    const inFlight = this.moves.inFlight(accountId);
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
    const hold = await this.moves.reserve(accountId, amountNano, purpose, ref);
    this.changed(accountId);
    return hold;
  }

  /**
   * A hold for the length of one synchronous request (an image), refused with 402 like
   * reserve(). On SQLite it is kept in memory only and its charge is the one write (see
   * request-holds.ts); in team mode it is a stored hold every instance sees.
   */
  async reserveRequest(accountId: string, amountNano: number, purpose: string, ref: string | null): Promise<RequestHold> {
    const hold: RequestHold = { holdId: newId('hold', 16), accountId, amountNano, purpose, ref, createdAt: this.clock.now() };
    await this.moves.reserveRequest(hold);
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
    try {
      return await this.moves.consumeRequest(hold, chargeNano);
    } finally {
      this.changed(hold.accountId);
    }
  }

  /**
   * Ends a request hold with no charge (nothing to write on SQLite). False when it had already
   * ended. In team mode the release is a write, hence the promise.
   */
  releaseRequest(hold: RequestHold): boolean | Promise<boolean> {
    const released = this.moves.releaseRequest(hold);
    const told = (done: boolean): boolean => {
      if (done) this.changed(hold.accountId);
      return done;
    };
    return typeof released === 'boolean' ? told(released) : released.then(told);
  }

  /**
   * Inside a creation's transaction, before its idempotency check: the transaction then has the
   * account to itself until it commits, so two instances given one Idempotency-Key at once make
   * one task (the second finds the first's key).
   */
  lockAccountIn(trx: Db, accountId: string): Promise<void> {
    return this.moves.lockAccountIn(trx, accountId);
  }

  /** reserve() inside the caller's transaction (with the idempotency check and task insert). */
  async reserveIn(trx: Db, accountId: string, amountNano: number, purpose: string, ref: string | null): Promise<HoldResult> {
    const hold = await this.moves.reserveIn(trx, accountId, amountNano, purpose, ref);
    this.changed(accountId);
    return hold;
  }

  /**
   * Ends a hold by charging `chargeNano` (allowance first, then balance). A charge above the hold
   * (an upstream reporting more usage than estimated) is capped at what the account can cover.
   * Returns the amount charged, or null when the hold had already ended.
   */
  async consume(holdId: string, chargeNano: number): Promise<number | null> {
    const result = await this.moves.consume(holdId, chargeNano);
    if (result) this.changed(result.accountId);
    return result?.charged ?? null;
  }

  /** consume() inside the caller's transaction, so a task's terminal status and its hold end together. */
  async consumeIn(trx: Db, holdId: string, chargeNano: number): Promise<number | null> {
    const result = await this.moves.consumeIn(trx, holdId, chargeNano);
    if (result) this.changed(result.accountId);
    return result?.charged ?? null;
  }

  /** Releases a hold; returns false when it had already ended (so callers can be idempotent). */
  async release(holdId: string): Promise<boolean> {
    const accountId = await this.moves.release(holdId);
    if (accountId) this.changed(accountId);
    return accountId !== null;
  }

  async releaseIn(trx: Db, holdId: string): Promise<boolean> {
    const accountId = await this.moves.releaseIn(trx, holdId);
    if (accountId) this.changed(accountId);
    return accountId !== null;
  }

  /**
   * Holds of synchronous requests cannot outlive their process. On SQLite, request holds are
   * never stored active: this releases image holds stored by versions before them, left by a
   * crash. In team mode, those of instances that died (the others call it as they beat).
   */
  async releaseOrphans(purpose: string): Promise<number> {
    let released = 0;
    for (const id of await this.moves.orphans(purpose)) if (await this.release(id)) released++;
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
    return [...stored, ...this.moves.requestHoldRows(accountId)].sort((a, b) => b.created_at - a.created_at);
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
