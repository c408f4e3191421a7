// Secrets never leak: API tokens, the studio owner token and provider keys appear in no log line
// (the gateway's logger, Fastify's request log at trace level, and the real `mgw serve` stderr
// at debug level), in no error body, in no studio answer (keys.list, providers.list, system.info,
// activity.list, ...), and client tokens are never forwarded to upstream providers -- even when
// an upstream echoes its key back in an error body.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStudio, type Studio } from '../../electron/core/studio/studio.js';
import { loadStudioToken } from '../../electron/core/studio/studio-token.js';
import { startHttpServer, type RunningServer } from '../../electron/http/server.js';
import { mgw, serve } from '../helpers/cli.js';
import { tempDir, USD } from '../helpers/gateway.js';
import type { RawResponse } from '../helpers/http.js';
import { startUpstreams, type UpstreamSetup } from '../helpers/upstreams.js';
import { waitFor } from '../helpers/stub-video-provider.js';
import { checkResponse, fetchRaw, rawRequest } from './support.js';
import { registerGateway } from '../helpers/conformance.js';

const STUDIO_PROVIDER_KEY = 'sk-studio-added-SECRET-7c1e9b';

let u: UpstreamSetup;
let studio: Studio;
let server: RunningServer;
let ownerToken: string;
let a: { id: string; token: string; accountId: string };
let b: { id: string; token: string; accountId: string };
let createdToken = '';
const fastifyLines: string[] = [];
/** Every answer the tests saw, except the two that hand out a token by design. */
const seen: { label: string; text: string }[] = [];

beforeAll(async () => {
  u = await startUpstreams({ totalTimeoutMs: 2_000 });
  a = await u.t.key('balance', { balanceNano: 50 * USD });
  b = await u.t.key('balance', { balanceNano: 50 * USD });
  studio = await createStudio(u.t.gateway, { version: 'test', apiBaseUrl: () => u.t.baseUrl });
  ownerToken = loadStudioToken(u.t.dataDir);
  // A second door on the same gateway with Fastify's own request log at its most verbose.
  const logger = pino({ level: 'trace' }, { write: (line: string) => void fastifyLines.push(line) });
  server = await startHttpServer(u.t.gateway, { host: '127.0.0.1', port: 0, logger, studio: { studio, ownerToken } });
  registerGateway(server.baseUrl);
}, 30_000);

afterAll(async () => {
  studio?.dispose();
  await server?.close();
  await u?.close();
});

const secrets = () => [a.token, b.token, ownerToken, u.openai.apiKey, u.fal.apiKey, STUDIO_PROVIDER_KEY, ...(createdToken ? [createdToken] : [])];

function record(label: string, response: RawResponse): RawResponse {
  const headers = [...response.headers.entries()].map(([k, v]) => `${k}: ${v}`).join('\n');
  seen.push({ label, text: `${headers}\n\n${response.text}` });
  return response;
}

/** /v1 requests sent through v1(): each one reaches a route, so each is written to the activity log. */
let v1Sent = 0;

function v1(method: string, path: string, token: string | null, body?: unknown, headers: Record<string, string> = {}) {
  v1Sent += 1;
  return rawRequest({
    port: server.port,
    method,
    path: `/v1${path}`,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    timeoutMs: 20_000,
  }).then((r) => record(`${method} ${path}`, r));
}

function studioCall(method: string, input: unknown, headers: Record<string, string> = { authorization: `Bearer ${ownerToken}` }, keep = true) {
  return rawRequest({
    port: server.port,
    method: 'POST',
    path: `/studio/api/${method}`,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(input),
    timeoutMs: 20_000,
  }).then((r) => (keep ? record(`studio ${method}`, r) : r));
}

function assertNoSecret(text: string, where: string): void {
  for (const secret of secrets()) {
    if (text.includes(secret)) throw new Error(`${where} contains a secret (${secret.slice(0, 6)}...)`);
  }
}

