// The replicate kind and its key: an upstream that echoes the Authorization header in its problem
// bodies (and in an invalid_fields entry, and in a failed prediction's error) must have it
// redacted from every log line, and neither the key nor anything of those bodies may reach a
// client. The connection test uses the key without building the adapter, so its 401 is checked too.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelRecord } from '../../shared/api-types.js';
import { startTestGateway, USD, type TestGateway } from '../helpers/gateway.js';
import { postJson } from '../helpers/http.js';
import { capturingLogger, type UpstreamSetup } from '../helpers/upstreams.js';

const KEY = 'r8_LEAKME_replicate_0003';
let upstream: Server;
let t: TestGateway;
let token: string;
const logs: UpstreamSetup['logs'] = [];
/** What the fake Replicate answers the next creation with. */
let answer: 'unauthenticated' | 'invalid' | 'failed' = 'unauthenticated';

beforeAll(async () => {
  upstream = createServer((req, res) => {
    const echoed = String(req.headers.authorization ?? '');
    const problem = (status: number, body: object) => {
      res.writeHead(status, { 'content-type': 'application/problem+json' });
      res.end(JSON.stringify({ status, ...body }));
    };
    if (req.url === '/v1/account' || answer === 'unauthenticated') return problem(401, { title: 'Unauthenticated', detail: `Invalid token: ${echoed}` });
    if (answer === 'invalid') return problem(422, { title: 'Input validation failed', detail: echoed, invalid_fields: [{ type: 'required', field: `input.${KEY}`, description: echoed }] });
    res.writeHead(201, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: 'p1', status: 'failed', error: `model crashed; token ${echoed}`, output: null, logs: echoed }));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  t = await startTestGateway({ logger: capturingLogger(logs), background: false });
  await t.gateway.providerConfigs.add({ id: 'rep', kind: 'replicate', baseUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`, apiKey: KEY });
  const base = (await t.gateway.catalog.find('local-image'))!.record;
  const record: ModelRecord = { ...base, id: 'rep/flux', owned_by: 'rep', capabilities: { ...base.capabilities, image_edit: false } };
  await t.gateway.catalog.put({ record, providerId: 'rep', upstreamModel: 'black-forest-labs/flux-schnell' });
  token = (await t.key('balance', { balanceNano: USD })).token;
});

afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => upstream?.close(resolve));
});

describe('the replicate key', () => {
  it('the connection test logs the 401 body with the key redacted', async () => {
    const before = logs.length;
    expect((await t.gateway.providerAdmin.check('rep')).ok).toBe(false);
    const lines = logs.slice(before).filter((l) => l.fields.status === 401);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.fields.body).toContain('Bearer [REDACTED]');
  });

  it.each([
    ['unauthenticated', 503, 'upstream_unavailable'],
    ['invalid', 400, 'upstream_bad_request'],
    ['failed', 400, 'upstream_bad_request'],
  ] as const)('a creation answered %s: %i %s to the client, the key in no answer and no log line', async (kind, status, code) => {
    answer = kind;
    const response = await postJson(`${t.baseUrl}/images/generations`, { model: 'rep/flux', prompt: 'x', size: '1024x1024' }, token);
    expect(response.status).toBe(status);
    expect((response.body as { error: { code: string } }).error.code).toBe(code);
    expect(JSON.stringify(response.body)).not.toContain('LEAKME');
    expect(JSON.stringify(logs)).not.toContain(KEY);
  });
});
