// The money moves themselves, as synchronous prepared statements on the raw connection: every
// method must run inside a transaction (Store.txSync, or Store.tx around it). Being synchronous,
// a move can never interleave with another; prepared statements keep the image hot path to
// tens of microseconds instead of a Kysely round trip per statement.
import type { Clock } from '../clock.js';
import { GatewayError } from '../errors.js';
import { newId } from '../ids.js';
import type { RawDb } from '../store/raw-db.js';
import type { AccountRow, HoldRow, LedgerRow } from '../store/schema.js';
import { MAX_USD_AMOUNT } from '../../../shared/usd-amount.js';
import { formatUsd } from './money.js';
import type { RequestHold } from './request-holds.js';

/** Only pro access pays from an allowance; one kept from earlier pro access waits unspent. */
export const allowanceLeft = (a: AccountRow): number =>
  a.access_type === 'pro' ? Math.max(0, a.allowance_nano - a.allowance_used_nano) : 0;
export const availableNano = (a: AccountRow): number => a.balance_nano + allowanceLeft(a) - a.held_nano;

/** The 402 of a reserve that the available money does not cover. */
export const insufficient = (amountNano: number, available: number): GatewayError =>
  new GatewayError('insufficient_balance', `Insufficient balance: this request needs $${formatUsd(amountNano)} but $${formatUsd(Math.max(0, available))} is available.`);

/**
 * Why a change of terms (access type, allowance) is refused, or null: one that would leave the
 * account's active holds uncovered. Those holds were reserved against the money it had, and a
 * video that completes is charged its full hold, never less.
 */
export function termsProblem(before: AccountRow, after: AccountRow, inFlight: number, changes: { access?: string }): GatewayError | null {
  const left = availableNano(after) - inFlight;
  if (left >= 0 || left >= availableNano(before) - inFlight) return null;
  const held = after.held_nano + inFlight;
  return new GatewayError(
    'invalid_request',
    `This key has $${formatUsd(held)} held by requests still running, and with ${after.access_type} access and this allowance its money would cover only $${formatUsd(held + left)} of it: top it up by $${formatUsd(-left)}, or let those requests end (or cancel its videos), then change it.`,
    changes.access !== undefined ? 'access' : 'allowance_usd',
  );
}

