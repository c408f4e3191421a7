// A client that disconnects before its image arrives pays nothing, whatever the route and the
// provider: the upstream work is stopped (the call aborted, a queued job cancelled) and the hold
// released. (Generations through an OpenAI-style upstream: server-shutdown.test.ts.)
import { request } from 'node:http';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { ImageProvider } from '../../electron/core/providers/provider.js';
import { pino } from 'pino';
import { startHttpServer } from '../../electron/http/server.js';
import { USD } from '../helpers/gateway.js';
import { makeImage } from '../helpers/images.js';
import { waitFor } from '../helpers/stub-video-provider.js';
import { startUpstreams, type UpstreamSetup } from '../helpers/upstreams.js';
import { registerGateway } from '../helpers/conformance.js';

let u: UpstreamSetup;
let key: { id: string; token: string; accountId: string };

beforeAll(async () => {
  u = await startUpstreams();
  key = await u.t.key('balance', { balanceNano: 10 * USD });
});
afterAll(() => u.close());

const holds = async () => (await u.t.gateway.billing.activeHolds(key.accountId)).length;

/** Sends the request, waits until the gateway holds money for it, then hangs up. */
async function leaveMidway(path: string, headers: Record<string, string>, body: Buffer | string, baseUrl = u.t.baseUrl): Promise<void> {
  const req = request(`${baseUrl}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key.token}`, ...headers } });
  req.on('error', () => undefined);
  req.end(body);
  await waitFor(async () => (await holds()) > 0, 15_000, 1);
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
  // The provider's call, to see how it ended: aborted, not answered 5 s later.
  const provider = await u.t.gateway.providers.image('up');
  const editImage = provider.editImage.bind(provider);
  const calls: Promise<string>[] = [];
  const spy = vi.spyOn(provider, 'editImage').mockImplementation((job) => {
    const call = editImage(job);
    calls.push(call.then(() => 'answered', (error: unknown) => (job.signal?.aborted ? 'aborted' : `failed: ${String(error)}`)));
    return call;
  });
  try {
    const before = (await u.t.gateway.billing.view(key.accountId)).balance_usd;
    const form = new FormData();
    form.append('model', 'up-image');
    form.append('prompt', 'paint it blue');
    form.append('image', new Blob([await makeImage(64, 64)], { type: 'image/png' }), 'in.png');
    const encoded = new Response(form);
    const body = Buffer.from(await encoded.arrayBuffer());
    const started = Date.now();
    await leaveMidway('/images/edits', { 'content-type': encoded.headers.get('content-type')! }, body);
    await waitFor(async () => (await holds()) === 0, 15_000);
    expect(await Promise.all(calls)).toEqual(['aborted']);
    expect((await u.t.gateway.billing.view(key.accountId)).balance_usd).toBe(before);
    await expectDepartureLogged('/v1/images/edits', started);
  } finally {
    spy.mockRestore();
  }
});

it('a fal image: the queued job is cancelled and the hold released', async () => {
  u.fal.behaviour.stuck = true;
  try {
    const before = (await u.t.gateway.billing.view(key.accountId)).balance_usd;
    const started = Date.now();
    const cancelsBefore = u.fal.cancelCalls.length;
    await leaveMidway('/images/generations', { 'content-type': 'application/json' }, JSON.stringify({ model: 'fal-image', prompt: 'a quiet harbour' }));
    await waitFor(async () => u.fal.cancelCalls.length > cancelsBefore && (await holds()) === 0, 15_000);
    expect((await u.t.gateway.billing.view(key.accountId)).balance_usd).toBe(before);
    await expectDepartureLogged('/v1/images/generations', started);
  } finally {
    u.fal.behaviour.stuck = false;
  }
});

it('the built-in engine, which cannot stop a render: the image it finishes anyway is not charged', async () => {
  // Like the engine, this provider ignores the abort and answers a real image once the caller
  // has gone; the gateway must drop it, release the hold and write nothing.
  const engine = (await u.t.gateway.providers.image('local')) as ImageProvider;
  let finished = 0;
  const stubborn: ImageProvider = {
    id: 'stubborn',
    kind: 'test',
    estimateImageUsage: (job) => engine.estimateImageUsage(job),
    generateImage: async (job) => {
      await waitFor(async () => job.signal?.aborted === true, 15_000, 1);
      const outcome = await engine.generateImage({ ...job, signal: undefined });
      finished++;
      return outcome;
    },
    editImage: (job) => engine.editImage(job),
  };
  u.t.gateway.providers.register(stubborn);
  const record = (await u.t.gateway.catalog.find('local-image'))!.record;
  await u.t.gateway.catalog.put({ record: { ...record, id: 'stubborn-image' }, providerId: 'stubborn', upstreamModel: 'x' });
  const before = (await u.t.gateway.billing.view(key.accountId)).balance_usd;
  const ledgerBefore = (await u.t.gateway.billing.ledgerFor(key.accountId)).length;
  // A server of its own on the same gateway, whose HTTP log lines the test reads.
  const lines: { level: number; msg: string; method?: string; url?: string }[] = [];
  // Debug: the server's "incoming request" line tells when it has a request in hand.
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as (typeof lines)[number]) });
  const server = await startHttpServer(u.t.gateway, { host: '127.0.0.1', port: 0, logger });
  registerGateway(server.baseUrl);
  try {
    const started = Date.now();
    await leaveMidway('/images/generations', { 'content-type': 'application/json' }, JSON.stringify({ model: 'stubborn-image', prompt: 'a quiet harbour' }), server.baseUrl);
    await waitFor(async () => finished === 1 && (await holds()) === 0, 15_000);
    expect((await u.t.gateway.billing.view(key.accountId)).balance_usd).toBe(before);
    expect(await u.t.gateway.billing.ledgerFor(key.accountId)).toHaveLength(ledgerBefore);
    await expectDepartureLogged('/v1/images/generations', started);
    // A departure is not a fault of the gateway: logged as such, never as an internal error.
    await waitFor(async () => lines.some((l) => l.msg === 'the client left before its answer'), 10_000);
    // An upload cut short is a departure too.
    const departures = lines.length;
    const upload = request(`${server.baseUrl}/videos`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.token}`, 'content-type': 'multipart/form-data; boundary=cut', 'content-length': String(4 * 1024 * 1024) },
    });
    upload.on('error', () => undefined);
    upload.write('--cut\r\ncontent-disposition: form-data; name="input_reference"; filename="a.png"\r\ncontent-type: image/png\r\n\r\n');
    upload.write(Buffer.alloc(256 * 1024));
    // Cut once the server is handling it (before that, there is no request to leave).
    await waitFor(async () => lines.slice(departures).some((l) => l.msg === 'incoming request' && l.method === 'POST' && l.url === '/v1/videos'), 10_000, 1);
    upload.destroy();
    await waitFor(async () => lines.slice(departures).some((l) => l.msg === 'the client left before its answer'), 10_000);
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
  } finally {
    await server.close();
  }
});
