// One model behind two providers (two OpenAI-compatible emulators on loopback): when the first
// route is down, refuses with 429, answers 503 or is slow to connect, the second serves; the key
// is charged once, by the route that served, and the activity log names both. A 4xx about the
// request is answered, never sent on; a video job an upstream accepted is never submitted again.
// The breaker skips a failing provider for its pause and then uses it again once it is back.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { VideoTask } from '../../shared/api-types.js';
import { startOpenAIEmulator, type OpenAIEmulator } from '../emulators/index.js';
import { startTestGateway, USD, type TestGateway } from '../helpers/gateway.js';
import { errorOf, postForm, postJson, request } from '../helpers/http.js';
import { decodeB64, makeImage } from '../helpers/images.js';
import { slowToConnect, type SlowListener } from '../helpers/route-faults.js';

let t: TestGateway;
let first: OpenAIEmulator;
let second: OpenAIEmulator;
let slow: SlowListener;
let key: { id: string; token: string; accountId: string };
const SKIP_SECONDS = 1;

/** The emulator's POSTs to a route since the last reset (what the upstream saw). */
const posts = (emulator: OpenAIEmulator, path: string) => emulator.requests.filter((r) => r.method === 'POST' && r.path === path).length;

async function account(): Promise<{ balance: number; held: number; activeHolds: number }> {
  const db = t.gateway.store.db;
  const row = await db.selectFrom('accounts').select(['balance_nano', 'held_nano']).where('id', '=', key.accountId).executeTakeFirstOrThrow();
  const holds = await db.selectFrom('holds').select('id').where('account_id', '=', key.accountId).where('status', '=', 'active').execute();
  return { balance: row.balance_nano, held: row.held_nano, activeHolds: holds.length };
}

async function lastActivity() {
  await t.gateway.activity.flush();
  const [entry] = await t.gateway.activity.recent(1);
  return entry!;
}

/** What the answer says was charged, in nano-USD. */
const chargedBy = (response: { body: unknown }): number => Math.round(Number((response.body as { usage: { cost_usd: string } }).usage.cost_usd) * USD);

const generate = (model: string) => postJson(`${t.baseUrl}/images/generations`, { model, prompt: 'a lighthouse at dusk', size: '1024x1024' }, key.token);

beforeAll(async () => {
  t = await startTestGateway({ upstreamTimeouts: { connectMs: 300, totalMs: 4_000 }, circuitBreaker: { failures: 3, skipSeconds: SKIP_SECONDS } });
  first = await startOpenAIEmulator({ exactSize: true, videoDurationMs: 200 });
  second = await startOpenAIEmulator({ exactSize: true, videoDurationMs: 200 });
  slow = await slowToConnect();
  key = await t.key('balance', { balanceNano: 100 * USD });
  const add = (id: string, baseUrl: string, apiKey: string) => t.gateway.providerConfigs.add({ id, kind: 'openai', baseUrl, apiKey });
  await add('first', first.baseUrl, first.apiKey);
  await add('second', second.baseUrl, second.apiKey);
  await add('slow', `${slow.origin}/v1`, 'sk-slow');
  // The same unreachable host with a 2 s timeout: a model whose first route it is has 2 s in all.
  await t.gateway.providerConfigs.add({ id: 'slow-2s', kind: 'openai', baseUrl: `${slow.origin}/v1`, apiKey: 'sk-slow', timeoutSeconds: 2 });
  const image = structuredClone((await t.gateway.catalog.find('local-image'))!.record);
  const video = structuredClone((await t.gateway.catalog.find('local-video'))!.record);
  const imageRecord = { ...image, owned_by: 'routes', pricing: { input: 10, output: 40, currency: 'USD', unit: '1M tokens' }, capabilities: { ...image.capabilities, supported_sizes: ['1024x1024'] } };
  await t.gateway.catalog.put({ record: { ...imageRecord, id: 'dual-image' }, routes: [{ providerId: 'first', upstreamModel: 'gpt-image-1' }, { providerId: 'second', upstreamModel: 'gpt-image-1' }] });
  await t.gateway.catalog.put({ record: { ...imageRecord, id: 'slow-image' }, routes: [{ providerId: 'slow', upstreamModel: 'gpt-image-1' }, { providerId: 'second', upstreamModel: 'gpt-image-1' }] });
  await t.gateway.catalog.put({ record: { ...imageRecord, id: 'budget-image' }, routes: [{ providerId: 'slow-2s', upstreamModel: 'gpt-image-1' }, { providerId: 'second', upstreamModel: 'gpt-image-1' }] });
  const { route_prices_usd_per_second: _routes, ...videoPricing } = video.pricing;
  await t.gateway.catalog.put({
    record: { ...video, id: 'dual-video', owned_by: 'routes', pricing: { ...videoPricing, price: 0.1 }, capabilities: { ...video.capabilities, supported_seconds: [4, 8], supported_sizes: ['1280x720'] } },
    routes: [{ providerId: 'first', upstreamModel: 'sora-2' }, { providerId: 'second', upstreamModel: 'sora-2' }],
  });
}, 30_000);

