import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatUsd } from '../../electron/core/billing/money.js';
import { tokenCostNano } from '../../electron/core/billing/pricing.js';
import { startTestGateway, USD, type TestGateway } from '../helpers/gateway.js';
import { errorOf, postJson, request } from '../helpers/http.js';
import { decodeB64 } from '../helpers/images.js';
import { waitFor } from '../helpers/stub-video-provider.js';

let t: TestGateway;
let paid: { id: string; token: string; accountId: string };

beforeAll(async () => {
  t = await startTestGateway();
  paid = await t.key('balance', { balanceNano: 5 * USD });
});
afterAll(() => t.close());

describe('POST /v1/images/generations with the OpenAI SDK', () => {
  it('returns exactly one decodable PNG of the requested size and charges the token formula', async () => {
    const prompt = 'a quiet mountain lake at sunset';
    const before = await t.gateway.billing.view(paid.accountId);
    const result = await t.client(paid.token).images.generate({ model: 'local-image', prompt, size: '1024x1536' });
    expect(Object.keys(result).sort()).toEqual(['data', 'usage']);
    expect(result.data).toHaveLength(1);
    expect(Object.keys(result.data![0]!)).toEqual(['b64_json']);
    const image = await decodeB64(result.data![0]!.b64_json!);
    expect(image).toEqual({ format: 'png', width: 1024, height: 1536 });

    const record = (await t.gateway.catalog.find('local-image'))!.record;
    // Counted here, not with the gateway's own helpers: ~4 characters a prompt token (31 -> 8),
    // one image token per 32x32 patch of the output (1024x1536 is 32 x 48 patches).
    const expected = tokenCostNano(record.pricing, { input_tokens: 8, output_tokens: 1536 });
    expect(expected).toBeGreaterThan(0);
    expect((result.usage as unknown as { cost_usd: string }).cost_usd).toBe(formatUsd(expected));
    const after = await t.gateway.billing.view(paid.accountId);
    expect(Number(before.balance_usd) - Number(after.balance_usd)).toBeCloseTo(expected / USD, 9);
    expect(after.holds_usd).toBe('0.00000000');
  });

  it('defaults to 1024x1024 and is deterministic for the same prompt and size', async () => {
    const client = t.client(paid.token);
    const a = await client.images.generate({ model: 'local-image', prompt: 'neon city at night' });
    const b = await client.images.generate({ model: 'local-image', prompt: 'neon city at night' });
    const c = await client.images.generate({ model: 'local-image', prompt: 'green forest in the morning' });
    expect(await decodeB64(a.data![0]!.b64_json!)).toMatchObject({ width: 1024, height: 1024 });
    expect(a.data![0]!.b64_json).toBe(b.data![0]!.b64_json);
    expect(a.data![0]!.b64_json).not.toBe(c.data![0]!.b64_json);
  });

  it('applies the minimum request price of local-image-pro', async () => {
    const result = await t.client(paid.token).images.generate({ model: 'local-image-pro', prompt: 'tiny', size: '256x256' });
    const record = (await t.gateway.catalog.find('local-image-pro'))!.record;
    const cost = (result.usage as unknown as { cost_usd: string }).cost_usd;
    expect(cost).toBe(formatUsd(Math.round(record.pricing.minimum_request_price_usd! * USD)));
  });

  it('sends a request id on every response', async () => {
    const ok = await request(`${t.baseUrl}/models`);
    const bad = await postJson(`${t.baseUrl}/images/generations`, {}, paid.token);
    expect(ok.headers.get('x-request-id')).toMatch(/^req_/);
    expect(bad.headers.get('x-request-id')).toMatch(/^req_/);
    expect(ok.headers.get('x-request-id')).not.toBe(bad.headers.get('x-request-id'));
  });
});