describe('in-process: requests that succeed, fail upstream, and fail authentication', () => {
  it('drives the gateway through its secret-bearing paths', async () => {
    const image = await v1('POST', '/images/generations', a.token, { model: 'up-image', prompt: 'ok', size: '1024x1024' });
    checkResponse(image, { statuses: [200] });

    // Upstreams that echo their own key in error bodies, on images, edits and videos.
    u.openai.inject('POST /v1/images/generations', { status: 500, body: `boom, the key was ${u.openai.apiKey}`, times: 1 });
    checkResponse(await v1('POST', '/images/generations', a.token, { model: 'up-image', prompt: 'x', size: '1024x1024' }), { upstream: true, statuses: [503] });
    u.openai.inject('POST /v1/images/generations', { status: 400, body: `{"error":{"message":"bad key ${u.openai.apiKey}"}}`, times: 1 });
    checkResponse(await v1('POST', '/images/generations', a.token, { model: 'up-image', prompt: 'x', size: '1024x1024' }), { statuses: [400] });
    u.openai.inject('POST /v1/videos', { status: 500, body: `video boom ${u.openai.apiKey} Bearer ${u.openai.apiKey}`, times: 1 });
    checkResponse(await v1('POST', '/videos', a.token, { model: 'up-video', prompt: 'x', seconds: 4, size: '1280x720' }), { upstream: true, statuses: [503] });
    u.fal.inject('POST submit', { status: 503, body: `fal says Key ${u.fal.apiKey}`, times: 1 });
    checkResponse(await v1('POST', '/images/generations', a.token, { model: 'fal-image', prompt: 'x', size: '1024x1024' }), { upstream: true, statuses: [503] });
    u.fal.inject('POST submit', { body: `{"request_id": "${u.fal.apiKey}"`, times: 1 });
    checkResponse(await v1('POST', '/videos', a.token, { model: 'fal-video', prompt: 'x', seconds: 5, size: '720p' }), { upstream: true });

    // Authentication failures with near-miss and misplaced tokens.
    const near = a.token.slice(0, -1) + (a.token.endsWith('A') ? 'B' : 'A');
    for (const token of [near, ownerToken, `${a.token} ${b.token}`]) {
      checkResponse(await v1('GET', '/videos', token), { statuses: [401] });
    }
    checkResponse(await v1('GET', '/videos', null, undefined, { authorization: `Basic ${Buffer.from(`x:${a.token}`).toString('base64')}` }), { statuses: [401] });
    checkResponse(await studioCall('keys.list', {}, { authorization: `Bearer ${a.token}` }), { statuses: [401] });
    checkResponse(await studioCall('keys.list', {}, { cookie: `mgw_studio=${b.token}` }), { statuses: [401] });

    // The studio: a provider added with a key, tested and discovered against an upstream that refuses it.
    checkResponse(await studioCall('providers.add', { id: 'st', kind: 'openai', base_url: u.openai.baseUrl, api_key: STUDIO_PROVIDER_KEY }), { statuses: [200] });
    checkResponse(await studioCall('providers.test', { id: 'st' }), { statuses: [200] });
    checkResponse(await studioCall('providers.discover', { id: 'st' }), { upstream: true, statuses: [200, 400] });
    const created = await studioCall('keys.create', { access: 'balance', balance_usd: '1', label: 'made in the studio' }, undefined, false);
    checkResponse(created, { statuses: [200] });
    createdToken = (created.body as { token: string }).token;
    checkResponse(await v1('POST', '/images/generations', createdToken, { model: 'local-image', prompt: 'new key', size: '256x256' }), { statuses: [200] });
    const session = await rawRequest({ port: server.port, method: 'POST', path: '/studio/session', headers: { authorization: `Bearer ${ownerToken}` } });
    expect(session.status).toBe(204);
    const cookie = session.headers.get('set-cookie')!.split(';')[0]!;
    checkResponse(await studioCall('billing.summary', {}, { cookie }), { statuses: [200] });
    for (const method of ['keys.list', 'providers.list', 'system.info', 'activity.list', 'catalog.list', 'billing.summary', 'gallery.list', 'videos.list']) {
      checkResponse(await studioCall(method, {}), { statuses: [200], label: method });
    }
    checkResponse(await studioCall('keys.usage', { id: a.id }), { statuses: [200] });
    record('GET /v1/models', await fetchRaw(`http://127.0.0.1:${server.port}/v1/models`));
    // The activity log has every /v1 request above before activity.list is read: each is
    // recorded after its answer was sent (and written in a batch), so its rows are awaited.
    await waitFor(async () => (await u.t.gateway.activity.recent(200)).length >= v1Sent || null, 10_000, 20);
    const activity = await studioCall('activity.list', { limit: 200 });
    checkResponse(activity, { statuses: [200] });
    expect((activity.body as { entries: unknown[] }).entries).toHaveLength(v1Sent);
  }, 60_000);

  it('no answer contains a token or a provider key (keys.list, providers.list, system.info, activity.list included)', () => {
    expect(seen.map((s) => s.label)).toEqual(expect.arrayContaining(['studio keys.list', 'studio providers.list', 'studio system.info', 'studio activity.list']));
    for (const { label, text } of seen) assertNoSecret(text, label);
    const providers = seen.find((s) => s.label === 'studio providers.list')!.text;
    expect(providers).toContain('"st"');
    expect(providers).toContain('stored');
  });

  it('no log line contains one: the gateway logger and Fastify\'s request log', () => {
    const gatewayLog = JSON.stringify(u.logs);
    // The upstream error bodies were logged (redacted), so the check has something to look at.
    expect(gatewayLog).toContain('[REDACTED]');
    assertNoSecret(gatewayLog, 'the gateway log');
    expect(fastifyLines.length).toBeGreaterThan(20);
    assertNoSecret(fastifyLines.join('\n'), 'the Fastify request log');
  });

  it('client tokens never reach an upstream provider', () => {
    const upstream = [...u.openai.requests, ...u.fal.requests];
    expect(upstream.length).toBeGreaterThan(3);
    for (const request of upstream) {
      const text = `${request.method} ${request.path}\n${JSON.stringify(request.headers)}\n${request.body.toString('latin1')}`;
      for (const token of [a.token, b.token, ownerToken, createdToken]) expect(text).not.toContain(token);
    }
  });
});

