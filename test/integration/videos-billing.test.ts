// Holds of video tasks over real HTTP: reserve at creation, consume on completion, release on
// refusal, failure, cancel and timeout; idempotent retries; and 200 concurrent creations
// against a balance that covers exactly K of them.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { VideoTask } from '../../shared/api-types.js';
import { startTestGateway, USD, type TestGateway } from '../helpers/gateway.js';
import { errorOf, outcome, postJson, request } from '../helpers/http.js';
import { addStubVideoModel, StubVideoProvider } from '../helpers/stub-video-provider.js';

let t: TestGateway;
let now = Date.parse('2026-11-21T12:00:00Z');
const clock = { now: () => now };
const stubs = {
  stuck: new StubVideoProvider('stub-stuck', 'stuck'),
  refuse: new StubVideoProvider('stub-refuse', 'refuse'),
  fail: new StubVideoProvider('stub-fail', 'fail'),
  partner: new StubVideoProvider('stub-partner', 'partner'),
};

beforeAll(async () => {
  // Bursts of 200 creations: the owner raised the request windows for balance keys.
  const burst = { perSecond: 1_000, perMinute: 10_000, perHour: 100_000 };
  t = await startTestGateway({ clock, background: false, limits: { requests: { balance: burst } } });
  for (const [name, stub] of Object.entries(stubs)) {
    await addStubVideoModel(t.gateway, stub, `video-${name}`, { max_task_seconds: 60, partner_video: name === 'partner' });
  }
});
afterAll(() => t.close());

const url = () => `${t.baseUrl}/videos`;
const body = (model: string, extra: Record<string, unknown> = {}) => ({ model, prompt: 'a kite', seconds: 4, ...extra });

async function ledgerKinds(accountId: string): Promise<string[]> {
  return (await t.gateway.billing.ledgerFor(accountId)).map((r) => r.kind).reverse();
}

async function checkInvariants(accountId: string): Promise<void> {
  const account = await t.gateway.billing.getAccount(accountId);
  const ledger = await t.gateway.store.db.selectFrom('ledger').selectAll().where('account_id', '=', accountId).execute();
  const holds = await t.gateway.store.db.selectFrom('holds').selectAll().where('account_id', '=', accountId).execute();
  const topUps = ledger.filter((r) => r.kind === 'top_up').reduce((s, r) => s + r.amount_nano, 0);
  const charges = ledger.filter((r) => r.kind === 'consume').reduce((s, r) => s - r.balance_delta_nano, 0);
  expect(account.balance_nano).toBe(topUps - charges);
  expect(account.held_nano).toBe(holds.filter((h) => h.status === 'active').reduce((s, h) => s + h.amount_nano, 0));
  expect(account.balance_nano - account.held_nano).toBeGreaterThanOrEqual(0);
  for (const hold of holds) {
    const endings = ledger.filter((r) => r.hold_id === hold.id && (r.kind === 'consume' || r.kind === 'release')).length;
    expect(endings).toBe(hold.status === 'active' ? 0 : 1);
  }
}

