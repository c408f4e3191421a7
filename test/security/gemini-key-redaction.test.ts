// The gemini kind's key (sent as x-goog-api-key) against an upstream that refuses it and echoes
// it whole in its error body, as a misbehaving proxy in front of the Gemini API might: the
// connection test (which runs without building the adapter), an image and a video creation log
// the body with the key redacted, and no client answer carries the key or the body.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelRecord } from '../../shared/api-types.js';
import { startTestGateway, USD, type TestGateway } from '../helpers/gateway.js';
import { postJson } from '../helpers/http.js';
import { capturingLogger, type UpstreamSetup } from '../helpers/upstreams.js';

const STORED_KEY = 'AIzaStored-LEAKME-0003';
const ENV_KEY = 'AIzaEnv-LEAKME-0004';
const ENV_NAME = 'MGW_TEST_GEMINI_REDACTION_KEY';

let upstream: Server;
let baseUrl: string;
let t: TestGateway;
const logs: UpstreamSetup['logs'] = [];

beforeAll(async () => {
  upstream = createServer((req, res) => {
    const key = String(req.headers['x-goog-api-key'] ?? '');
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { code: 400, status: 'INVALID_ARGUMENT', message: `API key not valid: ${key}`, details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', metadata: { key } }] } }));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  process.env[ENV_NAME] = ENV_KEY;
  t = await startTestGateway({ logger: capturingLogger(logs), background: false });
  await t.gateway.providerConfigs.add({ id: 'stored', kind: 'gemini', baseUrl, apiKey: STORED_KEY });
  await t.gateway.providerConfigs.add({ id: 'envkey', kind: 'gemini', baseUrl, apiKeyEnv: ENV_NAME });
  const image = (await t.gateway.catalog.find('local-image'))!.record;
  const video = (await t.gateway.catalog.find('local-video'))!.record;
  for (const id of ['stored', 'envkey']) {
    await t.gateway.catalog.put({ record: { ...image, id: `${id}/nano`, owned_by: id, pricing: { input: 1, output: 10, currency: 'USD', unit: '1M tokens' } } as ModelRecord, providerId: id, upstreamModel: 'gemini-2.5-flash-image' });
    await t.gateway.catalog.put({
      record: { ...video, id: `${id}/veo`, owned_by: id, pricing: { price: 0.1, currency: 'USD', unit: 'second' }, capabilities: { ...video.capabilities, supported_seconds: [4], supported_sizes: ['1280x720'] } } as ModelRecord,
      providerId: id,
      upstreamModel: 'veo-3.0-generate-001',
    });
  }
});

afterAll(async () => {
  delete process.env[ENV_NAME];
  await t?.close();
  await new Promise((resolve) => upstream?.close(resolve));
});

describe('a gemini provider whose upstream echoes the key', () => {
  it.each([
    ['a stored key', 'stored', STORED_KEY],
    ['an env-named key', 'envkey', ENV_KEY],
  ])('with %s: the check, an image and a video log the body redacted; clients get 503 in gateway words', async (_label, id, key) => {
    const before = logs.length;
    const check = await t.gateway.providerAdmin.check(id);
    expect(check).toMatchObject({ ok: false });
    expect(check.message).not.toContain(key);
    const { token } = await t.key('balance', { balanceNano: USD });
    const image = await postJson(`${t.baseUrl}/images/generations`, { model: `${id}/nano`, prompt: 'x', size: '1024x1024' }, token);
    const video = await postJson(`${t.baseUrl}/videos`, { model: `${id}/veo`, prompt: 'x', seconds: 4, size: '1280x720' }, token);
    for (const answer of [image, video]) {
      expect(answer.status).toBe(503);
      expect(JSON.stringify(answer.body)).toMatch(/provider key \(API_KEY_INVALID\)/);
      expect(JSON.stringify(answer.body)).not.toContain(key);
    }
    const lines = logs.slice(before).filter((l) => l.fields.status === 400);
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line.fields.body).toContain('API key not valid: [REDACTED]');
    expect(JSON.stringify(logs)).not.toContain(key);
  });
});
