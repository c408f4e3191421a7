import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGateway, startBackgroundWork, type Gateway } from '../../electron/core/gateway.js';
import { tempDir, USD } from '../helpers/gateway.js';
import type { RequestHold } from '../../electron/core/billing/billing-service.js';
import { rmSync } from 'node:fs';

let gateway: Gateway;
let dir: string;
beforeEach(async () => {
  dir = tempDir();
  gateway = await createGateway({ dataDir: dir });
});
afterEach(async () => {
  await gateway.close();
  rmSync(dir, { recursive: true, force: true });
});

async function invariants(accountId: string) {
  const account = await gateway.billing.getAccount(accountId);
  const ledger = await gateway.store.db.selectFrom('ledger').selectAll().where('account_id', '=', accountId).execute();
  const holds = await gateway.store.db.selectFrom('holds').selectAll().where('account_id', '=', accountId).execute();
  const topUps = ledger.filter((r) => r.kind === 'top_up').reduce((s, r) => s + r.amount_nano, 0);
  const charges = ledger.filter((r) => r.kind === 'consume').reduce((s, r) => s - r.balance_delta_nano, 0);
  expect(account.balance_nano).toBe(topUps - charges);
  const active = holds.filter((h) => h.status === 'active').reduce((s, h) => s + h.amount_nano, 0);
  expect(account.held_nano).toBe(active);
  expect(account.balance_nano + Math.max(0, account.allowance_nano - account.allowance_used_nano) - account.held_nano).toBeGreaterThanOrEqual(0);
  // Every ended hold has exactly one ending ledger row; active ones none.
  for (const hold of holds) {
    const endings = ledger.filter((r) => r.hold_id === hold.id && (r.kind === 'consume' || r.kind === 'release'));
    expect(endings).toHaveLength(hold.status === 'active' ? 0 : 1);
  }
}

describe('balances stay exact', () => {
  it('a top-up that would take a balance past Number.MAX_SAFE_INTEGER nano-USD is refused, the balance unchanged', async () => {
    const { key } = await gateway.keys.create({ access: 'balance', balanceNano: Number.MAX_SAFE_INTEGER - 5 });
    // Past 2^53 a nano-USD count is no longer exact (2^53 + 1 reads back as 2^53).
    await expect(gateway.billing.topUp(key.account_id, 6)).rejects.toMatchObject({ status: 400, code: 'invalid_request', param: 'amount' });
    await gateway.billing.topUp(key.account_id, 5);
    expect((await gateway.billing.getAccount(key.account_id)).balance_nano).toBe(Number.MAX_SAFE_INTEGER);
    await expect(gateway.billing.topUp(key.account_id, 1)).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/9007199\.254740991 USD/) });
    expect(await gateway.billing.ledgerFor(key.account_id)).toHaveLength(2);
    await invariants(key.account_id);
  });
});