type AccountValues = [string, string, number, number, number, number, number, number];

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
  private readonly setTerms;

  constructor(
    private readonly raw: RawDb,
    private readonly clock: Clock,
    /** Length of a pro allowance period. */
    private readonly periodMs: number,
    /** What the account's in-memory request holds keep back (see request-holds.ts). */
    private readonly inFlight: (accountId: string) => number = () => 0,
  ) {
    // Array rows: libsql's object rows carry metadata that costs more than the read itself.
    this.account = raw
      .prepare('select id, access_type, balance_nano, allowance_nano, allowance_used_nano, held_nano, period_started_at, created_at from accounts where id = ?')
      .raw(true);
    this.resetPeriod = raw.prepare('update accounts set allowance_used_nano = 0, period_started_at = ? where id = ?');
    this.setTerms = raw.prepare('update accounts set access_type = ?, allowance_nano = ? where id = ?');
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
    const values = this.account.get(accountId) as AccountValues | undefined;
    if (!values) throw new GatewayError('not_found', `No account ${accountId}.`, 'account_id');
    const [id, access_type, balance_nano, allowance_nano, allowance_used_nano, held_nano, period_started_at, created_at] = values;
    const row: AccountRow = { id, access_type, balance_nano, allowance_nano, allowance_used_nano, held_nano, period_started_at, created_at };
    const elapsed = this.clock.now() - row.period_started_at;
    if (elapsed < this.periodMs) return row;
    const started = row.period_started_at + Math.floor(elapsed / this.periodMs) * this.periodMs;
    // Written only inside a transaction (every money move is one); a read outside one just sees
    // the rolled-forward values. A write there could meet another process's lock as a prepared
    // statement, which would leave the connection unable to commit (see store/lock-wait.ts).
    if (this.raw.inTransaction) this.resetPeriod.run(started, row.id);
    return { ...row, allowance_used_nano: 0, period_started_at: started };
  }

  topUp(accountId: string, amountNano: number, ref: string): void {
    // Past 2^53 nano-USD a balance is no longer an exact integer; one entry is capped there, and so is the sum.
    if (this.getAccount(accountId).balance_nano + amountNano > Number.MAX_SAFE_INTEGER) {
      throw new GatewayError('invalid_request', `This top-up would take the balance over ${MAX_USD_AMOUNT} USD, the most an account holds exactly.`, 'amount');
    }
    this.addBalance.run(amountNano, accountId);
    this.ledger(accountId, 'top_up', amountNano, amountNano, 0, null, ref);
  }

  /** Changes what an account pays with (its access type, its allowance per period); see termsProblem(). */
  changeTerms(accountId: string, changes: { access?: string; allowanceNano?: number }): void {
    const before = this.getAccount(accountId);
    const after: AccountRow = {
      ...before,
      access_type: changes.access ?? before.access_type,
      allowance_nano: changes.allowanceNano ?? before.allowance_nano,
    };
    const problem = termsProblem(before, after, this.inFlight(accountId), changes);
    if (problem) throw problem;
    this.setTerms.run(after.access_type, after.allowance_nano, accountId);
  }

  /** Refuses with 402 unless `amountNano` is available (stored availability less request holds). */
  checkAvailable(accountId: string, amountNano: number): void {
    const available = availableNano(this.getAccount(accountId)) - this.inFlight(accountId);
    if (available < amountNano) throw insufficient(amountNano, available);
  }

  /** Reserves `amountNano` or refuses with 402; nothing is written on refusal. */
  reserve(accountId: string, amountNano: number, purpose: string, ref: string | null): HoldResult {
    this.checkAvailable(accountId, amountNano);
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
    const split = this.split(hold.account_id, chargeNano, hold.amount_nano);
    this.end(hold, 'consumed', split.charged);
    this.settleCharge(hold.account_id, split, hold.amount_nano, hold.id, hold.ref);
    return { charged: split.charged, accountId: hold.account_id };
  }

  /**
   * Charges a request hold (see request-holds.ts): one ledger row (no hold row: the hold was
   * never stored) and the account. `ownInFlightNano` is what the hold itself still counts among
   * the account's in-memory holds (its amount, or 0 once it is out of memory). Returns the
   * amount charged: the full cost, never a part of it. A result that cost more than the hold
   * and more than the account can cover is refused with 402 and nothing is charged (its image
   * is not delivered), so a caller is neither undercharged nor drained by an upstream's usage.
   */
  chargeRequestHold(hold: RequestHold, chargeNano: number, ownInFlightNano: number): number {
    const split = this.split(hold.accountId, chargeNano, ownInFlightNano);
    if (split.charged < chargeNano) {
      throw new GatewayError(
        'insufficient_balance',
        `Insufficient balance: this result costs $${formatUsd(chargeNano)}, more than was held, and $${formatUsd(split.charged)} is available. Nothing was charged.`,
      );
    }
    this.settleCharge(hold.accountId, split, 0, null, hold.ref);
    return split.charged;
  }

  /**
   * A charge split between allowance (first) and balance, capped at what the account can cover:
   * its availability plus the hold being ended, less the account's other in-memory holds.
   */
  private split(accountId: string, chargeNano: number, storedHeldNano: number): { charged: number; fromAllowance: number; fromBalance: number } {
    const account = this.getAccount(accountId);
    const coverable = availableNano(account) + storedHeldNano - this.inFlight(accountId);
    const charged = Math.max(0, Math.min(chargeNano, coverable));
    const fromAllowance = Math.min(charged, allowanceLeft(account));
    return { charged, fromAllowance, fromBalance: charged - fromAllowance };
  }

  /** Moves the money of a split and lowers the stored held amount by `storedHeldNano`. */
  private settleCharge(accountId: string, split: { charged: number; fromAllowance: number; fromBalance: number }, storedHeldNano: number, holdId: string | null, ref: string | null): void {
    this.settle.run(storedHeldNano, split.fromAllowance, split.fromBalance, accountId);
    this.ledger(accountId, 'consume', split.charged, -split.fromBalance, -split.fromAllowance, holdId, ref);
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
