// Discovery against an upstream whose model list the test writes: what is adopted and what is
// skipped, so a far party cannot put into this catalog what mgw models put would refuse.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelRecord } from '../../shared/api-types.js';
import { startTestGateway, USD, type TestGateway } from '../helpers/gateway.js';
import { errorOf, postJson, request } from '../helpers/http.js';

let t: TestGateway;
let upstream: Server;
let listed: Record<string, unknown>[] = [];

beforeAll(async () => {
  t = await startTestGateway({ background: false });
  upstream = createServer((req, res) => {
    res.writeHead(req.url === '/v1/models' ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(req.url === '/v1/models' ? { object: 'list', data: listed } : { error: { message: 'no' } }));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const { port } = upstream.address() as AddressInfo;
  await t.gateway.providerConfigs.add({ id: 'far', kind: 'openai', baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: 'k' });
});
afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => upstream?.close(resolve));
});

async function image(): Promise<ModelRecord> {
  return structuredClone((await t.gateway.catalog.find('local-image'))!.record);
}

async function catalogIds(): Promise<string[]> {
  return ((await request(`${t.baseUrl}/models`)).body as { data: { id: string }[] }).data.map((m) => m.id);
}

describe('discovery', () => {
  it('skips listed names with a ".", ".." or empty path segment, price-book names and whole records alike', async () => {
    const record = await image();
    listed = [
      { ...record, id: '../../admin' },
      { ...record, id: 'x/..' },
      { ...record, id: 'a//b' },
      { id: '../gpt-image-1' },
      { ...record, id: 'good/image' },
    ];
    const result = await t.gateway.providerAdmin.discover('far');
    expect(result.added).toEqual(['far/good/image']);
    expect(result.skipped).toEqual(['../../admin', 'x/..', 'a//b', '../gpt-image-1']);
    const ids = await catalogIds();
    expect(ids).toContain('far/good/image');
    expect(ids.filter((id) => id.includes('..') || id.includes('//'))).toEqual([]);
  });

  it('adopts a listed record only when it passes the same check as models put', async () => {
    const video = structuredClone((await t.gateway.catalog.find('local-video'))!.record);
    listed = [
      { ...video, id: 'typed-wrong', capabilities: { ...video.capabilities, supported_seconds: 5, supported_sizes: '720p' } },
      { ...video, id: 'no-price', pricing: { currency: 'USD', unit: 'second' } },
      { ...video, id: 'token-video', pricing_mode: 'token' },
      { ...(await image()), id: 'extra-pricing', pricing: { input: 1, output: 2, currency: 'USD', unit: '1M tokens', foo: 1 } },
      { ...video, id: 'fine-video' },
    ];
    const result = await t.gateway.providerAdmin.discover('far');
    expect(result.added).toEqual(['far/fine-video']);
    expect(result.skipped).toEqual(['typed-wrong', 'no-price', 'token-video', 'extra-pricing']);
  });

  it('sora-2-pro from the price book lists only the sizes its $0.30/s covers (1024x1792 and 1792x1024 cost $0.50/s)', async () => {
    listed = [{ id: 'sora-2-pro', object: 'model', created: 1, owned_by: 'system' }];
    expect((await t.gateway.providerAdmin.discover('far')).added).toEqual(['far/sora-2-pro']);
    const models = (await request(`${t.baseUrl}/models`)).body as { data: ModelRecord[] };
    const pro = models.data.find((m) => m.id === 'far/sora-2-pro')!;
    expect(pro.pricing).toMatchObject({ price: 0.3, unit: 'second' });
    expect(pro.capabilities.supported_sizes).toEqual(['720x1280', '1280x720']);
    const token = (await t.key('balance', { balanceNano: 10 * USD })).token;
    const tall = await postJson(`${t.baseUrl}/videos`, { model: 'far/sora-2-pro', prompt: 'a city at night', seconds: 4, size: '1024x1792' }, token);
    expect(tall.status).toBe(400);
    expect(errorOf(tall)).toMatchObject({ code: 'invalid_request', param: 'size' });
  });
});