describe('billing holds', () => {
  it('reserve, consume and release keep the invariants and end each hold once', async () => {
    const { key } = await gateway.keys.create({ access: 'balance', balanceNano: 10 * USD });
    const a = await gateway.billing.reserve(key.account_id, 3 * USD, 'video', 't1');
    const b = await gateway.billing.reserve(key.account_id, 2 * USD, 'video', 't2');
    expect((await gateway.billing.view(key.account_id)).available_usd).toBe('5.00000000');
    expect(await gateway.billing.consume(a.holdId, 3 * USD)).toBe(3 * USD);
    expect(await gateway.billing.consume(a.holdId, 3 * USD)).toBeNull();
    expect(await gateway.billing.release(a.holdId)).toBe(false);
    expect(await gateway.billing.release(b.holdId)).toBe(true);
    expect(await gateway.billing.release(b.holdId)).toBe(false);
    expect(await gateway.billing.view(key.account_id)).toMatchObject({
      balance_usd: '7.00000000',
      holds_usd: '0.00000000',
      available_usd: '7.00000000',
    });
    await invariants(key.account_id);
  });

  it('refuses a reserve above the available amount and writes nothing', async () => {
    const { key } = await gateway.keys.create({ access: 'balance', balanceNano: USD });
    await expect(gateway.billing.reserve(key.account_id, USD + 10, 'image', null)).rejects.toMatchObject({
      code: 'insufficient_balance',
      status: 402,
    });
    expect(await gateway.billing.ledgerFor(key.account_id)).toHaveLength(1); // the top-up only
  });

  it('under 200 concurrent reserves against a balance for exactly K, exactly K succeed', async () => {
    const K = 37;
    const { key } = await gateway.keys.create({ access: 'balance', balanceNano: K * 10_000_000 });
    const results = await Promise.allSettled(
      Array.from({ length: 200 }, (_, i) => gateway.billing.reserve(key.account_id, 10_000_000, 'video', `t${i}`)),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(K);
    expect(results.filter((r) => r.status === 'rejected').every((r) => (r as PromiseRejectedResult).reason.code === 'insufficient_balance')).toBe(true);
    expect((await gateway.billing.view(key.account_id)).available_usd).toBe('0.00000000');
    await invariants(key.account_id);
  });

  it('a pro account pays from its allowance first, then its balance; overage is capped at what is available', async () => {
    const { key } = await gateway.keys.create({ access: 'pro', allowanceNano: USD, balanceNano: USD });
    const hold = await gateway.billing.reserve(key.account_id, 1.5 * USD, 'image', null);
    expect(await gateway.billing.consume(hold.holdId, 1.5 * USD)).toBe(1.5 * USD);
    expect(await gateway.billing.view(key.account_id)).toMatchObject({ allowance_remaining_usd: '0.00000000', balance_usd: '0.50000000' });
    const second = await gateway.billing.reserve(key.account_id, 0.1 * USD, 'image', null);
    // The provider reported more usage than held: charge what the account can cover, never below zero.
    expect(await gateway.billing.consume(second.holdId, 5 * USD)).toBe(0.5 * USD);
    expect((await gateway.billing.view(key.account_id)).available_usd).toBe('0.00000000');
    await invariants(key.account_id);
  });

  it('releases image holds orphaned by a crash', async () => {
    const { key } = await gateway.keys.create({ access: 'balance', balanceNano: USD });
    await gateway.billing.reserve(key.account_id, USD / 2, 'image', null);
    await gateway.billing.reserve(key.account_id, USD / 4, 'video', null);
    expect(await gateway.billing.releaseOrphans('image')).toBe(1);
    expect((await gateway.billing.view(key.account_id)).holds_usd).toBe('0.25000000');
    await invariants(key.account_id);
  });

  it('the next server start releases image holds a crash left stored (older versions stored them); video holds stay', async () => {
    const { key } = await gateway.keys.create({ access: 'balance', balanceNano: USD });
    await gateway.billing.reserve(key.account_id, USD / 2, 'image', null);
    await gateway.billing.reserve(key.account_id, USD / 4, 'video', null);
    await gateway.close();
    gateway = await createGateway({ dataDir: dir });
    await startBackgroundWork(gateway, 'test');
    expect((await gateway.billing.view(key.account_id)).holds_usd).toBe('0.25000000');
    await invariants(key.account_id);
  });

  it('request holds (images) count against availability in memory; only a charge is written', async () => {
    const { key } = await gateway.keys.create({ access: 'balance', balanceNano: 10 * USD });
    const ledgerRows = () => gateway.store.db.selectFrom('ledger').selectAll().where('account_id', '=', key.account_id).where('kind', '!=', 'top_up').execute();
    const first = await gateway.billing.reserveRequest(key.account_id, 4 * USD, 'image', 'm');
    const second = await gateway.billing.reserveRequest(key.account_id, 3 * USD, 'image', 'm');
    expect(await gateway.billing.view(key.account_id)).toMatchObject({ holds_usd: '7.00000000', available_usd: '3.00000000', balance_usd: '10.00000000' });
    expect((await gateway.billing.activeHolds(key.account_id)).map((h) => h.id).sort()).toEqual([first.holdId, second.holdId].sort());
    // Nothing stored, and a video reserve sees the in-flight amount.
    expect(await gateway.store.db.selectFrom('holds').select('id').execute()).toEqual([]);
    expect(await ledgerRows()).toEqual([]);
    await expect(gateway.billing.reserve(key.account_id, 4 * USD, 'video', 't')).rejects.toMatchObject({ code: 'insufficient_balance' });
    await expect(gateway.billing.reserveRequest(key.account_id, 4 * USD, 'image', 'm')).rejects.toMatchObject({ code: 'insufficient_balance' });

    // Usage above the hold that the account cannot cover without the other hold's money (9 > 10 - 3):
    // refused whole with 402, nothing charged, the hold over.
    await expect(gateway.billing.consumeRequest(first, 9 * USD)).rejects.toMatchObject({ code: 'insufficient_balance' });
    expect(await gateway.billing.consumeRequest(first, USD)).toBeNull();
    expect(await gateway.billing.view(key.account_id)).toMatchObject({ holds_usd: '3.00000000', available_usd: '7.00000000', balance_usd: '10.00000000' });
    expect(gateway.billing.releaseRequest(second)).toBe(true);
    expect(gateway.billing.releaseRequest(second)).toBe(false);
    expect(await gateway.billing.consumeRequest(second, USD)).toBeNull();
    // Usage above the hold that the account can cover is charged in full.
    const third = await gateway.billing.reserveRequest(key.account_id, USD, 'image', 'm');
    expect(await gateway.billing.consumeRequest(third, 6 * USD)).toBe(6 * USD);
    expect(await gateway.billing.view(key.account_id)).toMatchObject({ holds_usd: '0.00000000', available_usd: '4.00000000', balance_usd: '4.00000000' });
    expect(await gateway.billing.activeHolds(key.account_id)).toEqual([]);

    expect(await gateway.store.db.selectFrom('holds').select('id').execute()).toEqual([]);
    expect((await ledgerRows()).map((r) => [r.kind, r.amount_nano, r.balance_delta_nano, r.hold_id, r.ref])).toEqual([['consume', 6 * USD, -6 * USD, null, 'm']]);
    await invariants(key.account_id);
  });

  it('request holds started together are each checked and counted in one step: together they never hold more than is available', async () => {
    // The billing model's minimal case: three images at once against $0.01 all passed the check
    // before any was counted, and the one that fitted was then refused at its charge.
    const { key } = await gateway.keys.create({ access: 'balance', balanceNano: 10_000_000 });
    const results = await Promise.allSettled([257_000, 2_305_000, 10_000_000].map((nano) => gateway.billing.reserveRequest(key.account_id, nano, 'image', 'm')));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    expect(await gateway.billing.view(key.account_id)).toMatchObject({ holds_usd: '0.00256200', available_usd: '0.00743800' });
    const [cheap, dear] = results.map((r) => (r as PromiseFulfilledResult<RequestHold>).value);
    expect(await gateway.billing.consumeRequest(cheap!, 257_000)).toBe(257_000);
    expect(await gateway.billing.consumeRequest(dear!, 2_305_000)).toBe(2_305_000);
    expect(await gateway.billing.view(key.account_id)).toMatchObject({ balance_usd: '0.00743800', available_usd: '0.00743800' });
    await invariants(key.account_id);
  });

  it('a pro account pays request holds from its allowance first', async () => {
    const { key } = await gateway.keys.create({ access: 'pro', allowanceNano: USD, balanceNano: USD });
    const hold = await gateway.billing.reserveRequest(key.account_id, 1.5 * USD, 'image', 'm');
    expect(await gateway.billing.consumeRequest(hold, 1.5 * USD)).toBe(1.5 * USD);
    expect(await gateway.billing.view(key.account_id)).toMatchObject({ allowance_remaining_usd: '0.00000000', balance_usd: '0.50000000' });
    await invariants(key.account_id);
  });

  it('a request hold whose charge cannot be written ends uncharged', async () => {
    const { key } = await gateway.keys.create({ access: 'balance', balanceNano: 10 * USD });
    const hold = await gateway.billing.reserveRequest(key.account_id, 2 * USD, 'image', 'm');
    gateway.store.raw.pragma('query_only = 1');
    try {
      await expect(gateway.billing.consumeRequest(hold, 2 * USD)).rejects.toThrow();
    } finally {
      gateway.store.raw.pragma('query_only = 0');
    }
    expect(await gateway.billing.view(key.account_id)).toMatchObject({ holds_usd: '0.00000000', balance_usd: '10.00000000', available_usd: '10.00000000' });
    expect(await gateway.billing.consumeRequest(hold, 2 * USD)).toBeNull();
    await invariants(key.account_id);
  });

  it('charges finishing together share one transaction and charge exactly as one-by-one charges', async () => {
    const { key } = await gateway.keys.create({ access: 'balance', balanceNano: 10 * USD });
    const holds = await Promise.all([4, 3, 2].map((usd) => gateway.billing.reserveRequest(key.account_id, usd * USD, 'image', 'm')));
    const txSync = gateway.store.txSync;
    let transactions = 0;
    gateway.store.txSync = (fn) => {
      transactions++;
      return txSync(fn);
    };
    // The first reports more usage than held, within the free $1: charged in full.
    const charged = await Promise.all([
      gateway.billing.consumeRequest(holds[0]!, 5 * USD),
      gateway.billing.consumeRequest(holds[1]!, 3 * USD),
      gateway.billing.consumeRequest(holds[2]!, 2 * USD),
      gateway.billing.consumeRequest(holds[2]!, 2 * USD), // a second end of the same hold
    ]);
    gateway.store.txSync = txSync;
    expect(charged).toEqual([5 * USD, 3 * USD, 2 * USD, null]);
    expect(transactions).toBe(1);
    expect(await gateway.billing.view(key.account_id)).toMatchObject({ holds_usd: '0.00000000', balance_usd: '0.00000000' });
    await invariants(key.account_id);
  });

  it('a charge in a batch that the account cannot cover is refused alone; the others are charged', async () => {
    const { key } = await gateway.keys.create({ access: 'balance', balanceNano: 10 * USD });
    const holds = await Promise.all([4, 3].map((usd) => gateway.billing.reserveRequest(key.account_id, usd * USD, 'image', 'm')));
    // The first may not take the other hold's money: 9 > 10 - 3.
    const results = await Promise.allSettled([gateway.billing.consumeRequest(holds[0]!, 9 * USD), gateway.billing.consumeRequest(holds[1]!, 3 * USD)]);
    expect(results[0]).toMatchObject({ status: 'rejected', reason: { code: 'insufficient_balance' } });
    expect(results[1]).toEqual({ status: 'fulfilled', value: 3 * USD });
    expect(await gateway.billing.view(key.account_id)).toMatchObject({ holds_usd: '0.00000000', balance_usd: '7.00000000' });
    await invariants(key.account_id);
  });

  it('a batch whose transaction fails charges each of its holds again alone', async () => {
    const { key } = await gateway.keys.create({ access: 'balance', balanceNano: 10 * USD });
    const other = await gateway.keys.create({ access: 'balance', balanceNano: 10 * USD });
    const good = await gateway.billing.reserveRequest(key.account_id, USD, 'image', 'm');
    const doomed = await gateway.billing.reserveRequest(other.key.account_id, USD, 'image', 'm');
    // The doomed account disappears before its charge: its write throws, the batch rolls back.
    for (const table of ['api_keys', 'ledger'] as const) await gateway.store.db.deleteFrom(table).where('account_id', '=', other.key.account_id).execute();
    await gateway.store.db.deleteFrom('accounts').where('id', '=', other.key.account_id).execute();
    const [okCharge, failed] = await Promise.allSettled([gateway.billing.consumeRequest(good, USD), gateway.billing.consumeRequest(doomed, USD)]);
    expect(okCharge).toEqual({ status: 'fulfilled', value: USD });
    expect(failed).toMatchObject({ status: 'rejected', reason: { code: 'not_found' } });
    expect(await gateway.billing.view(key.account_id)).toMatchObject({ holds_usd: '0.00000000', balance_usd: '9.00000000' });
    await invariants(key.account_id);
  });

  it('stores only the hash of a key token', async () => {
    const { key, token } = await gateway.keys.create({ access: 'free' });
    const row = await gateway.store.db.selectFrom('api_keys').selectAll().where('id', '=', key.id).executeTakeFirstOrThrow();
    // The secret is everything after mgw_<12-char id>_ (base64url, so it may itself contain '_').
    expect(JSON.stringify(row)).not.toContain(token.slice('mgw_'.length + 12 + 1));
    expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect((await gateway.keys.authenticate(token)).keyId).toBe(key.id);
  });
});

describe('store', () => {
  it('runs in WAL mode with foreign keys on', async () => {
    const { sql } = await import('kysely');
    const journal = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(gateway.store.db);
    const fk = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(gateway.store.db);
    expect(journal.rows[0]?.journal_mode).toBe('wal');
    expect(fk.rows[0]?.foreign_keys).toBe(1);
  });
});
