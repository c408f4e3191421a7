// Shutdown of the HTTP door: a request in flight when close() is called still gets its answer;
// connections that carry no request (keep-alive, pre-connected, a studio event stream) do not
// hold the shutdown for a keep-alive or headers timeout; and whatever is still open after the
// grace period is cut, with its hold released.
import { rmSync } from 'node:fs';
import { Agent, createServer, request, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { createStudio } from '../../electron/core/studio/studio.js';
import { loadStudioToken } from '../../electron/core/studio/studio-token.js';
import { startHttpServer } from '../../electron/http/server.js';
import { startTestGateway, USD, type TestGateway } from '../helpers/gateway.js';
import { waitFor } from '../helpers/stub-video-provider.js';
import { registerGateway } from '../helpers/conformance.js';

let t: TestGateway | null = null;
let silentUpstream: Server | null = null;
afterEach(async () => {
  silentUpstream?.closeAllConnections();
  silentUpstream?.close();
  silentUpstream = null;
  await t?.gateway.close().catch(() => undefined);
  if (t) rmSync(t.dataDir, { recursive: true, force: true });
  t = null;
});

const timed = async (fn: () => Promise<unknown>): Promise<number> => {
  const started = Date.now();
  await fn();
  return Date.now() - started;
};

function postImage(baseUrl: string, token: string, model: string, agent?: Agent) {
  const body = JSON.stringify({ model, prompt: 'a lighthouse at dusk', size: '1024x1024' });
  return new Promise<{ status: number; bytes: number }>((resolve, reject) => {
    const req = request(`${baseUrl}/images/generations`, { method: 'POST', ...(agent ? { agent } : {}), headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * An OpenAI-style upstream that reads each request and never answers (within the gateway's
 * 120 s timeout), as provider "silent" with model "silent-image". Resolves `closed` when the
 * gateway hangs up on it.
 */
async function startSilentUpstream(gateway: TestGateway['gateway']): Promise<{ closed: Promise<void> }> {
  let hungUp!: () => void;
  const closed = new Promise<void>((resolve) => (hungUp = resolve));
  silentUpstream = createServer((req, res) => {
    req.resume();
    res.on('close', hungUp);
  });
  await new Promise<void>((resolve) => silentUpstream!.listen(0, '127.0.0.1', resolve));
  const port = (silentUpstream.address() as AddressInfo).port;
  await gateway.providerConfigs.add({ id: 'silent', kind: 'openai', baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: 'sk-silent' });
  const record = structuredClone((await gateway.catalog.find('local-image'))!.record);
  await gateway.catalog.put({ record: { ...record, id: 'silent-image' }, providerId: 'silent', upstreamModel: 'gpt-image-1' });
  return { closed };
}

it('close() waits for a request in flight, answers it, then ends its keep-alive connection at once', async () => {
  t = await startTestGateway({ background: false });
  const { token, accountId } = await t.key('balance', { balanceNano: USD });
  const agent = new Agent({ keepAlive: true });
  const answered = postImage(t.baseUrl, token, 'local-image', agent);
  // The request is read and rendering (its hold is taken) when the server is told to stop.
  await waitFor(async () => (await t!.gateway.billing.activeHolds(accountId)).length > 0, 10_000, 1);
  const closedIn = await timed(() => t!.server.close());
  const response = await answered;
  expect(response.status).toBe(200);
  expect(response.bytes).toBeGreaterThan(1000);
  // Without the idle sweep this waits for the keep-alive timeout (72 s) and the test times out.
  expect(closedIn).toBeLessThan(10_000);
  agent.destroy();
});

it('a connection that never sent a request does not hold close()', async () => {
  t = await startTestGateway({ background: false });
  const socket = connect(t.server.port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  const ended = new Promise((resolve) => socket.once('close', resolve));
  expect(await timed(() => t!.server.close())).toBeLessThan(5_000);
  await ended;
});

it('an open studio event stream is ended by close()', async () => {
  t = await startTestGateway({ background: false });
  const studio = await createStudio(t.gateway, { version: 'test' });
  const ownerToken = loadStudioToken(t.dataDir);
  const server = await startHttpServer(t.gateway, { host: '127.0.0.1', port: 0, studio: { studio, ownerToken } });
  registerGateway(server.baseUrl);
  const stream = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
    request(`http://127.0.0.1:${server.port}/studio/events`, { headers: { authorization: `Bearer ${ownerToken}` } }, resolve).on('error', reject).end();
  });
  expect(stream.statusCode).toBe(200);
  const ended = new Promise((resolve) => stream.on('end', resolve).resume());
  expect(await timed(() => server.close())).toBeLessThan(5_000);
  await ended;
  studio.dispose();
  await t.server.close();
});

it('a request still open after the grace period is cut, and its hold released', async () => {
  t = await startTestGateway({ background: false });
  await startSilentUpstream(t.gateway);
  await t.server.close();
  const server = await startHttpServer(t.gateway, { host: '127.0.0.1', port: 0, closeGraceMs: 300 });
  registerGateway(server.baseUrl);
  const { token, accountId } = await t.key('balance', { balanceNano: USD });
  const pending = postImage(server.baseUrl, token, 'silent-image');
  await waitFor(async () => (await t!.gateway.billing.activeHolds(accountId)).length > 0, 10_000, 1);

  expect(await timed(() => server.close())).toBeLessThan(5_000);
  await expect(pending).rejects.toThrow();
  // The cut client is not charged: its upstream call stops and its hold is released.
  await waitFor(async () => (await t!.gateway.billing.activeHolds(accountId)).length === 0, 5_000);
  expect((await t.gateway.billing.view(accountId)).balance_usd).toBe('1.00000000');
});

it('a client that leaves before its image arrives stops the upstream call and pays nothing', async () => {
  t = await startTestGateway({ background: false });
  const upstream = await startSilentUpstream(t.gateway);
  const { token, accountId } = await t.key('balance', { balanceNano: USD });
  const req = request(`${t.baseUrl}/images/generations`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });
  req.on('error', () => undefined);
  req.end(JSON.stringify({ model: 'silent-image', prompt: 'x' }));
  await waitFor(async () => (await t!.gateway.billing.activeHolds(accountId)).length > 0, 5_000, 1);
  req.destroy();
  await upstream.closed;
  await waitFor(async () => (await t!.gateway.billing.activeHolds(accountId)).length === 0, 5_000);
  expect((await t.gateway.billing.view(accountId)).balance_usd).toBe('1.00000000');
});

it('the gateway stops without waiting for an upstream call in flight', async () => {
  t = await startTestGateway({ background: false });
  await startSilentUpstream(t.gateway);
  const owner = await t.key('balance', { balanceNano: USD });
  const principal = await t.gateway.keys.authenticate(owner.token);
  const call = t.gateway.images.generate(principal, { model: 'silent-image', prompt: 'x' });
  await waitFor(async () => (await t!.gateway.billing.activeHolds(owner.accountId)).length > 0, 5_000, 1);
  await t.server.close();
  expect(await timed(() => t!.gateway.close())).toBeLessThan(5_000);
  await expect(call).rejects.toMatchObject({ code: 'upstream_unavailable' });
});