describe('POST /v1/images/generations rejections', () => {
  const url = () => `${t.baseUrl}/images/generations`;
  const base = { model: 'local-image', prompt: 'a red fox' };
  const cases: [string, unknown, number, string, string | null][] = [
    ['extra key', { ...base, foo: 1 }, 400, 'invalid_request', 'foo'],
    ['response_format', { ...base, response_format: 'b64_json' }, 400, 'invalid_request', 'response_format'],
    ['quality', { ...base, quality: 'high' }, 400, 'invalid_request', 'quality'],
    ['style', { ...base, style: 'vivid' }, 400, 'invalid_request', 'style'],
    ['background', { ...base, background: 'transparent' }, 400, 'invalid_request', 'background'],
    ['output_format', { ...base, output_format: 'png' }, 400, 'invalid_request', 'output_format'],
    ['mask', { ...base, mask: 'x' }, 400, 'invalid_request', 'mask'],
    ['n = 2', { ...base, n: 2 }, 400, 'invalid_request', 'n'],
    ['n = 0', { ...base, n: 0 }, 400, 'invalid_request', 'n'],
    ['n as string', { ...base, n: '1' }, 400, 'invalid_request', 'n'],
    ['n fractional', { ...base, n: 1.5 }, 400, 'invalid_request', 'n'],
    ['prompt as number', { ...base, prompt: 5 }, 400, 'invalid_request', 'prompt'],
    ['model as array', { ...base, model: ['local-image'] }, 400, 'invalid_request', 'model'],
    ['size as number', { ...base, size: 1024 }, 400, 'invalid_request', 'size'],
    ['missing model', { prompt: 'x' }, 400, 'invalid_request', 'model'],
    ['missing prompt', { model: 'local-image' }, 400, 'invalid_request', 'prompt'],
    ['empty prompt', { ...base, prompt: '   ' }, 400, 'invalid_request', 'prompt'],
    ['huge prompt', { ...base, prompt: 'x'.repeat(40_000) }, 400, 'invalid_request', 'prompt'],
    ['size not WxH', { ...base, size: 'big' }, 400, 'invalid_request', 'size'],
    ['size auto', { ...base, size: 'auto' }, 400, 'invalid_request', 'size'],
    ['size unsupported', { ...base, size: '1000x1000' }, 400, 'invalid_request', 'size'],
    ['unknown model', { ...base, model: 'nope' }, 400, 'invalid_request', 'model'],
    ['selector default', { ...base, model: 'default' }, 400, 'invalid_request', 'model'],
    ['selector fast', { ...base, model: 'fast' }, 400, 'invalid_request', 'model'],
    ['selector pro', { ...base, model: 'pro' }, 400, 'invalid_request', 'model'],
    ['body is an array', [base], 400, 'invalid_request', null],
  ];
  it.each(cases.map(([name, body, status, code, param]) => [name, status, code, param, body] as const))('%s -> %i %s (%s)', async (_name, status, code, param, body) => {
    const before = await t.gateway.billing.view(paid.accountId);
    const response = await postJson(url(), body, paid.token);
    expect(response.status).toBe(status);
    const error = errorOf(response);
    expect(error.code).toBe(code);
    expect(error.param).toBe(param);
    expect(error.message.length).toBeGreaterThan(5);
    expect(await t.gateway.billing.view(paid.accountId)).toEqual(before);
  });

  it('rejects a non-image model with param model', async () => {
    const record = structuredClone((await t.gateway.catalog.find('local-image'))!.record);
    await t.gateway.catalog.put({
      record: { ...record, id: 'chat-only', model_type: 'chat', modalities: { input: ['text'], output: ['text'] } },
      providerId: 'local',
      upstreamModel: 'chat-only',
    });
    const response = await postJson(url(), { ...base, model: 'chat-only' }, paid.token);
    expect(response.status).toBe(400);
    expect(errorOf(response)).toMatchObject({ code: 'invalid_request', param: 'model' });
    await t.gateway.catalog.remove('chat-only');
  });

  it('refuses a selector even when the catalog holds a model of that name', async () => {
    // Without such a model, a selector is refused as an unknown model anyway.
    const record = structuredClone((await t.gateway.catalog.find('local-image'))!.record);
    await t.gateway.catalog.put({ record: { ...record, id: 'pro' }, providerId: 'local', upstreamModel: 'local-image' });
    try {
      const before = await t.gateway.billing.view(paid.accountId);
      const response = await postJson(url(), { ...base, model: 'pro', size: '256x256' }, paid.token);
      expect(response.status).toBe(400);
      expect(errorOf(response)).toMatchObject({ code: 'invalid_request', param: 'model' });
      expect(errorOf(response).message).toMatch(/selector/);
      expect(await t.gateway.billing.view(paid.accountId)).toEqual(before);
    } finally {
      await t.gateway.catalog.remove('pro');
    }
  });

  it('a model that lists no supported_sizes still takes only WxH sizes', async () => {
    // With a list, a malformed size is refused as unlisted anyway; without one, only the form check stands.
    const record = structuredClone((await t.gateway.catalog.find('local-image'))!.record);
    const { supported_sizes: _listed, ...capabilities } = record.capabilities;
    await t.gateway.catalog.put({ record: { ...record, id: 'any-size', capabilities }, providerId: 'local', upstreamModel: 'local-image' });
    try {
      for (const size of ['256x256px', 'size 256x256', '0256x256']) {
        const response = await postJson(url(), { ...base, model: 'any-size', size }, paid.token);
        expect(response.status, size).toBe(400);
        expect(errorOf(response)).toMatchObject({ code: 'invalid_request', param: 'size' });
      }
      const fine = await postJson(url(), { ...base, model: 'any-size', size: '320x200' }, paid.token);
      expect(fine.status).toBe(200);
    } finally {
      await t.gateway.catalog.remove('any-size');
    }
  });

  it('counts a prompt in characters, not UTF-16 units: 16,001 emoji are within 32,000', async () => {
    const emoji = await postJson(url(), { model: 'local-image', prompt: '\u{1F30A}'.repeat(16_001), size: '256x256' }, paid.token);
    expect(emoji.status).toBe(200);
    const over = await postJson(url(), { model: 'local-image', prompt: '\u{1F30A}'.repeat(32_001), size: '256x256' }, paid.token);
    expect(over.status).toBe(400);
    expect(errorOf(over).param).toBe('prompt');
  });

  it("refuses a prompt whose tokens with the output's exceed the record's context window", async () => {
    const record = structuredClone((await t.gateway.catalog.find('local-image'))!.record);
    // 1024x1024 is 1024 output tokens; the window leaves 76 for the prompt (~300 characters).
    await t.gateway.catalog.put({ record: { ...record, id: 'small-window', context_window: { tokens: 1100, chars: null } }, providerId: 'local', upstreamModel: 'small-window' });
    const before = await t.gateway.billing.view(paid.accountId);
    const long = await postJson(url(), { model: 'small-window', prompt: 'a lake '.repeat(50), size: '1024x1024' }, paid.token);
    expect(long.status).toBe(400);
    expect(errorOf(long)).toMatchObject({ code: 'invalid_request', param: 'prompt' });
    expect(errorOf(long).message).toMatch(/context window of 1100 tokens/);
    expect(await t.gateway.billing.view(paid.accountId)).toEqual(before);
    const fits = await postJson(url(), { model: 'small-window', prompt: 'a lake', size: '1024x1024' }, paid.token);
    expect(fits.status).toBe(200);
    await t.gateway.catalog.remove('small-window');
  });

  it('rejects wrong content types, bad JSON and oversize bodies', async () => {
    const plain = await request(url(), {
      method: 'POST',
      headers: { authorization: `Bearer ${paid.token}`, 'content-type': 'text/plain' },
      body: 'hello',
    });
    expect(plain.status).toBe(400);
    expect(errorOf(plain).code).toBe('invalid_request');
    expect(errorOf(plain).message).toMatch(/Unsupported Content-Type/);

    // Refused by the JSON parser itself (prototype poisoning), before any schema sees it.
    const proto = await postJson(url(), '{"model": "local-image", "prompt": "x", "__proto__": {"a": 1}}', paid.token);
    expect(proto.status).toBe(400);
    expect(errorOf(proto).code).toBe('invalid_request');
    // Valid JSON, with a field that does not exist: named like any other.
    expect(errorOf(proto)).toMatchObject({ message: 'Unsupported field __proto__.', param: '__proto__' });
    const nested = await postJson(url(), '{"model": "local-image", "prompt": "x", "size": {"constructor": {"prototype": {"a": 1}}}}', paid.token);
    expect(errorOf(nested)).toMatchObject({ code: 'invalid_request', param: 'size.constructor.prototype' });

    const form = new FormData();
    form.set('model', 'local-image');
    form.set('prompt', 'x');
    const multipart = await request(url(), { method: 'POST', headers: { authorization: `Bearer ${paid.token}` }, body: form });
    expect(multipart.status).toBe(400);
    expect(errorOf(multipart).code).toBe('invalid_request');

    const broken = await postJson(url(), '{"model": "local-image",', paid.token);
    expect(broken.status).toBe(400);
    expect(errorOf(broken).code).toBe('invalid_request');

    const huge = await postJson(url(), { ...base, prompt: 'y'.repeat(2 * 1024 * 1024) }, paid.token);
    expect(huge.status).toBe(413);
    expect(errorOf(huge)).toMatchObject({ code: 'invalid_request', type: 'invalid_request', param: null });
  });

  it('a client that sends its whole oversized body before reading gets the 413, not a reset, on a connection it can reuse', async () => {
    // What httpx does: write everything, then read. A server that closes on the refusal resets
    // the connection under the unsent megabytes, and the client sees a broken pipe instead.
    const body = Buffer.from(JSON.stringify({ model: 'local-image', prompt: 'z'.repeat(16 * 1024 * 1024) }));
    const { port } = new URL(t.baseUrl);
    const socket = connect(Number(port), '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    const failed = new Promise<Error>((resolve) => socket.once('error', resolve));
    const head = `POST /v1/images/generations HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nauthorization: Bearer ${paid.token}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`;
    socket.pause(); // nothing is read until the body is out
    const written = new Promise<void>((resolve) => socket.write(Buffer.concat([Buffer.from(head), body]), () => resolve()));
    const outcome = await Promise.race([written.then(() => 'written'), failed.then((e) => `error ${e.message}`)]);
    expect(outcome).toBe('written');
    socket.resume();
    const answer = await new Promise<string>((resolve) => {
      const check = () => {
        const text = Buffer.concat(received).toString();
        if (/\r\n\r\n\{.*\}\}/s.test(text)) resolve(text);
      };
      socket.on('data', check);
      check();
    });
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).not.toMatch(/connection: close/i);
    // The same connection takes the next request.
    received.length = 0;
    socket.write(`GET /v1/models HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n\r\n`);
    await waitFor(async () => /^HTTP\/1\.1 200 /.test(Buffer.concat(received).toString()), 5_000);
    socket.destroy();
  });
});
