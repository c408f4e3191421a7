// Shared pieces of the reliability suite: a seeded PRNG, a gateway wired to both emulated
// upstreams with the options the suite needs (scheduler, limits, timeouts), and the ledger
// checks every file runs (each hold ends exactly once, balance = top-ups - charges, ...).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Database } from '../../electron/core/store/schema.js';
import type { Kysely } from 'kysely';
import { startUpstreams, type UpstreamOptions, type UpstreamSetup } from '../helpers/upstreams.js';

/** mulberry32: small, fast, good enough to pick fault moments reproducibly. */
export function prng(seed: number): { next(): number; int(min: number, max: number): number; pick<T>(items: readonly T[]): T; chance(p: number): boolean } {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => items[Math.floor(next() * items.length)]!,
    chance: (p) => next() < p,
  };
}

/** The seed of a file: REL_SEED=<n> overrides it, so a failing run can be replayed exactly. */
export function seedFor(defaultSeed: number): number {
  const fromEnv = Number(process.env.REL_SEED);
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : defaultSeed;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Prices of the emulated video models, in nano-USD per second (see startReliabilityUpstreams). */
export const PRICE_PER_SECOND_NANO: Record<string, number> = {
  'up-video': 100_000_000,
  'fal-video': 70_000_000,
};

export type ReliabilityUpstreams = UpstreamSetup;

/** The shared upstream setup (providers "up" and "fal", their models and prices) with reliability options. */
export const startReliabilityUpstreams = (options: UpstreamOptions = {}): Promise<ReliabilityUpstreams> => startUpstreams(options);

export interface LedgerProblem {
  accountId?: string;
  holdId?: string;
  problem: string;
}

/**
 * Every money invariant over the whole database, as a list of problems (empty when all hold), so
 * a failing test prints every broken hold at once instead of the first:
 *  - a hold ended at most once; an ended hold has exactly one consume-or-release row, an active
 *    one none; `requireEnded`: no hold is active;
 *  - status consumed <-> a consume row, released <-> a release row; charged_nano = consume amount;
 *  - per account: balance = top-ups - charges; held = sum of active holds; available >= 0.
 */
export async function ledgerProblems(db: Kysely<Database>, options: { requireEnded?: boolean } = {}): Promise<LedgerProblem[]> {
  const problems: LedgerProblem[] = [];
  const accounts = await db.selectFrom('accounts').selectAll().execute();
  const holds = await db.selectFrom('holds').selectAll().execute();
  const ledger = await db.selectFrom('ledger').selectAll().execute();
  const endings = new Map<string, { kind: string; amount: number }[]>();
  for (const row of ledger) {
    if (!row.hold_id || (row.kind !== 'consume' && row.kind !== 'release')) continue;
    const list = endings.get(row.hold_id) ?? [];
    list.push({ kind: row.kind, amount: row.amount_nano });
    endings.set(row.hold_id, list);
  }
  for (const hold of holds) {
    const ends = endings.get(hold.id) ?? [];
    const where = { accountId: hold.account_id, holdId: hold.id };
    if (hold.status === 'active') {
      if (ends.length !== 0) problems.push({ ...where, problem: `active hold (${hold.purpose} ${hold.ref}) already has ${ends.map((e) => e.kind).join('+')} rows` });
      if (options.requireEnded) problems.push({ ...where, problem: `hold never ended (${hold.purpose} ${hold.ref}, ${hold.amount_nano} nano)` });
      continue;
    }
    if (ends.length !== 1) {
      problems.push({ ...where, problem: `${hold.status} hold (${hold.purpose} ${hold.ref}) has ${ends.length} ending rows: ${ends.map((e) => e.kind).join('+') || 'none'}` });
      continue;
    }
    const end = ends[0]!;
    if ((hold.status === 'consumed') !== (end.kind === 'consume')) problems.push({ ...where, problem: `status ${hold.status} but ledger says ${end.kind}` });
    if (hold.status === 'consumed' && end.amount !== hold.charged_nano) problems.push({ ...where, problem: `charged_nano ${hold.charged_nano} != consume amount ${end.amount}` });
  }
  for (const account of accounts) {
    const rows = ledger.filter((r) => r.account_id === account.id);
    const topUps = rows.filter((r) => r.kind === 'top_up').reduce((s, r) => s + r.amount_nano, 0);
    const charges = rows.filter((r) => r.kind === 'consume').reduce((s, r) => s - r.balance_delta_nano, 0);
    const active = holds.filter((h) => h.account_id === account.id && h.status === 'active').reduce((s, h) => s + h.amount_nano, 0);
    const deltas = rows.reduce((s, r) => s + r.balance_delta_nano, 0);
    if (account.balance_nano !== topUps - charges) problems.push({ accountId: account.id, problem: `balance ${account.balance_nano} != top-ups ${topUps} - charges ${charges}` });
    if (account.balance_nano !== deltas) problems.push({ accountId: account.id, problem: `balance ${account.balance_nano} != sum of ledger balance deltas ${deltas}` });
    if (account.held_nano !== active) problems.push({ accountId: account.id, problem: `held ${account.held_nano} != active holds ${active}` });
    const available = account.balance_nano + Math.max(0, account.allowance_nano - account.allowance_used_nano) - account.held_nano;
    if (available < 0) problems.push({ accountId: account.id, problem: `available ${available} < 0` });
    if (options.requireEnded && account.held_nano !== 0) problems.push({ accountId: account.id, problem: `held ${account.held_nano} != 0 at the end` });
  }
  return problems;
}

const RESULTS = join(dirname(fileURLToPath(import.meta.url)), '../../test-results/reliability.json');

/** Merges `entry` under `name` into test-results/reliability.json. */
export function writeResult(name: string, entry: unknown): void {
  mkdirSync(dirname(RESULTS), { recursive: true });
  let all: Record<string, unknown> = {};
  try {
    all = JSON.parse(readFileSync(RESULTS, 'utf8')) as Record<string, unknown>;
  } catch {
    all = {};
  }
  all[name] = entry;
  writeFileSync(RESULTS, `${JSON.stringify(all, null, 2)}\n`);
}

/** Runs `fn` over `items` with at most `limit` in flight. */
export async function pool<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
