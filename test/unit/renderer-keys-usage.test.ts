import { describe, expect, it } from 'vitest';
import type { BalanceView, KeyInfo } from '../../shared/api-types.js';
import type { ActivityEntry, KeyUsage } from '../../shared/studio-contract.js';
import { formatCount } from '../../renderer/src/lib/format.js';
import { dailyQuota } from '../../renderer/src/lib/usage.js';
import { createKeysStore, type KeyRow } from '../../renderer/src/stores/keys-store.js';
import { connectStudioEvents, createStudioStores } from '../../renderer/src/stores/studio-stores.js';
import { StudioError } from '../../renderer/src/transport/studio-error.js';
import { createFakeClient, flush } from '../../renderer/test-support/fake-client.js';

const key = (id: string, overrides: Partial<KeyInfo> = {}): KeyInfo => ({
  id,
  label: id.replace(/^key_/, ''),
  access: 'balance',
  account_id: `acct_${id}`,
  token_hint: `mgw_${id}…`,
  created_at: '2026-11-20T10:00:00.000Z',
  revoked_at: null,
  ...overrides,
});

const balance = (k: KeyInfo, overrides: Partial<BalanceView> = {}): BalanceView => ({
  account_id: k.account_id,
  access: k.access,
  balance_usd: '1.00000000',
  allowance_remaining_usd: '0.00000000',
  holds_usd: '0.00000000',
  available_usd: '1.00000000',
  ...overrides,
});

const row = (k: KeyInfo): KeyRow => ({ ...k, balance: balance(k) });

const usage = (keyId: string, overrides: Partial<KeyUsage> = {}): KeyUsage => ({
  key_id: keyId,
  totals: { requests: 1, input_tokens: 120, output_tokens: 4160, spend_usd: '0.00125000' },
  tokens_today: 4280,
  daily_token_quota: null,
  by_day: [{ day: '2026-11-21', model: 'local-image', requests: 1, input_tokens: 120, output_tokens: 4160, spend_usd: '0.00125000' }],
  ...overrides,
});

const activity = (keyId: string | null, id = 1): ActivityEntry => ({
  id,
  at: 1_795_250_000_000,
  key_id: keyId,
  key_label: null,
  method: 'POST',
  endpoint: '/v1/images/generations',
  model: 'local-image',
  status: 200,
  latency_ms: 40,
  cost_usd: '0.00125000',
});

function setup(keys: KeyInfo[] = [key('key_a'), key('key_b')]) {
  const client = createFakeClient();
  client.handle('system.info', () => ({ version: '0.1.0', api_base_url: null, data_dir: '/tmp/x', owner_key_id: 'key_owner' }));
  client.handle('keys.list', () => ({ keys: keys.map(row) }));
  return { client, store: createKeysStore(client) };
}

/** The whole store wiring, with the events connected (billing.summary is not under test). */
function setupWired(keys: KeyInfo[] = [key('key_a'), key('key_b')]) {
  const client = createFakeClient();
  client.handle('system.info', () => ({ version: '0.1.0', api_base_url: null, data_dir: '/tmp/x', owner_key_id: 'key_owner' }));
  client.handle('keys.list', () => ({ keys: keys.map(row) }));
  client.handle('billing.summary', () => {
    throw new StudioError('internal_error', 'not needed here');
  });
  const stores = createStudioStores(client, { theme: 'light' });
  connectStudioEvents(stores, client);
  return { client, store: stores.keys };
}

