// The fault mapping on every route that creates work upstream, not only image generations: an
// OpenAI-style edit (multipart), an OpenAI-style video creation (/videos) and a fal queue
// submission (video and image), each answered by a real emulator fault or a closed port. Every
// row must give its status, code, `type` equal to the code and `param: null`, keep a 429's
// Retry-After, never carry the upstream body, hold nothing and leave no task; and the creation
// is sent upstream once, never retried (a retry could create and bill twice). The emulators run in
// processes of their own, so the timeout row measures the gateway's deadline, not a shared loop.
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VideoTask } from '../../shared/api-types.js';
import type { Fault } from '../emulators/index.js';
import { USD } from '../helpers/gateway.js';
import { errorOf, postForm, postJson, request, type RawResponse } from '../helpers/http.js';
import { makeImage } from '../helpers/images.js';
import { startRemoteUpstreams, type RemoteUpstreamSetup } from '../helpers/remote-upstreams.js';

const SECRET = 'sk-upstream-SECRET-c0de';
let u: RemoteUpstreamSetup;
let key: { id: string; token: string; accountId: string };

/** A loopback port nothing listens on: connections to it are refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  u = await startRemoteUpstreams({ totalTimeoutMs: 1_500 });
  key = await u.t.key('balance', { balanceNano: 50 * USD });
  const port = await closedPort();
  await u.t.gateway.providerConfigs.add({ id: 'gone', kind: 'openai', baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: 'sk-gone-key' });
  await u.t.gateway.providerConfigs.add({ id: 'fal-gone', kind: 'fal', baseUrl: `http://127.0.0.1:${port}`, apiKey: 'fal-gone-key' });
  const record = async (id: string) => structuredClone((await u.t.gateway.catalog.find(id))!.record);
  await u.t.gateway.catalog.put({ record: { ...(await record('up-image')), id: 'gone-image' }, providerId: 'gone', upstreamModel: 'gpt-image-1' });
  await u.t.gateway.catalog.put({ record: { ...(await record('up-video')), id: 'gone-video' }, providerId: 'gone', upstreamModel: 'sora-2' });
  await u.t.gateway.catalog.put({ record: { ...(await record('fal-video')), id: 'fal-gone-video' }, providerId: 'fal-gone', upstreamModel: 'fal-ai/kling-video/v2/master/text-to-video' });
}, 30_000);
afterAll(() => u.close());

const secretBody = JSON.stringify({ error: { message: `upstream says no; internal token ${SECRET}` }, detail: SECRET });

/** Fault, then the status and code the client must get. */
const rows: [string, Fault, number, string][] = [
  ['400', { status: 400, body: secretBody }, 400, 'upstream_bad_request'],
  ['404', { status: 404, body: secretBody }, 400, 'upstream_bad_request'],
  ['422', { status: 422, body: secretBody }, 400, 'upstream_bad_request'],
  ['429', { status: 429, body: secretBody, headers: { 'retry-after': '6' } }, 429, 'upstream_rate_limited'],
  ['401', { status: 401, body: secretBody }, 503, 'upstream_unavailable'],
  ['403', { status: 403, body: secretBody }, 503, 'upstream_unavailable'],
  ['500', { status: 500, body: secretBody }, 503, 'upstream_unavailable'],
  ['502', { status: 502, body: secretBody }, 503, 'upstream_unavailable'],
  ['connection reset', { reset: true }, 503, 'upstream_unavailable'],
  ['truncated body', { truncate: true }, 503, 'upstream_unavailable'],
  ['timeout', { latencyMs: 3_000 }, 503, 'upstream_unavailable'],
  ['malformed JSON', { body: `{"id": "${SECRET}` }, 502, 'upstream_invalid_response'],
];

const auth = () => ({ authorization: `Bearer ${key.token}` });

async function editOn(model: string): Promise<RawResponse> {
  const form = new FormData();
  form.append('model', model);
  form.append('prompt', 'make it dusk');
  form.append('image', new Blob([new Uint8Array(await makeImage(64, 64))], { type: 'image/png' }), 'a.png');
  return postForm(`${u.t.baseUrl}/images/edits`, form, key.token);
}