describe('video holds', () => {
  it('reserves seconds x price at creation; a refused creation releases it and leaves no task', async () => {
    const key = await t.key('balance', { balanceNano: USD });
    const accepted = await postJson(url(), body('video-stuck'), key.token);
    expect(accepted.status).toBe(200);
    expect((await t.gateway.billing.view(key.accountId)).holds_usd).toBe('0.40000000');

    const refused = await postJson(url(), body('video-refuse'), key.token);
    expect(refused.status).toBe(503);
    expect(errorOf(refused).code).toBe('upstream_unavailable');
    expect((await t.gateway.billing.view(key.accountId)).holds_usd).toBe('0.40000000');
    const tasks = await t.gateway.store.db.selectFrom('video_tasks').select('model').where('account_id', '=', key.accountId).execute();
    expect(tasks.map((r) => r.model)).toEqual(['video-stuck']);
    expect(await ledgerKinds(key.accountId)).toEqual(['top_up', 'reserve', 'reserve', 'release']);
    await checkInvariants(key.accountId);
  });

  it('insufficient funds -> 402, no task, nothing reserved', async () => {
    const key = await t.key('balance', { balanceNano: 0.39 * USD });
    const response = await postJson(url(), body('video-stuck'), key.token);
    expect(response.status).toBe(402);
    expect(errorOf(response).code).toBe('insufficient_balance');
    expect(await ledgerKinds(key.accountId)).toEqual(['top_up']);
  });

  it('an upstream failure marks the task failed and releases the hold', async () => {
    const key = await t.key('balance', { balanceNano: USD });
    const task = (await postJson(url(), body('video-fail'), key.token)).body as VideoTask;
    await t.gateway.scheduler.tick();
    const failed = (await request(`${url()}/${task.id}`, { headers: { authorization: `Bearer ${key.token}` } })).body as VideoTask;
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'generation_failed' }, outputs: [] });
    expect(failed.error!.message).not.toMatch(/stub|up-/);
    expect((await t.gateway.billing.view(key.accountId)).available_usd).toBe('1.00000000');
    await checkInvariants(key.accountId);
  });

  it('a task stuck past max_task_seconds times out, its hold released and the upstream cancelled', async () => {
    const key = await t.key('balance', { balanceNano: USD });
    const task = (await postJson(url(), body('video-stuck'), key.token)).body as VideoTask;
    await t.gateway.scheduler.tick();
    expect((await t.gateway.videoTasks.get(task.id))!).toMatchObject({ status: 'in_progress', progress: 42 });
    now += 61_000;
    await t.gateway.scheduler.tick();
    const timedOut = (await request(`${url()}/${task.id}`, { headers: { authorization: `Bearer ${key.token}` } })).body as VideoTask;
    expect(timedOut).toMatchObject({ status: 'timeout', error: { code: 'timeout' } });
    expect(stubs.stuck.cancelled).toContain(task.id);
    expect((await t.gateway.billing.view(key.accountId)).holds_usd).toBe('0.00000000');
    await checkInvariants(key.accountId);
  });

  it('a partner-backed task completes with the partner URL, charges the hold, and content redirects (302)', async () => {
    const key = await t.key('balance', { balanceNano: USD });
    const task = (await postJson(url(), body('video-partner'), key.token)).body as VideoTask;
    await t.gateway.scheduler.tick();
    const done = (await request(`${url()}/${task.id}`, { headers: { authorization: `Bearer ${key.token}` } })).body as VideoTask;
    expect(done).toMatchObject({ status: 'completed', outputs: [`https://cdn.partner.example/${task.id}.mp4`], cost_usd: '0.40000000' });
    const content = await fetch(`${url()}/${task.id}/content`, { headers: { authorization: `Bearer ${key.token}` }, redirect: 'manual' });
    expect(content.status).toBe(302);
    expect(content.headers.get('location')).toBe(done.outputs[0]);
    expect((await t.gateway.billing.view(key.accountId)).balance_usd).toBe('0.60000000');
    await checkInvariants(key.accountId);
  });

  it('cancel releases the hold once; cancelling again changes nothing', async () => {
    const key = await t.key('balance', { balanceNano: USD });
    const task = (await postJson(url(), body('video-stuck'), key.token)).body as VideoTask;
    await t.gateway.scheduler.tick();
    const auth = { authorization: `Bearer ${key.token}` };
    const first = (await request(`${url()}/${task.id}`, { method: 'DELETE', headers: auth })).body as VideoTask;
    const second = (await request(`${url()}/${task.id}`, { method: 'DELETE', headers: auth })).body as VideoTask;
    expect(first).toMatchObject({ status: 'failed', error: { code: 'cancelled' } });
    expect(second).toEqual(first);
    expect(stubs.stuck.cancelled).toContain(task.id);
    expect(await ledgerKinds(key.accountId)).toEqual(['top_up', 'reserve', 'release']);
  });

  it('a cancel naming a Content-Type with no body (the OpenAI Python SDK sends application/json) cancels; a creation with no body is still refused', async () => {
    const key = await t.key('balance', { balanceNano: USD });
    for (const type of ['application/json', 'text/plain']) {
      const task = (await postJson(url(), body('video-stuck'), key.token)).body as VideoTask;
      const cancelled = await request(`${url()}/${task.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${key.token}`, 'content-type': type } });
      expect(cancelled.status, `${type}: ${cancelled.text}`).toBe(200);
      expect(cancelled.body).toMatchObject({ id: task.id, status: 'failed', error: { code: 'cancelled' } });
    }
    const empty = await postJson(url(), '', key.token);
    expect(errorOf(empty)).toMatchObject({ code: 'invalid_request', message: 'The request body is empty; send a JSON object.' });
    expect(empty.status).toBe(400);
    await checkInvariants(key.accountId);
  });
});