describe('key usage', () => {
  it('loads the usage of the opened key, with the daily token quota of free access', async () => {
    const { client, store } = setup();
    client.handle('keys.usage', ({ id }) => ({ usage: usage(id, { tokens_today: 250_000, daily_token_quota: 1_000_000 }) }));

    expect(store.getState().usageKeyId).toBeNull();
    await store.getState().openUsage('key_a');
    expect(client.calls.filter((c) => c.method === 'keys.usage').map((c) => c.input)).toEqual([{ id: 'key_a' }]);
    const { usageKeyId, usage: loaded, usageError } = store.getState();
    expect(usageKeyId).toBe('key_a');
    expect(usageError).toBeNull();
    expect(loaded).toMatchObject({ key_id: 'key_a', totals: { requests: 1 }, tokens_today: 250_000, daily_token_quota: 1_000_000 });
    expect(loaded?.by_day[0]).toMatchObject({ model: 'local-image', requests: 1 });

    // What the panel shows: "of 1,000,000" and a quarter-full bar.
    expect(dailyQuota(loaded!)).toEqual({ used: 250_000, quota: 1_000_000, percent: 25, text: 'of 1,000,000' });
    expect(formatCount(loaded!.tokens_today)).toBe('250,000');

    store.getState().closeUsage();
    expect(store.getState()).toMatchObject({ usageKeyId: null, usage: null, usageError: null });
  });

  it('shows no quota for paid access, and a full bar past the quota', () => {
    expect(dailyQuota(usage('key_a', { daily_token_quota: null }))).toBeNull();
    expect(dailyQuota(usage('key_a', { tokens_today: 1_200_000, daily_token_quota: 1_000_000 }))?.percent).toBe(100);
  });

  it('drops a late reply for a key whose panel was switched or closed', async () => {
    const { client, store } = setup();
    const pending: { id: string; resolve: () => void }[] = [];
    client.handle('keys.usage', ({ id }) => new Promise((resolve) => pending.push({ id, resolve: () => resolve({ usage: usage(id) }) })));

    const first = store.getState().openUsage('key_a');
    const second = store.getState().openUsage('key_b');
    expect(store.getState()).toMatchObject({ usageKeyId: 'key_b', usage: null });
    pending.shift()?.resolve(); // key_a answers after the switch
    await flush();
    expect(store.getState().usage).toBeNull();
    pending.shift()?.resolve();
    await Promise.all([first, second]);
    expect(store.getState().usage?.key_id).toBe('key_b');

    void store.getState().loadUsage();
    store.getState().closeUsage();
    pending.shift()?.resolve();
    await flush();
    expect(store.getState().usage).toBeNull();
  });

  it('shows a failed usage load as "code: message"', async () => {
    const { client, store } = setup();
    client.handle('keys.usage', ({ id }) => {
      throw new StudioError('not_found', `No key with id ${id}.`, 'key_id', 404);
    });
    await store.getState().openUsage('key_gone');
    expect(store.getState()).toMatchObject({ usageKeyId: 'key_gone', usage: null, usageError: 'not_found: No key with id key_gone.' });
  });

  it('reloads the open panel, coalesced, on activity of its key and billing of its account only', async () => {
    const { client, store } = setupWired();
    client.handle('keys.usage', ({ id }) => ({ usage: usage(id) }));

    // Nothing open: events load no usage.
    client.emit('activity.added', { entry: activity('key_a') });
    await flush();
    expect(client.countCalls('keys.usage')).toBe(0);

    await store.getState().load();
    await store.getState().openUsage('key_a');
    expect(client.countCalls('keys.usage')).toBe(1);

    // A burst of events about the key: one reload running, exactly one more after it.
    client.emit('activity.added', { entry: activity('key_a', 2) });
    client.emit('billing.changed', { account_id: 'acct_key_a' });
    client.emit('activity.added', { entry: activity('key_a', 3) });
    await flush();
    await flush();
    expect(client.countCalls('keys.usage')).toBe(3);

    // Other keys' activity and other accounts' billing leave it alone.
    client.emit('activity.added', { entry: activity('key_b', 4) });
    client.emit('activity.added', { entry: activity(null, 5) });
    client.emit('billing.changed', { account_id: 'acct_key_b' });
    await flush();
    expect(client.countCalls('keys.usage')).toBe(3);

    // After a reconnect (events may have been lost) it reloads; once closed, never.
    client.reconnect();
    await flush();
    expect(client.countCalls('keys.usage')).toBe(4);
    store.getState().closeUsage();
    client.emit('activity.added', { entry: activity('key_a', 6) });
    client.reconnect();
    await flush();
    expect(client.countCalls('keys.usage')).toBe(4);
  });
});