describe('the real mgw serve process, at debug level', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = tempDir('mgw-sec-');
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('writes no token or provider key to its log', async () => {
    const created = mgw(['keys', 'create', '--access', 'balance', '--balance-usd', '2', '--json', '--data-dir', dataDir]);
    expect(created.status).toBe(0);
    const token = (JSON.parse(created.stdout) as { token: string }).token;
    const logFile = join(dataDir, 'serve.log');
    // The helper copies the child's stderr to this file when the variable is set in this process.
    const previous = process.env.MGW_TEST_SERVE_LOG;
    process.env.MGW_TEST_SERVE_LOG = logFile;
    const served = await serve(['--data-dir', dataDir], { MGW_LOG_LEVEL: 'debug' });
    const providerKey = 'sk-serve-provider-SECRET-51d2';
    let owner = '';
    let newToken = '';
    try {
      owner = loadStudioToken(dataDir);
      const origin = served.baseUrl.replace(/\/v1$/, '');
      const post = (path: string, body: unknown, headers: Record<string, string>) =>
        fetchRaw(`${origin}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
      expect((await post('/v1/images/generations', { model: 'local-image', prompt: 'log me', size: '256x256' }, { authorization: `Bearer ${token}` })).status).toBe(200);
      expect((await post('/v1/images/generations', { model: 'local-image', prompt: 'x' }, { authorization: `Bearer ${token}x` })).status).toBe(401);
      expect((await post('/v1/images/generations', { model: 'local-image', prompt: 'x' }, { authorization: `Bearer ${owner}` })).status).toBe(401);
      expect((await post('/studio/api/keys.list', {}, { authorization: `Bearer ${token}` })).status).toBe(401);
      expect((await post('/studio/api/keys.list', {}, { authorization: `Bearer ${owner}` })).status).toBe(200);
      const session = await fetch(`${origin}/studio/session`, { method: 'POST', headers: { authorization: `Bearer ${owner}` } });
      const cookie = session.headers.get('set-cookie')!.split(';')[0]!;
      expect((await post('/studio/api/system.info', {}, { cookie })).status).toBe(200);
      expect((await post('/studio/api/providers.add', { id: 'closed', kind: 'openai', base_url: 'http://127.0.0.1:9/v1', api_key: providerKey }, { cookie })).status).toBe(200);
      expect((await post('/studio/api/providers.test', { id: 'closed' }, { cookie })).status).toBe(200);
      const made = await post('/studio/api/keys.create', { access: 'free', label: 'serve' }, { cookie });
      newToken = (made.body as { token: string }).token;
      expect((await fetchRaw(`${served.baseUrl}/videos`, { headers: { authorization: `Bearer ${newToken}` } })).status).toBe(200);
    } finally {
      await served.stop();
      if (previous === undefined) delete process.env.MGW_TEST_SERVE_LOG;
      else process.env.MGW_TEST_SERVE_LOG = previous;
    }
    const log = readFileSync(logFile, 'utf8');
    expect(log).toMatch(/incoming request|request completed/);
    for (const secret of [token, owner, providerKey, newToken]) {
      expect(secret.length).toBeGreaterThan(10);
      if (log.includes(secret)) throw new Error(`the mgw serve log contains a secret (${secret.slice(0, 6)}...)`);
    }
  }, 60_000);
});
