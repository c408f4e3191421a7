// The connection test and discovery use a provider's key without building its adapter, so the
// log redaction must know every configured key, not only those of adapters already built. The
// upstream here refuses every key and echoes it whole in its 401 body, as some
// OpenAI-compatible servers do.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isGatewayError } from '../../electron/core/errors.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { capturingLogger, type UpstreamSetup } from '../helpers/upstreams.js';

const STORED_KEY = 'sk-stored-LEAKME-0001';
const ENV_KEY = 'sk-env-LEAKME-0002';
const ENV_NAME = 'MGW_TEST_REDACTION_KEY';

let upstream: Server;
let baseUrl: string;
let t: TestGateway;
const logs: UpstreamSetup['logs'] = [];

beforeAll(async () => {
  upstream = createServer((req, res) => {
    res.writeHead(401, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${req.headers.authorization ?? ''}` } }));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;
  process.env[ENV_NAME] = ENV_KEY;
  t = await startTestGateway({ logger: capturingLogger(logs), background: false });
  await t.gateway.providerConfigs.add({ id: 'stored', kind: 'openai', baseUrl, apiKey: STORED_KEY });
  await t.gateway.providerConfigs.add({ id: 'envkey', kind: 'openai', baseUrl, apiKeyEnv: ENV_NAME });
});

afterAll(async () => {
  delete process.env[ENV_NAME];
  await t?.close();
  await new Promise((resolve) => upstream?.close(resolve));
});

describe('a provider that has never served a request', () => {
  it.each([
    ['a stored key', 'stored', STORED_KEY],
    ['an env-named key', 'envkey', ENV_KEY],
  ])('with %s: the connection test and discovery log the 401 body with the key redacted', async (_label, id, key) => {
    const before = logs.length;
    const check = await t.gateway.providerAdmin.check(id);
    expect(check.ok).toBe(false);
    const discovered = await t.gateway.providerAdmin.discover(id).catch((error: unknown) => error);
    expect(isGatewayError(discovered) && discovered.code).toBe('upstream_unavailable');

    const lines = logs.slice(before).filter((l) => l.fields.status === 401);
    // Both calls reached the upstream and logged its body, so there is something to check.
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line.fields.body).toContain('Bearer [REDACTED]');
    expect(JSON.stringify(logs)).not.toContain(key);
  });
});

describe('a key sent as HTTP Basic (AUTOMATIC1111 USER:PASS)', () => {
  it('is redacted in its base64 form too when an error body echoes the Authorization header', async () => {
    const userPass = 'owner:LEAKME-basic-0003';
    const encoded = Buffer.from(userPass).toString('base64');
    await t.gateway.providerConfigs.add({ id: 'webui', kind: 'a1111', baseUrl: baseUrl.replace(/\/v1$/, ''), apiKey: userPass });
    const before = logs.length;
    const check = await t.gateway.providerAdmin.check('webui');
    expect(check.ok).toBe(false);
    const lines = logs.slice(before).filter((l) => l.fields.status === 401);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line.fields.body).toContain('Basic [REDACTED]');
    const logged = JSON.stringify(logs);
    expect(logged).not.toContain(encoded);
    expect(logged).not.toContain(userPass);
  });
});