afterAll(async () => {
  await t?.close();
  await first?.close();
  await second?.close();
  await slow?.close();
});

afterEach(async () => {
  first.clearFaults();
  second.clearFaults();
  first.requests.length = 0;
  second.requests.length = 0;
  // Every case starts with closed breakers: a pause longer than SKIP_SECONDS and a success on each provider.
  await new Promise((resolve) => setTimeout(resolve, SKIP_SECONDS * 1000 + 50));
  for (const model of ['dual-image']) expect((await generate(model)).status).toBe(200);
  first.requests.length = 0;
  second.requests.length = 0;
});

describe('an image request whose first route fails before doing any work', () => {
  it.each([
    ['refusing with 429', { status: 429, headers: { 'retry-after': '7' } }, 'rate limited (429)'],
    ['answering 503', { status: 503 }, 'unavailable (503)'],
  ])('first %s: the second serves, the key is charged once, and the activity log tells both', async (_name, fault, reason) => {
    first.inject('POST /v1/images/generations', { ...fault, times: 1 });
    const before = await account();
    const response = await generate('dual-image');
    expect(response.status).toBe(200);
    const body = response.body as { data: { b64_json: string }[]; usage: { cost_usd: string } };
    expect(await decodeB64(body.data[0]!.b64_json)).toMatchObject({ format: 'png', width: 1024, height: 1024 });
    expect(posts(first, '/v1/images/generations')).toBe(1);
    expect(posts(second, '/v1/images/generations')).toBe(1);
    const after = await account();
    const charged = Math.round(Number(body.usage.cost_usd) * USD);
    expect(charged).toBeGreaterThan(0);
    expect(before.balance - after.balance).toBe(charged);
    expect(after).toMatchObject({ held: 0, activeHolds: 0 });
    const entry = await lastActivity();
    expect(entry).toMatchObject({ model: 'dual-image', status: 200, route: 'second', failed_routes: [{ provider: 'first', reason }] });
    expect(Math.round(Number(entry.cost_usd) * USD)).toBe(charged);
  });

  it('an edit refused with 503 by the first: its reference images are sent again, whole, to the second', async () => {
    first.inject('POST /v1/images/edits', { status: 503, times: 1 });
    const png = await makeImage(64, 48);
    const form = new FormData();
    form.append('model', 'dual-image');
    form.append('prompt', 'add a hat');
    form.append('size', '1024x1024');
    form.append('image[]', new Blob([png], { type: 'image/png' }), 'a.png');
    form.append('image[]', new Blob([png], { type: 'image/png' }), 'b.png');
    const before = await account();
    const response = await postForm(`${t.baseUrl}/images/edits`, form, key.token);
    expect(response.status).toBe(200);
    expect(posts(first, '/v1/images/edits')).toBe(1);
    expect(posts(second, '/v1/images/edits')).toBe(1);
    expect(second.lastEditFiles.map((f) => [f.field, f.size])).toEqual([
      ['image[]', png.length],
      ['image[]', png.length],
    ]);
    expect(before.balance - (await account()).balance).toBe(chargedBy(response));
    expect(await lastActivity()).toMatchObject({ endpoint: '/v1/images/edits', route: 'second', failed_routes: [{ provider: 'first', reason: 'unavailable (503)' }] });
  });

  it('first down (nothing listening): the second serves', async () => {
    const down = await startOpenAIEmulator({ exactSize: true });
    const url = down.baseUrl;
    await down.close();
    await t.gateway.providerConfigs.update({ id: 'first', baseUrl: url });
    try {
      const before = await account();
      const response = await generate('dual-image');
      expect(response.status).toBe(200);
      expect(posts(second, '/v1/images/generations')).toBe(1);
      const charged = chargedBy(response);
      expect(before.balance - (await account()).balance).toBe(charged);
      expect(await lastActivity()).toMatchObject({ route: 'second', failed_routes: [{ provider: 'first', reason: 'could not connect' }] });
    } finally {
      await t.gateway.providerConfigs.update({ id: 'first', baseUrl: first.baseUrl });
    }
  });

  it('first slow to connect: the connect timeout passes it to the second', async () => {
    const before = await account();
    const response = await generate('slow-image');
    expect(response.status).toBe(200);
    expect(posts(second, '/v1/images/generations')).toBe(1);
    const charged = chargedBy(response);
    expect(before.balance - (await account()).balance).toBe(charged);
    expect(await lastActivity()).toMatchObject({ route: 'second', failed_routes: [{ provider: 'slow', reason: 'timed out connecting' }] });
  });

  it('the whole request keeps to the first route\u2019s timeout: a later route gets only what is left', async () => {
    // 2 s in all; the connect attempt spends about 1 s of it (undici's connect timer is coarse),
    // and the second takes 1.5 s to answer.
    second.inject('POST /v1/images/generations', { latencyMs: 1_500, times: 1 });
    const before = await account();
    const response = await generate('budget-image');
    expect(response.status).toBe(503);
    expect(errorOf(response).message).toContain('timed out');
    expect(posts(second, '/v1/images/generations')).toBe(1);
    expect(await account()).toMatchObject({ balance: before.balance, held: 0, activeHolds: 0 });
    // With the 4 s of a first route without a timeout of its own, the same answer comes through.
    second.inject('POST /v1/images/generations', { latencyMs: 1_500, times: 1 });
    expect((await generate('slow-image')).status).toBe(200);
  });

  it('a 4xx about the request is answered: the second route is never asked', async () => {
    first.inject('POST /v1/images/generations', { status: 400, times: 1 });
    const before = await account();
    const response = await generate('dual-image');
    expect(response.status).toBe(400);
    expect(errorOf(response)).toMatchObject({ code: 'upstream_bad_request', param: null });
    expect(posts(second, '/v1/images/generations')).toBe(0);
    expect(await account()).toMatchObject({ balance: before.balance, held: 0, activeHolds: 0 });
    expect(await lastActivity()).toMatchObject({ status: 400, route: null, failed_routes: [{ provider: 'first', reason: 'answered: The upstream provider rejected the request.' }] });
  });

  it('a timeout after the request went out is answered, not sent on (the first may have done the work)', async () => {
    first.inject('POST /v1/images/generations', { latencyMs: 5_000, times: 1 });
    const before = await account();
    const response = await generate('dual-image');
    expect(response.status).toBe(503);
    expect(posts(second, '/v1/images/generations')).toBe(0);
    expect(await account()).toMatchObject({ balance: before.balance, held: 0, activeHolds: 0 });
  }, 10_000);

  it('every route failing: the client gets the last route\u2019s error, and the hold is released in full', async () => {
    first.inject('POST /v1/images/generations', { status: 503, times: 1 });
    second.inject('POST /v1/images/generations', { status: 429, headers: { 'retry-after': '9' }, times: 1 });
    const before = await account();
    const response = await generate('dual-image');
    expect(response.status).toBe(429);
    expect(errorOf(response)).toMatchObject({ code: 'upstream_rate_limited' });
    expect(response.headers.get('retry-after')).toBe('9');
    expect(await account()).toMatchObject({ balance: before.balance, held: 0, activeHolds: 0 });
    expect(await lastActivity()).toMatchObject({
      status: 429,
      route: null,
      failed_routes: [
        { provider: 'first', reason: 'unavailable (503)' },
        { provider: 'second', reason: 'rate limited (429)' },
      ],
    });
  });
});

