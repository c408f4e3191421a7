// The owner's per-provider timeout bounds one generation, and a long one is not cut by the HTTP
// door's idle timeout while the gateway waits (a local engine may take minutes per image with
// no byte moving on the client's connection).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHttpServer, type RunningServer } from '../../electron/http/server.js';
import { registerGateway } from '../helpers/conformance.js';
import { USD } from '../helpers/gateway.js';
import { errorOf, postJson } from '../helpers/http.js';
import { decodeB64 } from '../helpers/images.js';
import { startUpstreams, type UpstreamSetup } from '../helpers/upstreams.js';

const UPSTREAM_LATENCY_MS = 2_500;
let u: UpstreamSetup;
let short: RunningServer;
let key: { token: string; accountId: string };

beforeAll(async () => {
  u = await startUpstreams();
  // A door whose connections are cut after 300 ms with no byte moving.
  short = await startHttpServer(u.t.gateway, { host: '127.0.0.1', port: 0, idleTimeoutMs: 300 });
  registerGateway(short.baseUrl);
  key = await u.t.key('balance', { balanceNano: 10 * USD });
});
afterAll(async () => {
  await short.close();
  await u.close();
});

const generate = () => postJson(`${short.baseUrl}/images/generations`, { model: 'up-image', prompt: 'slow', size: '1024x1024' }, key.token);

it('a provider timeout shorter than the generation ends it with 503, nothing charged', async () => {
  await u.t.gateway.providerConfigs.update({ id: 'up', timeoutSeconds: 1 });
  u.openai.inject('POST /v1/images/generations', { latencyMs: UPSTREAM_LATENCY_MS, times: 1 });
  const before = await u.t.gateway.billing.view(key.accountId);
  const response = await generate();
  expect(response.status).toBe(503);
  expect(errorOf(response).code).toBe('upstream_unavailable');
  expect(await u.t.gateway.billing.view(key.accountId)).toEqual(before);
});

it('a longer provider timeout lets it finish, past the door idle timeout', async () => {
  await u.t.gateway.providerConfigs.update({ id: 'up', timeoutSeconds: 30 });
  u.openai.inject('POST /v1/images/generations', { latencyMs: UPSTREAM_LATENCY_MS, times: 1 });
  const response = await generate();
  expect(response.status).toBe(200);
  const image = await decodeB64((response.body as { data: [{ b64_json: string }] }).data[0].b64_json);
  expect([image.width, image.height]).toEqual([1024, 1024]);
});

it('the idle timeout still cuts a connection that sends nothing', async () => {
  const { connect } = await import('node:net');
  const socket = connect(short.port, '127.0.0.1');
  const closed = await new Promise<number>((resolve) => {
    const started = Date.now();
    socket.on('close', () => resolve(Date.now() - started));
    socket.on('error', () => undefined);
  });
  expect(closed).toBeLessThan(10_000);
});
