// The money moves themselves, as synchronous prepared statements on the raw connection: every
// method must run inside a transaction (Store.txSync, or Store.tx around it). Being synchronous,
// a move can never interleave with another; prepared statements keep the image hot path to
// tens of microseconds instead of a Kysely round trip per statement.
import type { Clock } from '../clock.js';
import { GatewayError } from '../errors.js';
import { newId } from '../ids.js';
import type { RawDb } from '../store/database.js';
import type { AccountRow, HoldRow, LedgerRow } from '../store/schema.js';
import { formatUsd } from './money.js';

export const allowanceLeft = (a: AccountRow): number => Math.max(0, a.allowance_nano - a.allowance_used_nano);
export const availableNano = (a: AccountRow): number => a.balance_nano + allowanceLeft(a) - a.held_nano;

export interface HoldResult {
  holdId: string;
  amountNano: number;
}

export class HoldLedger {
  private readonly account;
  private readonly holdById;
  private readonly insertHold;
  private readonly endHoldStmt;
  private readonly addHeld;
  private readonly settle;
  private readonly addBalance;
  private readonly insertLedger;

  private readonly resetPeriod;

  constructor(
    raw: RawDb,
    private readonly clock: Clock,
    /** Length of a pro allowance period. */
    private readonly periodMs: number,
  ) {
    this.account = raw.prepare('select * from accounts where id = ?');
    this.resetPeriod = raw.prepare('update accounts set allowance_used_nano = 0, period_started_at = ? where id = ?');
    this.holdById = raw.prepare("select * from holds where id = ? and status = 'active'");
    this.insertHold = raw.prepare(
      "insert into holds (id, account_id, amount_nano, status, purpose, ref, charged_nano, created_at, settled_at) values (?, ?, ?, 'active', ?, ?, 0, ?, null)",
    );
    this.endHoldStmt = raw.prepare("update holds set status = ?, charged_nano = ?, settled_at = ? where id = ? and status = 'active'");
    this.addHeld = raw.prepare('update accounts set held_nano = held_nano + ? where id = ?');
    this.settle = raw.prepare(
      'update accounts set held_nano = held_nano - ?, allowance_used_nano = allowance_used_nano + ?, balance_nano = balance_nano - ? where id = ?',
    );
    this.addBalance = raw.prepare('update accounts set balance_nano = balance_nano + ? where id = ?');
    this.insertLedger = raw.prepare(
      'insert into ledger (account_id, kind, amount_nano, balance_delta_nano, allowance_delta_nano, hold_id, ref, created_at) values (?, ?, ?, ?, ?, ?, ?, ?)',
    );
  }

  /** The account, with its allowance period rolled forward when one has ended. */
  getAccount(accountId: string): AccountRow {
    const row = this.account.get(accountId) as AccountRow | undefined;
    if (!row) throw new GatewayError('not_found', `No account ${accountId}.`, 'account_id');
    const elapsed = this.clock.now() - row.period_started_at;
    if (elapsed < this.periodMs) return row;
    const started = row.period_started_at + Math.floor(elapsed / this.periodMs) * this.periodMs;
    this.resetPeriod.run(started, row.id);
    return { ...row, allowance_used_nano: 0, period_started_at: started };
  }

  topUp(accountId: string, amountNano: number, ref: string): void {
    this.addBalance.run(amountNano, accountId);
    this.ledger(accountId, 'top_up', amountNano, amountNano, 0, null, ref);
  }

  /** Reserves `amountNano` or refuses with 402; nothing is written on refusal. */
  reserve(accountId: string, amountNano: number, purpose: string, ref: string | null): HoldResult {
    const available = availableNano(this.getAccount(accountId));
    if (available < amountNano) {
      throw new GatewayError(
        'insufficient_balance',
        `Insufficient balance: this request needs $${formatUsd(amountNano)} but $${formatUsd(Math.max(0, available))} is available.`,
      );
    }
    const holdId = newId('hold', 16);
    this.insertHold.run(holdId, accountId, amountNano, purpose, ref, this.clock.now());
    this.addHeld.run(amountNano, accountId);
    this.ledger(accountId, 'reserve', amountNano, 0, 0, holdId, ref);
    return { holdId, amountNano };
  }

  /**
   * Ends a hold with a charge (allowance first, then balance), capped at what the account can
   * cover. Returns the charged amount and the account, or null when the hold had already ended.
   */
  consume(holdId: string, chargeNano: number): { charged: number; accountId: string } | null {
    const hold = this.holdById.get(holdId) as HoldRow | undefined;
    if (!hold) return null;
    const account = this.getAccount(hold.account_id);
    const charged = Math.max(0, Math.min(chargeNano, availableNano(account) + hold.amount_nano));
    const fromAllowance = Math.min(charged, allowanceLeft(account));
    const fromBalance = charged - fromAllowance;
    this.end(hold, 'consumed', charged);
    this.settle.run(hold.amount_nano, fromAllowance, fromBalance, hold.account_id);
    this.ledger(hold.account_id, 'consume', charged, -fromBalance, -fromAllowance, hold.id, hold.ref);
    return { charged, accountId: hold.account_id };
  }

  /** Ends a hold with no charge; returns the account, or null when it had already ended. */
  release(holdId: string): string | null {
    const hold = this.holdById.get(holdId) as HoldRow | undefined;
    if (!hold) return null;
    this.end(hold, 'released', 0);
    this.addHeld.run(-hold.amount_nano, hold.account_id);
    this.ledger(hold.account_id, 'release', hold.amount_nano, 0, 0, hold.id, hold.ref);
    return hold.account_id;
  }

  private end(hold: HoldRow, status: 'consumed' | 'released', charged: number): void {
    const result = this.endHoldStmt.run(status, charged, this.clock.now(), hold.id);
    // The transaction holds the write lock, so this can only fail if the row changed under us.
    if (Number(result.changes) !== 1) throw new Error(`hold ${hold.id} ended twice`);
  }

  private ledger(accountId: string, kind: LedgerRow['kind'], amount: number, balanceDelta: number, allowanceDelta: number, holdId: string | null, ref: string | null): void {
    this.insertLedger.run(accountId, kind, amount, balanceDelta, allowanceDelta, holdId, ref, this.clock.now());
  }
}