describe('the circuit breaker', () => {
  it('skips the first after 3 failures in a row, then tries it again once its pause is over', async () => {
    first.inject('POST /v1/images/generations', { status: 503, times: 3 });
    for (let i = 0; i < 3; i++) expect((await generate('dual-image')).status).toBe(200);
    expect(posts(first, '/v1/images/generations')).toBe(3);
    expect(t.gateway.health.report().find((h) => h.provider === 'first')).toMatchObject({ state: 'skipped', consecutive_failures: 3, last_error: 'unavailable (503)' });

    // Skipped: the first hears nothing while its breaker is open.
    expect((await generate('dual-image')).status).toBe(200);
    expect(posts(first, '/v1/images/generations')).toBe(3);
    expect(await lastActivity()).toMatchObject({ route: 'second', failed_routes: [{ provider: 'first', reason: expect.stringContaining('skipped') }] });

    // Back after the pause: one trial, which succeeds and closes the breaker.
    await new Promise((resolve) => setTimeout(resolve, SKIP_SECONDS * 1000 + 100));
    expect((await generate('dual-image')).status).toBe(200);
    expect(posts(first, '/v1/images/generations')).toBe(4);
    expect(await lastActivity()).toMatchObject({ route: 'first', failed_routes: [] });
    expect(t.gateway.health.report().find((h) => h.provider === 'first')).toMatchObject({ state: 'healthy', consecutive_failures: 0 });
  });

  it('tries a model whose routes are all skipped anyway, in order', async () => {
    first.inject('POST /v1/images/generations', { status: 503, times: 3 });
    second.inject('POST /v1/images/generations', { status: 503, times: 3 });
    for (let i = 0; i < 3; i++) expect((await generate('dual-image')).status).toBe(503);
    expect(t.gateway.health.report().filter((h) => h.state === 'skipped').map((h) => h.provider).sort()).toEqual(['first', 'second']);
    const response = await generate('dual-image');
    expect(response.status).toBe(200);
    expect(await lastActivity()).toMatchObject({ route: 'first' });
  });
});

