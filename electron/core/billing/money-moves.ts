// How money moves on each store: SQLite's synchronous prepared statements with image holds in
// memory (sqlite-money-moves.ts), or PostgreSQL's locked rows that several instances share
// (pg-money-moves.ts). BillingService speaks this interface only.
import type { Db } from '../store/database.js';
import type { AccountRow, HoldRow } from '../store/schema.js';
import type { HoldResult } from './hold-ledger.js';
import type { RequestHold } from './request-holds.js';

export interface Charged {
  charged: number;
  accountId: string;
}

export interface MoneyMoves {
  topUpIn(trx: Db, accountId: string, amountNano: number, ref: string): Promise<void>;
  changeTerms(accountId: string, changes: { access?: string; allowanceNano?: number }): Promise<void>;
  /** The account with its allowance period rolled forward. */
  account(accountId: string): Promise<AccountRow>;
  /** What image requests in flight hold on the account beyond its stored held amount. */
  inFlight(accountId: string): number;
  reserve(accountId: string, amountNano: number, purpose: string, ref: string | null): Promise<HoldResult>;
  /** Inside the caller's transaction; lockAccountIn() first makes the transaction the account's alone. */
  reserveIn(trx: Db, accountId: string, amountNano: number, purpose: string, ref: string | null): Promise<HoldResult>;
  lockAccountIn(trx: Db, accountId: string): Promise<void>;
  consume(holdId: string, chargeNano: number): Promise<Charged | null>;
  consumeIn(trx: Db, holdId: string, chargeNano: number): Promise<Charged | null>;
  release(holdId: string): Promise<string | null>;
  releaseIn(trx: Db, holdId: string): Promise<string | null>;
  reserveRequest(hold: RequestHold): Promise<void>;
  consumeRequest(hold: RequestHold, chargeNano: number): Promise<number | null>;
  releaseRequest(hold: RequestHold): boolean | Promise<boolean>;
  /** Image holds not stored as rows (in this process's memory), shaped as rows. */
  requestHoldRows(accountId: string): HoldRow[];
  /** Active holds of `purpose` that nobody is serving any more (a crash): the ones to release at start. */
  orphans(purpose: string): Promise<string[]>;
}