describe('Idempotency-Key', () => {
  it('the same key and request return the same task, also for concurrent retries: one task, one hold', async () => {
    const key = await t.key('balance', { balanceNano: 10 * USD });
    const headers = { 'idempotency-key': 'retry-1' };
    const responses = await Promise.all(Array.from({ length: 20 }, () => postJson(url(), body('video-stuck', { client_request_id: 'c1' }), key.token, headers)));
    expect(responses.every((r) => r.status === 200)).toBe(true);
    const ids = new Set(responses.map((r) => (r.body as VideoTask).id));
    expect(ids.size).toBe(1);
    expect(await ledgerKinds(key.accountId)).toEqual(['top_up', 'reserve']);
    const again = await postJson(url(), body('video-stuck', { client_request_id: 'c1' }), key.token, headers);
    expect((again.body as VideoTask).id).toBe([...ids][0]);
  });

  it('a key is kept 24 hours: until then it names its task, after that it is free for a new request', async () => {
    const key = await t.key('balance', { balanceNano: 10 * USD });
    const headers = { 'idempotency-key': 'day-1' };
    const first = await postJson(url(), body('video-stuck'), key.token, headers);
    expect(first.status).toBe(200);
    now += 24 * 3_600_000 - 1_000;
    expect(((await postJson(url(), body('video-stuck'), key.token, headers)).body as VideoTask).id).toBe((first.body as VideoTask).id);
    expect(errorOf(await postJson(url(), body('video-stuck', { prompt: 'a boat' }), key.token, headers)).param).toBe('Idempotency-Key');
    now += 2_000;
    const later = await postJson(url(), body('video-stuck', { prompt: 'a boat' }), key.token, headers);
    expect(later.status).toBe(200);
    expect((later.body as VideoTask).id).not.toBe((first.body as VideoTask).id);
    expect(await ledgerKinds(key.accountId)).toEqual(['top_up', 'reserve', 'reserve']);
  });

  it("a caller's expired keys are deleted at its next keyed creation, not only a key that is used again", async () => {
    const key = await t.key('balance', { balanceNano: 10 * USD });
    for (const name of ['once-a', 'once-b']) expect((await postJson(url(), body('video-stuck'), key.token, { 'idempotency-key': name })).status).toBe(200);
    const keysOf = async () =>
      (await t.gateway.store.db.selectFrom('idempotency_keys').select('key').where('account_id', '=', key.accountId).orderBy('key').execute()).map((r) => r.key);
    expect(await keysOf()).toEqual(['once-a', 'once-b']);
    now += 24 * 3_600_000 + 1_000;
    expect((await postJson(url(), body('video-stuck'), key.token, { 'idempotency-key': 'next-day' })).status).toBe(200);
    expect(await keysOf()).toEqual(['next-day']);
  });

  it('a retry gets the same body as the first response, though the task has moved on since', async () => {
    const key = await t.key('balance', { balanceNano: USD });
    const headers = { 'idempotency-key': 'replay-1' };
    const first = await postJson(url(), body('video-stuck'), key.token, headers);
    expect((first.body as VideoTask).status).toBe('queued');
    const id = (first.body as VideoTask).id;
    await t.gateway.store.db.updateTable('video_tasks').set({ status: 'in_progress', progress: 40 }).where('id', '=', id).execute();
    expect(((await request(`${url()}/${id}`, { headers: { authorization: `Bearer ${key.token}` } })).body as VideoTask).status).toBe('in_progress');
    const retry = await postJson(url(), body('video-stuck'), key.token, headers);
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
  });

  it('leaving size out and naming the default size are one request', async () => {
    const key = await t.key('balance', { balanceNano: USD });
    const headers = { 'idempotency-key': 'default-size' };
    const record = (await t.gateway.catalog.find('video-stuck'))!.record;
    const first = await postJson(url(), body('video-stuck'), key.token, headers);
    const named = await postJson(url(), body('video-stuck', { size: record.capabilities.supported_sizes![0] }), key.token, headers);
    expect(named.status).toBe(200);
    expect((named.body as VideoTask).id).toBe((first.body as VideoTask).id);
    expect(await ledgerKinds(key.accountId)).toEqual(['top_up', 'reserve']);
  });

  it('a retry while the first creation is still being submitted gets the first answer: a refusal, not a task that vanishes', async () => {
    const stub = new StubVideoProvider('stub-slow-refuse', 'refuse');
    await addStubVideoModel(t.gateway, stub, 'video-slow-refuse', { max_task_seconds: 60 });
    let submitting!: () => void;
    const started = new Promise<void>((resolve) => (submitting = resolve));
    let refuse!: () => void;
    const gate = new Promise<void>((resolve) => (refuse = resolve));
    stub.beforeSubmit = () => {
      submitting();
      return gate;
    };
    const key = await t.key('balance', { balanceNano: USD });
    const headers = { 'idempotency-key': 'slow-refusal' };
    const first = postJson(url(), body('video-slow-refuse'), key.token, headers);
    await started; // the first request's task and key are committed; its submission hangs
    const { id: firstId } = await t.gateway.store.db.selectFrom('video_tasks').select('id').where('account_id', '=', key.accountId).executeTakeFirstOrThrow();
    // The retry's creation transaction answers with the first request's task once it has found its key.
    let found!: () => void;
    const retryFoundKey = new Promise<void>((resolve) => (found = resolve));
    const tx = t.gateway.store.tx.bind(t.gateway.store);
    const spy = vi.spyOn(t.gateway.store, 'tx').mockImplementation(async (fn) => {
      const result = await tx(fn);
      if (result === firstId) found();
      return result;
    });
    const retry = postJson(url(), body('video-slow-refuse'), key.token, headers);
    try {
      await retryFoundKey;
    } finally {
      spy.mockRestore();
    }
    refuse();
    const [a, b] = await Promise.all([first, retry]);
    expect(outcome(a)).toBe('503 upstream_unavailable');
    expect(outcome(b)).toBe('503 upstream_unavailable');
    const tasks = await t.gateway.store.db.selectFrom('video_tasks').select('id').where('account_id', '=', key.accountId).execute();
    expect(tasks).toEqual([]);
    expect((await t.gateway.billing.view(key.accountId)).holds_usd).toBe('0.00000000');
    // The refusal freed the key: a later retry is a new attempt.
    stub.beforeSubmit = null;
    stub.behaviour = 'stuck';
    const later = await postJson(url(), body('video-slow-refuse'), key.token, headers);
    expect(later.status).toBe(200);
    expect((await request(`${url()}/${(later.body as VideoTask).id}`, { headers: { authorization: `Bearer ${key.token}` } })).status).toBe(200);
  });

  it('the same key with a different request -> 400 param Idempotency-Key; keys are per caller', async () => {
    const a = await t.key('balance', { balanceNano: USD });
    const b = await t.key('balance', { balanceNano: USD });
    const headers = { 'idempotency-key': 'shared-key' };
    const first = await postJson(url(), body('video-stuck'), a.token, headers);
    const changed = await postJson(url(), body('video-stuck', { seconds: 8 }), a.token, headers);
    expect(changed.status).toBe(400);
    expect(errorOf(changed)).toMatchObject({ code: 'invalid_request', param: 'Idempotency-Key' });
    const other = await postJson(url(), body('video-stuck'), b.token, headers);
    expect(other.status).toBe(200);
    expect((other.body as VideoTask).id).not.toBe((first.body as VideoTask).id);
  });
});