describe('a video request', () => {
  const create = () => postJson(`${t.baseUrl}/videos`, { model: 'dual-video', prompt: 'waves', seconds: 4, size: '1280x720' }, key.token);

  async function finished(id: string): Promise<VideoTask> {
    for (;;) {
      const task = (await request(`${t.baseUrl}/videos/${id}`, { headers: { authorization: `Bearer ${key.token}` } })).body as VideoTask;
      if (task.status !== 'queued' && task.status !== 'in_progress') return task;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('refused with 503 by the first: submitted once, to the second, and charged once when it completes', async () => {
    first.inject('POST /v1/videos', { status: 503, times: 1 });
    const before = await account();
    const response = await create();
    expect(response.status).toBe(200);
    const task = await finished((response.body as VideoTask).id);
    expect(task.status).toBe('completed');
    expect(posts(first, '/v1/videos')).toBe(1);
    expect([...first.videos.values()].filter((v) => !v.deleted)).toHaveLength(0);
    expect(posts(second, '/v1/videos')).toBe(1);
    const row = await t.gateway.store.db.selectFrom('video_tasks').select(['provider_id', 'cost_nano']).where('id', '=', task.id).executeTakeFirstOrThrow();
    expect(row.provider_id).toBe('second');
    const after = await account();
    expect(before.balance - after.balance).toBe(row.cost_nano);
    expect(row.cost_nano).toBe(Math.round(0.1 * 4 * USD));
    expect(after).toMatchObject({ held: 0, activeHolds: 0 });
    const creation = (await t.gateway.activity.recent(50)).find((e) => e.endpoint === '/v1/videos' && e.method === 'POST')!;
    expect(creation).toMatchObject({ route: 'second', failed_routes: [{ provider: 'first', reason: 'unavailable (503)' }] });
  });

  it('accepted by the first and then failed there: failed, never submitted to the second, hold released', async () => {
    first.videoBehaviour.fail = { code: 'moderation_blocked', message: 'blocked' };
    try {
      const before = await account();
      const response = await create();
      expect(response.status).toBe(200);
      const task = await finished((response.body as VideoTask).id);
      expect(task.status).toBe('failed');
      expect(posts(first, '/v1/videos')).toBe(1);
      expect(posts(second, '/v1/videos')).toBe(0);
      expect(await account()).toMatchObject({ balance: before.balance, held: 0, activeHolds: 0 });
    } finally {
      first.videoBehaviour.fail = false;
    }
  });

  it('refused by every route: the last refusal is answered, no task is left and nothing is held', async () => {
    first.inject('POST /v1/videos', { status: 502, times: 1 });
    second.inject('POST /v1/videos', { status: 503, times: 1 });
    const before = await account();
    const jobs = first.videos.size + second.videos.size;
    const response = await create();
    expect(response.status).toBe(503);
    expect(errorOf(response).code).toBe('upstream_unavailable');
    expect(first.videos.size + second.videos.size).toBe(jobs);
    expect(await t.gateway.store.db.selectFrom('video_tasks').select('id').where('status', 'in', ['queued', 'in_progress']).execute()).toEqual([]);
    expect(await account()).toMatchObject({ balance: before.balance, held: 0, activeHolds: 0 });
  });
});
