// A client that disconnects before its image arrives pays nothing, whatever the route and the
// provider: the upstream work is stopped (the call aborted, a queued job cancelled) and the hold
// released. (Generations through an OpenAI-style upstream: server-shutdown.test.ts.)
import { request } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { USD } from '../helpers/gateway.js';
import { makeImage } from '../helpers/images.js';
import { waitFor } from '../helpers/stub-video-provider.js';
import { startUpstreams, type UpstreamSetup } from '../helpers/upstreams.js';

let u: UpstreamSetup;
let key: { id: string; token: string; accountId: string };

beforeAll(async () => {
  u = await startUpstreams();
  key = await u.t.key('balance', { balanceNano: 10 * USD });
});
afterAll(() => u.close());

const holds = async () => (await u.t.gateway.billing.activeHolds(key.accountId)).length;

/** Sends the request, waits until the gateway holds money for it, then hangs up. */
async function leaveMidway(path: string, headers: Record<string, string>, body: Buffer | string): Promise<void> {
  const req = request(`${u.t.baseUrl}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key.token}`, ...headers } });
  req.on('error', () => undefined);
  req.end(body);
  await waitFor(async () => (await holds()) > 0, 5_000, 1);
  req.destroy();
}

/** The activity log has the request, once, as 499 (the client closed it) and uncharged. */
async function expectDepartureLogged(endpoint: string, since: number): Promise<void> {
  await u.t.gateway.activity.flush();
  const entries = (await u.t.gateway.activity.recent(50)).filter((e) => e.endpoint === endpoint && e.at >= since);
  expect(entries).toMatchObject([{ status: 499, key_id: key.id }]);
  expect(Number(entries[0]!.cost_usd)).toBe(0);
}

it('an image edit through an OpenAI-style upstream: the upstream call is aborted and the hold released', async () => {
  u.openai.inject('POST /v1/images/edits', { latencyMs: 5_000, times: 1 });
  const before = (await u.t.gateway.billing.view(key.accountId)).balance_usd;
  const form = new FormData();
  form.append('model', 'up-image');
  form.append('prompt', 'paint it blue');
  form.append('image', new Blob([await makeImage(64, 64)], { type: 'image/png' }), 'in.png');
  const encoded = new Response(form);
  const body = Buffer.from(await encoded.arrayBuffer());
  const started = Date.now();
  await leaveMidway('/images/edits', { 'content-type': encoded.headers.get('content-type')! }, body);
  await waitFor(async () => (await holds()) === 0, 4_000);
  expect(Date.now() - started).toBeLessThan(4_500); // well before the upstream's 5 s answer
  expect((await u.t.gateway.billing.view(key.accountId)).balance_usd).toBe(before);
  await expectDepartureLogged('/v1/images/edits', started);
});

it('a fal image: the queued job is cancelled and the hold released', async () => {
  u.fal.behaviour.stuck = true;
  try {
    const before = (await u.t.gateway.billing.view(key.accountId)).balance_usd;
    const started = Date.now();
    const cancelsBefore = u.fal.cancelCalls.length;
    await leaveMidway('/images/generations', { 'content-type': 'application/json' }, JSON.stringify({ model: 'fal-image', prompt: 'a quiet harbour' }));
    await waitFor(async () => u.fal.cancelCalls.length > cancelsBefore && (await holds()) === 0, 5_000);
    expect((await u.t.gateway.billing.view(key.accountId)).balance_usd).toBe(before);
    await expectDepartureLogged('/v1/images/generations', started);
  } finally {
    u.fal.behaviour.stuck = false;
  }
});
