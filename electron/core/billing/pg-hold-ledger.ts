// The money moves on PostgreSQL (team mode): the same rules as hold-ledger.ts, as Kysely
// statements inside the caller's transaction. Each move locks its account row first (FOR
// UPDATE), so instances reserving against one balance take turns and the availability check and
// the hold it admits commit together: exactly the holds the money covers succeed, never more.
// Image holds are stored rows here (no process sees another's memory), tagged with the instance
// serving them, so a dead instance's are released by the others (team-heartbeat.ts).
import { sql } from 'kysely';
import type { Clock } from '../clock.js';
import { GatewayError } from '../errors.js';
import { newId } from '../ids.js';
import type { Db } from '../store/database.js';
import type { AccountRow, HoldRow, LedgerRow } from '../store/schema.js';
import { MAX_USD_AMOUNT } from '../../../shared/usd-amount.js';
import { allowanceLeft, availableNano, insufficient, termsProblem, type HoldResult } from './hold-ledger.js';
import { formatUsd } from './money.js';

export class PgHoldLedger {
  constructor(
    private readonly clock: Clock,
    private readonly periodMs: number,
    /** This instance, written on the image holds it stores. */
    private readonly instanceId: string,
  ) {}

  /** The account row locked until the transaction ends, its allowance period rolled forward. */
  async lockAccount(trx: Db, accountId: string): Promise<AccountRow> {
    const row = await trx.selectFrom('accounts').selectAll().where('id', '=', accountId).forUpdate().executeTakeFirst();
    if (!row) throw new GatewayError('not_found', `No account ${accountId}.`, 'account_id');
    const elapsed = this.clock.now() - row.period_started_at;
    if (elapsed < this.periodMs) return row;
    const started = row.period_started_at + Math.floor(elapsed / this.periodMs) * this.periodMs;
    await trx.updateTable('accounts').set({ allowance_used_nano: 0, period_started_at: started }).where('id', '=', accountId).execute();
    return { ...row, allowance_used_nano: 0, period_started_at: started };
  }

  async topUp(trx: Db, accountId: string, amountNano: number, ref: string): Promise<void> {
    const account = await this.lockAccount(trx, accountId);
    if (account.balance_nano + amountNano > Number.MAX_SAFE_INTEGER) {
      throw new GatewayError('invalid_request', `This top-up would take the balance over ${MAX_USD_AMOUNT} USD, the most an account holds exactly.`, 'amount');
    }
    await trx.updateTable('accounts').set({ balance_nano: sql`balance_nano + ${amountNano}` }).where('id', '=', accountId).execute();
    await this.ledger(trx, accountId, 'top_up', amountNano, amountNano, 0, null, ref);
  }

  async changeTerms(trx: Db, accountId: string, changes: { access?: string; allowanceNano?: number }): Promise<void> {
    const before = await this.lockAccount(trx, accountId);
    const after: AccountRow = { ...before, access_type: changes.access ?? before.access_type, allowance_nano: changes.allowanceNano ?? before.allowance_nano };
    const problem = termsProblem(before, after, 0, changes);
    if (problem) throw problem;
    await trx.updateTable('accounts').set({ access_type: after.access_type, allowance_nano: after.allowance_nano }).where('id', '=', accountId).execute();
  }

  async reserve(trx: Db, accountId: string, amountNano: number, purpose: string, ref: string | null, holdId = newId('hold', 16)): Promise<HoldResult> {
    const account = await this.lockAccount(trx, accountId);
    const available = availableNano(account);
    if (available < amountNano) throw insufficient(amountNano, available);
    const now = this.clock.now();
    await trx
      .insertInto('holds')
      .values({
        id: holdId,
        account_id: accountId,
        amount_nano: amountNano,
        status: 'active',
        purpose,
        ref,
        charged_nano: 0,
        created_at: now,
        settled_at: null,
        instance_id: purpose === 'image' ? this.instanceId : null,
      })
      .execute();
    await trx.updateTable('accounts').set({ held_nano: sql`held_nano + ${amountNano}` }).where('id', '=', accountId).execute();
    await this.ledger(trx, accountId, 'reserve', amountNano, 0, 0, holdId, ref);
    return { holdId, amountNano };
  }

  /**
   * Ends a hold with a charge (allowance first, then balance), capped at what the account can
   * cover; with `exact`, a charge it cannot cover in full is refused with 402 and nothing moves
   * (an image's result: see chargeRequestHold in hold-ledger.ts). Null when the hold had ended.
   */
  async consume(trx: Db, holdId: string, chargeNano: number, exact = false): Promise<{ charged: number; accountId: string } | null> {
    const hold = await this.activeHold(trx, holdId);
    if (!hold) return null;
    const account = await this.lockAccount(trx, hold.account_id);
    const coverable = availableNano(account) + hold.amount_nano;
    const charged = Math.max(0, Math.min(chargeNano, coverable));
    if (exact && charged < chargeNano) {
      throw new GatewayError(
        'insufficient_balance',
        `Insufficient balance: this result costs $${formatUsd(chargeNano)}, more than was held, and $${formatUsd(charged)} is available. Nothing was charged.`,
      );
    }
    const fromAllowance = Math.min(charged, allowanceLeft(account));
    const fromBalance = charged - fromAllowance;
    await this.end(trx, hold, 'consumed', charged);
    await trx
      .updateTable('accounts')
      .set({
        held_nano: sql`held_nano - ${hold.amount_nano}`,
        allowance_used_nano: sql`allowance_used_nano + ${fromAllowance}`,
        balance_nano: sql`balance_nano - ${fromBalance}`,
      })
      .where('id', '=', hold.account_id)
      .execute();
    await this.ledger(trx, hold.account_id, 'consume', charged, -fromBalance, -fromAllowance, hold.id, hold.ref);
    return { charged, accountId: hold.account_id };
  }

  /** Ends a hold with no charge; the account, or null when it had already ended. */
  async release(trx: Db, holdId: string): Promise<string | null> {
    const hold = await this.activeHold(trx, holdId);
    if (!hold) return null;
    await this.lockAccount(trx, hold.account_id);
    await this.end(trx, hold, 'released', 0);
    await trx.updateTable('accounts').set({ held_nano: sql`held_nano - ${hold.amount_nano}` }).where('id', '=', hold.account_id).execute();
    await this.ledger(trx, hold.account_id, 'release', hold.amount_nano, 0, 0, hold.id, hold.ref);
    return hold.account_id;
  }

  private async activeHold(trx: Db, holdId: string): Promise<HoldRow | undefined> {
    return trx.selectFrom('holds').selectAll().where('id', '=', holdId).where('status', '=', 'active').forUpdate().executeTakeFirst();
  }

  private async end(trx: Db, hold: HoldRow, status: 'consumed' | 'released', charged: number): Promise<void> {
    await trx.updateTable('holds').set({ status, charged_nano: charged, settled_at: this.clock.now() }).where('id', '=', hold.id).execute();
  }

  private async ledger(trx: Db, accountId: string, kind: LedgerRow['kind'], amount: number, balanceDelta: number, allowanceDelta: number, holdId: string | null, ref: string | null): Promise<void> {
    await trx
      .insertInto('ledger')
      .values({ account_id: accountId, kind, amount_nano: amount, balance_delta_nano: balanceDelta, allowance_delta_nano: allowanceDelta, hold_id: holdId, ref, created_at: this.clock.now() })
      .execute();
  }
}
