import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelRecord } from '../../shared/api-types.js';
import { startTestGateway, USD, type TestGateway } from '../helpers/gateway.js';
import { errorOf, postJson, request } from '../helpers/http.js';
import type { ImageProvider } from '../../electron/core/providers/provider.js';

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway({ allowedHosts: ['studio.internal'] });
});
afterAll(() => t.close());

const RECORD_FIELDS = [
  'capabilities', 'context_window', 'created', 'id', 'json_mode', 'modalities', 'model_type', 'object', 'owned_by',
  'pricing', 'pricing_mode', 'reasoning', 'stream', 'tier', 'tools_calling', 'usage_based_only',
];

describe('GET /v1/models', () => {
  it('lists the built-in models with every field of the model record, without auth', async () => {
    const response = await request(`${t.baseUrl}/models`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = response.body as { object: string; data: ModelRecord[] };
    expect(body.object).toBe('list');
    for (const record of body.data) expect(Object.keys(record).sort()).toEqual(RECORD_FIELDS);
    const image = body.data.find((m) => m.id === 'local-image')!;
    expect(image).toMatchObject({ object: 'model', tier: 'turbo', pricing_mode: 'token', usage_based_only: false });
    expect(image.pricing.input).toBeGreaterThan(0);
    expect(image.pricing.output).toBeGreaterThan(0);
    expect(image.capabilities.supported_sizes).toEqual(
      expect.arrayContaining(['256x256', '512x512', '1024x1024', '1024x1536', '1536x1024']),
    );
    expect(image.capabilities).toMatchObject({ max_reference_images: 3, max_reference_image_bytes: 8388608 });
    const pro = body.data.find((m) => m.id === 'local-image-pro')!;
    expect(pro).toMatchObject({ tier: 'pro', usage_based_only: true });
    expect(pro.pricing.minimum_request_price_usd).toBeGreaterThan(0);
    expect(pro.pricing.output!).toBeGreaterThan(image.pricing.output!);
  });

  it('works with the OpenAI SDK models.list', async () => {
    const page = await t.client('unused').models.list();
    expect(page.data.map((m) => m.id)).toEqual(expect.arrayContaining(['local-image', 'local-image-pro']));
  });

  it('GET /v1/models/{id} answers one record of the list (the SDK models.retrieve), without auth; an unknown id is 404', async () => {
    const list = (await request(`${t.baseUrl}/models`)).body as { data: ModelRecord[] };
    for (const listed of list.data) {
      const one = await request(`${t.baseUrl}/models/${encodeURIComponent(listed.id)}`);
      expect(one.status).toBe(200);
      expect(one.body).toEqual(listed);
    }
    const retrieved = await t.client('unused').models.retrieve('local-image-pro');
    expect(retrieved).toMatchObject({ id: 'local-image-pro', object: 'model', tier: 'pro' });
    const missing = await request(`${t.baseUrl}/models/no-such-model`);
    expect(missing.status).toBe(404);
    expect(errorOf(missing)).toMatchObject({ code: 'not_found', param: 'id', message: expect.stringContaining('"no-such-model"') });
    const wrong = await request(`${t.baseUrl}/models/local-image`, { method: 'POST' });
    expect(wrong.status).toBe(405);
    // Live like the list: a model put now is found at once, its id's slash sent as is or as %2F.
    const entry = (await t.gateway.catalog.find('local-image'))!;
    await t.gateway.catalog.put({ ...entry, record: { ...entry.record, id: 'partner/image-retrieved' } });
    for (const path of ['partner/image-retrieved', 'partner%2Fimage-retrieved']) {
      expect((await request(`${t.baseUrl}/models/${path}`)).body).toMatchObject({ id: 'partner/image-retrieved' });
    }
    await t.gateway.catalog.remove('partner/image-retrieved');
    expect((await request(`${t.baseUrl}/models/partner/image-retrieved`)).status).toBe(404);
  });

  it('is live: a price change or a new model shows in the next response', async () => {
    const entry = (await t.gateway.catalog.find('local-image'))!;
    await t.gateway.catalog.put({ ...entry, record: { ...entry.record, pricing: { ...entry.record.pricing, output: 9.5 } } });
    let body = (await request(`${t.baseUrl}/models`)).body as { data: ModelRecord[] };
    expect(body.data.find((m) => m.id === 'local-image')!.pricing.output).toBe(9.5);
    await t.gateway.catalog.put({ ...entry, record: { ...entry.record, id: 'local-image-copy' } });
    body = (await request(`${t.baseUrl}/models`)).body as { data: ModelRecord[] };
    expect(body.data.map((m) => m.id)).toContain('local-image-copy');
    await t.gateway.catalog.remove('local-image-copy');
    await t.gateway.catalog.put(entry);
    body = (await request(`${t.baseUrl}/models`)).body as { data: ModelRecord[] };
    expect(body.data.map((m) => m.id)).not.toContain('local-image-copy');
  });
});

describe('HTTP boundary', () => {
  it('unknown routes -> 404 not_found, wrong methods -> 405 method_not_allowed, both standard bodies', async () => {
    const missing = await request(`${t.baseUrl}/nothing-here`);
    expect(missing.status).toBe(404);
    expect(errorOf(missing)).toMatchObject({ code: 'not_found', type: 'not_found', param: null });
    const wrong = await request(`${t.baseUrl}/models`, { method: 'DELETE' });
    expect(wrong.status).toBe(405);
    expect(errorOf(wrong).code).toBe('method_not_allowed');
    expect(wrong.headers.get('allow')).toContain('GET');
    expect(wrong.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('a trailing slash where an id belongs is no route (404, param null), not a model or task with an empty id', async () => {
    const { token } = await t.key('balance', { balanceNano: USD });
    const auth = { headers: { authorization: `Bearer ${token}` } };
    for (const [method, path] of [['GET', '/models/'], ['GET', '/videos/'], ['DELETE', '/videos/'], ['GET', '/videos//content']] as const) {
      const response = await request(`${t.baseUrl}${path}`, { method, ...auth });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(errorOf(response)).toEqual({ code: 'not_found', type: 'not_found', param: null, message: `No route ${method} /v1${path}.` });
    }
  });

  it('refuses foreign Host headers (DNS rebinding) but answers loopback names and configured hosts', async () => {
    const port = t.server.port;
    const ask = (host: string) => rawGet(port, host);
    expect((await ask('evil.example.com')).status).toBe(400);
    expect(JSON.parse((await ask('evil.example.com:80')).body).error.code).toBe('invalid_request');
    expect((await ask(`localhost:${port}`)).status).toBe(200);
    expect((await ask(`127.0.0.1:${port}`)).status).toBe(200);
    expect((await ask(`[::1]:${port}`)).status).toBe(200);
    expect((await ask('studio.internal')).status).toBe(200);
  });

  it('sends no CORS headers by default', async () => {
    const response = await request(`${t.baseUrl}/models`, { headers: { origin: 'http://evil.example.com' } });
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('an internal fault is a 500 with no stack and no internals, and the hold is released', async () => {
    const broken: ImageProvider = {
      id: 'broken',
      kind: 'test',
      estimateImageUsage: () => ({ input_tokens: 10, output_tokens: 10 }),
      generateImage: async () => {
        throw new Error('secret internal detail at /home/x/file.ts:12');
      },
      editImage: async () => {
        throw new Error('nope');
      },
    };
    t.gateway.providers.register(broken);
    const entry = (await t.gateway.catalog.find('local-image'))!;
    await t.gateway.catalog.put({ record: { ...entry.record, id: 'broken-image' }, providerId: 'broken', upstreamModel: 'x' });
    const key = await t.key('balance', { balanceNano: USD });
    const response = await postJson(`${t.baseUrl}/images/generations`, { model: 'broken-image', prompt: 'x' }, key.token);
    expect(response.status).toBe(500);
    expect(errorOf(response).code).toBe('internal_error');
    expect(response.text).not.toMatch(/secret|file\.ts|at /);
    expect(await t.gateway.billing.view(key.accountId)).toMatchObject({ balance_usd: '1.00000000', holds_usd: '0.00000000' });
    // The image hold lived in memory and ended uncharged: nothing but the top-up is written.
    expect(await t.gateway.billing.activeHolds(key.accountId)).toEqual([]);
    const kinds = (await t.gateway.billing.ledgerFor(key.accountId)).map((r) => r.kind);
    expect(kinds).toEqual(['top_up']);
  });
});

function rawGet(port: number, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: '/v1/models', headers: { host } }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}