const sent = (emulator: 'openai' | 'fal', route: string) => async () => (await u[emulator].requests()).filter((r) => r.route === route).length;

const routes: { name: string; inject: (fault: Fault) => Promise<void>; send: () => Promise<RawResponse>; video: boolean; creations: () => Promise<number> }[] = [
  { name: 'openai POST /images/edits', inject: (f) => u.openai.inject('POST /v1/images/edits', { ...f, times: 1 }), send: () => editOn('up-image'), video: false, creations: sent('openai', 'POST /v1/images/edits') },
  {
    name: 'openai POST /videos',
    inject: (f) => u.openai.inject('POST /v1/videos', { ...f, times: 1 }),
    send: () => postJson(`${u.t.baseUrl}/videos`, { model: 'up-video', prompt: 'x', seconds: 4, size: '1280x720' }, key.token),
    video: true,
    creations: sent('openai', 'POST /v1/videos'),
  },
  {
    name: 'fal submit (video)',
    inject: (f) => u.fal.inject('POST submit', { ...f, times: 1 }),
    send: () => postJson(`${u.t.baseUrl}/videos`, { model: 'fal-video', prompt: 'x', seconds: 5 }, key.token),
    video: true,
    creations: sent('fal', 'POST submit'),
  },
  {
    name: 'fal submit (image)',
    inject: (f) => u.fal.inject('POST submit', { ...f, times: 1 }),
    send: () => postJson(`${u.t.baseUrl}/images/generations`, { model: 'fal-image', prompt: 'x', size: '256x256' }, key.token),
    video: false,
    creations: sent('fal', 'POST submit'),
  },
];

async function videoTaskCount(): Promise<number> {
  const list = (await request(`${u.t.baseUrl}/videos?limit=100`, { headers: auth() })).body as { data: VideoTask[] };
  return list.data.length;
}

function expectMapped(response: RawResponse, status: number, code: string): void {
  expect(response.status).toBe(status);
  expect(errorOf(response)).toMatchObject({ code, type: code, param: null });
  expect(response.text).not.toContain(SECRET);
  expect(response.text).not.toContain('upstream says no');
}

describe.each(routes)('$name', (route) => {
  it.each(rows)('%s -> %i %s, nothing held, no task left', async (_name, fault, status, code) => {
    const before = await u.t.gateway.billing.view(key.accountId);
    const tasks = await videoTaskCount();
    const creations = await route.creations();
    await route.inject(fault);
    const response = await route.send();
    await u.openai.clearFaults();
    await u.fal.clearFaults();
    expectMapped(response, status, code);
    expect(await route.creations()).toBe(creations + 1);
    if (status === 429) expect(response.headers.get('retry-after')).toBe('6');
    // The message says what happened: a connection made and then closed is not one never made.
    if (fault.reset) expect(errorOf(response).message).toBe('The upstream provider is temporarily unavailable (it closed the connection before answering).');
    expect(await u.t.gateway.billing.view(key.accountId)).toEqual(before);
    if (route.video) expect(await videoTaskCount()).toBe(tasks);
  });
});

describe('a provider whose port refuses connections', () => {
  it.each([
    ['an image generation', () => postJson(`${u.t.baseUrl}/images/generations`, { model: 'gone-image', prompt: 'x', size: '1024x1024' }, key.token)],
    ['an image edit', () => editOn('gone-image')],
    ['an OpenAI-style video creation', () => postJson(`${u.t.baseUrl}/videos`, { model: 'gone-video', prompt: 'x', seconds: 4, size: '1280x720' }, key.token)],
    ['a fal video submission', () => postJson(`${u.t.baseUrl}/videos`, { model: 'fal-gone-video', prompt: 'x', seconds: 5 }, key.token)],
  ])('%s -> 503 upstream_unavailable, nothing held, no task left', async (_name, send) => {
    const before = await u.t.gateway.billing.view(key.accountId);
    const tasks = await videoTaskCount();
    const response = await send();
    expectMapped(response, 503, 'upstream_unavailable');
    expect(errorOf(response).message).toBe('The upstream provider is temporarily unavailable (could not connect).');
    expect(await u.t.gateway.billing.view(key.accountId)).toEqual(before);
    expect(await videoTaskCount()).toBe(tasks);
  });
});
