// Failover under load: 16 clients for 30 s against models with two routes, while the first
// route's provider flaps between up and down every 2 s (down: new connections refused, requests
// on open ones answered 503; requests already forwarded finish). The second stays up, so no
// client may see an error; every image is charged once, by the route that served it; every video
// is submitted upstream exactly once (counted at the emulators) and charged once when it ends;
// and once the tasks have ended, no hold is left.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VideoTask } from '../../shared/api-types.js';
import { startOpenAIEmulator, type OpenAIEmulator } from '../emulators/index.js';
import { startTestGateway, USD, type TestGateway } from '../helpers/gateway.js';
import { postJson, request } from '../helpers/http.js';
import { flappingProxy, type FlappingProxy } from '../helpers/route-faults.js';

const CLIENTS = 16;
const RUN_MS = 30_000;
const FLAP_MS = 2_000;
const THINK_MS = 20;

let t: TestGateway;
let first: OpenAIEmulator;
let second: OpenAIEmulator;
let proxy: FlappingProxy;
let key: { id: string; token: string; accountId: string };

beforeAll(async () => {
  t = await startTestGateway({
    upstreamTimeouts: { connectMs: 1_000, totalMs: 20_000 },
    // A short pause, so the first route is tried again (and found up or down) many times in the run.
    circuitBreaker: { failures: 3, skipSeconds: 1 },
    limits: { requests: { balance: { perSecond: 100_000, perMinute: 1_000_000, perHour: 10_000_000 } } },
  });
  first = await startOpenAIEmulator({ videoDurationMs: 300 });
  second = await startOpenAIEmulator({ videoDurationMs: 300 });
  proxy = await flappingProxy(first.origin);
  key = await t.key('balance', { balanceNano: 10_000 * USD });
  await t.gateway.providerConfigs.add({ id: 'flappy', kind: 'openai', baseUrl: `${proxy.origin}/v1`, apiKey: first.apiKey });
  await t.gateway.providerConfigs.add({ id: 'steady', kind: 'openai', baseUrl: second.baseUrl, apiKey: second.apiKey });
  const image = structuredClone((await t.gateway.catalog.find('local-image'))!.record);
  const video = structuredClone((await t.gateway.catalog.find('local-video'))!.record);
  const routes = (model: string) => [
    { providerId: 'flappy', upstreamModel: model },
    { providerId: 'steady', upstreamModel: model },
  ];
  await t.gateway.catalog.put({
    record: { ...image, id: 'ha-image', owned_by: 'ha', pricing: { input: 10, output: 40, currency: 'USD', unit: '1M tokens' }, capabilities: { ...image.capabilities, supported_sizes: ['1024x1024'] } },
    routes: routes('gpt-image-1'),
  });
  const { route_prices_usd_per_second: _prices, ...pricing } = video.pricing;
  await t.gateway.catalog.put({
    record: { ...video, id: 'ha-video', owned_by: 'ha', pricing: { ...pricing, price: 0.1 }, capabilities: { ...video.capabilities, supported_seconds: [4], supported_sizes: ['1280x720'] } },
    routes: routes('sora-2'),
  });
}, 30_000);

afterAll(async () => {
  await t?.close();
  await proxy?.close();
  await first?.close();
  await second?.close();
});

interface Outcome {
  kind: 'image' | 'video';
  status: number;
  body: unknown;
}

async function client(index: number, until: number): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (let n = 0; Date.now() < until; n++) {
    // One request in five creates a video; the rest generate images.
    const video = (n + index) % 5 === 0;
    const response = video
      ? await postJson(`${t.baseUrl}/videos`, { model: 'ha-video', prompt: `clip ${index}-${n}`, seconds: 4, size: '1280x720' }, key.token)
      : await postJson(`${t.baseUrl}/images/generations`, { model: 'ha-image', prompt: `lighthouse ${index}-${n}`, size: '1024x1024' }, key.token);
    outcomes.push({ kind: video ? 'video' : 'image', status: response.status, body: response.body });
    // A client's pause between requests: the run stays a load test, not a CPU hog for the suite.
    await new Promise((resolve) => setTimeout(resolve, THINK_MS));
  }
  return outcomes;
}