describe('concurrency', () => {
  it('200 concurrent creations against a balance for exactly K: K queued, the rest 402, never below zero', async () => {
    const K = 23;
    const key = await t.key('balance', { balanceNano: K * 0.4 * USD });
    const responses = await Promise.all(Array.from({ length: 200 }, () => postJson(url(), body('video-stuck'), key.token)));
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(K);
    expect(statuses.filter((s) => s === 402)).toHaveLength(200 - K);
    expect(responses.filter((r) => r.status === 200).every((r) => (r.body as VideoTask).status === 'queued')).toBe(true);
    expect((await t.gateway.billing.view(key.accountId)).available_usd).toBe('0.00000000');
    await checkInvariants(key.accountId);
  });
});

describe('an access or allowance change while a video hold is active', () => {
  it('is refused when the hold would be left uncovered (a pro key moved to balance access read available -$0.40 and its video completed for $0.00); one the balance covers goes through and the video is charged in full', async () => {
    // The billing model's minimal case: a pro key paying from its allowance, a video, then keys update --access.
    const key = await t.key('pro', { allowanceNano: USD });
    const task = (await postJson(url(), body('video-partner'), key.token)).body as VideoTask;
    const view = () => t.gateway.billing.view(key.accountId);
    for (const changes of [{ access: 'balance' }, { access: 'free' }, { allowanceNano: 0.3 * USD }] as const) {
      const refused = t.gateway.keys.update(key.id, changes);
      await expect(refused).rejects.toMatchObject({ code: 'invalid_request', status: 400, param: 'access' in changes ? 'access' : 'allowance_usd' });
      await expect(refused).rejects.toThrow(/\$0\.40000000 held .* top it up by \$0\.(40|10)000000/);
    }
    expect(await view()).toMatchObject({ access: 'pro', holds_usd: '0.40000000', available_usd: '0.60000000' });
    // Lowering the allowance to what the hold needs is fine.
    await t.gateway.keys.update(key.id, { allowanceNano: 0.4 * USD });
    expect((await view()).available_usd).toBe('0.00000000');

    await t.gateway.billing.topUp(key.accountId, 0.4 * USD);
    await t.gateway.keys.update(key.id, { access: 'balance' });
    expect(await view()).toMatchObject({ access: 'balance', balance_usd: '0.40000000', allowance_remaining_usd: '0.00000000', available_usd: '0.00000000' });
    await t.gateway.scheduler.tick();
    const done = (await request(`${url()}/${task.id}`, { headers: { authorization: `Bearer ${key.token}` } })).body as VideoTask;
    expect(done).toMatchObject({ status: 'completed', cost_usd: '0.40000000' });
    expect(await view()).toMatchObject({ balance_usd: '0.00000000', holds_usd: '0.00000000', available_usd: '0.00000000' });
    await checkInvariants(key.accountId);
  });
});