describe('key access change', () => {
  it('replaces the key and its balance in the list with what keys.update returns', async () => {
    const { client, store } = setup();
    await store.getState().load();
    client.handle('keys.update', ({ id, access }) => {
      const updated = key(id, { access: access ?? 'balance' });
      return { key: updated, balance: balance(updated, { allowance_remaining_usd: '1.00000000', available_usd: '2.00000000' }) };
    });

    expect(await store.getState().update('key_b', { access: 'pro', allowance_usd: '1' })).toBe(true);
    expect(client.calls.find((c) => c.method === 'keys.update')?.input).toEqual({ id: 'key_b', access: 'pro', allowance_usd: '1' });
    const [a, b] = store.getState().keys;
    expect(a).toMatchObject({ id: 'key_a', access: 'balance' });
    expect(b).toMatchObject({ id: 'key_b', access: 'pro', balance: { access: 'pro', allowance_remaining_usd: '1.00000000', available_usd: '2.00000000' } });
    // No list reload: the reply is the row.
    expect(client.countCalls('keys.list')).toBe(1);
    expect(store.getState().saving).toEqual({});
    expect(store.getState().actionError).toBeNull();
  });

  it('marks the key as saving meanwhile, and reloads its open usage (the quota follows the access)', async () => {
    const { client, store } = setup();
    await store.getState().load();
    let access: 'free' | 'pro' = 'pro';
    client.handle('keys.usage', ({ id }) => ({ usage: usage(id, { daily_token_quota: access === 'free' ? 1_000_000 : null }) }));
    await store.getState().openUsage('key_a');
    expect(store.getState().usage?.daily_token_quota).toBeNull();

    let release: () => void = () => {};
    client.handle('keys.update', ({ id }) => {
      const updated = key(id, { access: 'free' });
      return new Promise((resolve) => (release = () => resolve({ key: updated, balance: balance(updated) })));
    });
    const saving = store.getState().update('key_a', { access: 'free' });
    expect(store.getState().saving).toEqual({ key_a: true });
    access = 'free';
    release();
    expect(await saving).toBe(true);
    await flush();
    expect(store.getState().saving).toEqual({});
    expect(store.getState().usage?.daily_token_quota).toBe(1_000_000);
  });

  it('shows a refused update as "code: message" on its row and keeps the row as it was', async () => {
    const { client, store } = setup();
    await store.getState().load();
    client.handle('keys.update', () => {
      throw new StudioError('invalid_request', 'allowance_usd must be a decimal amount in USD.', 'allowance_usd', 400);
    });
    expect(await store.getState().update('key_a', { access: 'pro', allowance_usd: 'lots' })).toBe(false);
    expect(store.getState().actionError).toEqual({ id: 'key_a', message: 'invalid_request: allowance_usd must be a decimal amount in USD.' });
    expect(store.getState().keys[0]).toMatchObject({ id: 'key_a', access: 'balance' });
    expect(store.getState().saving).toEqual({});

    // An IPC-style error (plain object with code) reads the same way; a later success clears it.
    client.handle('keys.update', () => {
      throw Object.assign(new Error("Error invoking remote method 'studio:call': Error: No key with id key_a."), { code: 'not_found' });
    });
    expect(await store.getState().update('key_a', { access: 'free' })).toBe(false);
    expect(store.getState().actionError?.message).toBe('not_found: No key with id key_a.');
    client.handle('keys.update', ({ id }) => ({ key: key(id, { access: 'free' }), balance: balance(key(id, { access: 'free' })) }));
    expect(await store.getState().update('key_a', { access: 'free' })).toBe(true);
    expect(store.getState().actionError).toBeNull();
    expect(store.getState().keys[0]?.access).toBe('free');
  });
});