async function ended(id: string): Promise<VideoTask> {
  for (;;) {
    const task = (await request(`${t.baseUrl}/videos/${id}`, { headers: { authorization: `Bearer ${key.token}` } })).body as VideoTask;
    if (task.status !== 'queued' && task.status !== 'in_progress') return task;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe(`${CLIENTS} clients for ${RUN_MS / 1000} s while the first route flaps every ${FLAP_MS / 1000} s`, () => {
  it('answers every request, charges each once, submits each video once, and ends every hold', async () => {
    const before = await t.gateway.store.db.selectFrom('accounts').select('balance_nano').where('id', '=', key.accountId).executeTakeFirstOrThrow();
    const until = Date.now() + RUN_MS;
    let flaps = 0;
    const flapper = setInterval(() => {
      flaps++;
      void (proxy.up ? proxy.down() : proxy.restore());
    }, FLAP_MS);
    let outcomes: Outcome[];
    try {
      outcomes = (await Promise.all(Array.from({ length: CLIENTS }, (_, i) => client(i, until)))).flat();
    } finally {
      clearInterval(flapper);
      await proxy.restore();
    }
    expect(flaps).toBeGreaterThanOrEqual(RUN_MS / FLAP_MS - 1);

    // No client error while the second route is up.
    const failures = outcomes.filter((o) => o.status !== 200).map((o) => `${o.kind} ${o.status} ${JSON.stringify(o.body).slice(0, 200)}`);
    expect(failures).toEqual([]);
    const images = outcomes.filter((o) => o.kind === 'image');
    const videos = outcomes.filter((o) => o.kind === 'video').map((o) => o.body as VideoTask);
    expect(images.length).toBeGreaterThan(CLIENTS * 5);
    expect(videos.length).toBeGreaterThan(CLIENTS);

    // Both routes served: the flapping one between its outages, the steady one during them.
    const activity = await t.gateway.activity.recent(10_000);
    const served = new Set(activity.filter((e) => e.endpoint === '/v1/images/generations').map((e) => e.route));
    expect([...served].sort()).toEqual(['flappy', 'steady']);
    expect(activity.some((e) => e.failed_routes.some((f) => f.provider === 'flappy'))).toBe(true);

    // Every video ends (the first route is back up for the tasks it accepted), completed.
    const tasks = await Promise.all(videos.map((v) => ended(v.id)));
    expect(tasks.filter((task) => task.status !== 'completed').map((task) => `${task.id} ${task.status}`)).toEqual([]);

    // Submitted exactly once each: the jobs the two upstreams accepted are the tasks, one to one.
    const db = t.gateway.store.db;
    const rows = await db.selectFrom('video_tasks').select(['id', 'provider_id', 'upstream_id', 'cost_nano']).where('model', '=', 'ha-video').execute();
    expect(rows).toHaveLength(videos.length);
    const accepted = (emulator: OpenAIEmulator) => [...emulator.videos.keys()];
    expect(accepted(first).length + accepted(second).length).toBe(videos.length);
    const upstreamIds = new Set(rows.map((row) => `${row.provider_id}:${row.upstream_id}`));
    expect(upstreamIds).toEqual(new Set([...accepted(first).map((id) => `flappy:${id}`), ...accepted(second).map((id) => `steady:${id}`)]));

    // Charged once each: one consume per hold, and the balance moved by exactly what the answers said.
    const doubles = await db.selectFrom('ledger').select('hold_id').where('kind', '=', 'consume').where('hold_id', 'is not', null).groupBy('hold_id').having((eb) => eb.fn.countAll(), '>', 1).execute();
    expect(doubles).toEqual([]);
    const imageNano = images.reduce((sum, o) => sum + Math.round(Number((o.body as { usage: { cost_usd: string } }).usage.cost_usd) * USD), 0);
    const videoNano = rows.reduce((sum, row) => sum + row.cost_nano, 0);
    const after = await db.selectFrom('accounts').select(['balance_nano', 'held_nano']).where('id', '=', key.accountId).executeTakeFirstOrThrow();
    expect(before.balance_nano - after.balance_nano).toBe(imageNano + videoNano);

    // Every hold ended.
    expect(after.held_nano).toBe(0);
    expect(await db.selectFrom('holds').select('id').where('status', '=', 'active').execute()).toEqual([]);
    console.log(`[reliability/routes] ${images.length} images, ${videos.length} videos, ${flaps} flaps; served by ${JSON.stringify(countBy(activity.map((e) => e.route ?? 'none')))}`);
  }, 120_000);
});

function countBy(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}
