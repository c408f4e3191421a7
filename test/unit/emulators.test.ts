// Fault injection of both emulators, against real fetch calls. Endpoint behaviour is covered in
// emulators-openai.test.ts and emulators-fal.test.ts (run all with `npx vitest run test/unit/emulators`).
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { startFalEmulator, startOpenAIEmulator, type FalEmulator, type OpenAIEmulator } from '../emulators/index.js';

const SECRET = 'sk-live-SECRET-4f9a2c';
let openai: OpenAIEmulator;
let fal: FalEmulator;

beforeAll(async () => {
  openai = await startOpenAIEmulator();
  fal = await startFalEmulator({ durationMs: 0 });
});
afterAll(async () => {
  await Promise.all([openai.close(), fal.close()]);
});
afterEach(() => {
  openai.clearFaults();
  fal.clearFaults();
});

const generate = () =>
  fetch(`${openai.baseUrl}/images/generations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${openai.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-image-1', prompt: 'x' }),
  });
const models = () => fetch(`${openai.baseUrl}/models`, { headers: { authorization: `Bearer ${openai.apiKey}` } });
const falAuth = () => ({ authorization: `Key ${fal.apiKey}` });
const falSubmit = () =>
  fetch(`${fal.baseUrl}/fal-ai/flux/dev`, { method: 'POST', headers: { ...falAuth(), 'content-type': 'application/json' }, body: '{"prompt":"x"}' });

async function falJob(): Promise<{ status_url: string; response_url: string; cancel_url: string }> {
  fal.clearFaults();
  const res = await falSubmit();
  expect(res.status).toBe(200);
  return (await res.json()) as { status_url: string; response_url: string; cancel_url: string };
}

describe('status faults', () => {
  test('status + raw body: the body (with its secret) is sent verbatim', async () => {
    openai.inject('POST /v1/images/generations', { status: 500, body: `{"error":{"message":"upstream key ${SECRET} rejected"}}` });
    const res = await generate();
    expect(res.status).toBe(500);
    expect(await res.text()).toContain(SECRET);
  });

  test('status alone: OpenAI error shape on openai, {detail} on fal', async () => {
    openai.inject('POST /v1/images/generations', { status: 429, headers: { 'retry-after': '2' } });
    const res = await generate();
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('2');
    const body = (await res.json()) as { error: { message: string; type: string; code: string } };
    expect(body.error).toMatchObject({ type: 'requests', code: 'rate_limit_exceeded' });
    expect(body.error.message).not.toBe('');

    fal.inject('POST submit', { status: 503 });
    const falRes = await falSubmit();
    expect(falRes.status).toBe(503);
    expect(typeof ((await falRes.json()) as { detail: unknown }).detail).toBe('string');
  });

  test('a raw body without status answers 200 with malformed JSON', async () => {
    openai.inject('POST /v1/images/generations', { body: '{"created": 1, "data": [' });
    const res = await generate();
    expect(res.status).toBe(200);
    await expect(res.json()).rejects.toThrow(SyntaxError);
  });

  test('headers alone are added to the normal answer', async () => {
    openai.inject('GET /v1/models', { headers: { 'x-ratelimit-remaining-requests': '0' } });
    const res = await models();
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(((await res.json()) as { object: string }).object).toBe('list');
  });
});

describe('transport faults', () => {
  test('latency delays the answer, which is otherwise normal', async () => {
    openai.inject('GET /v1/models', { latencyMs: 250, times: 1 });
    const started = Date.now();
    const res = await models();
    expect(Date.now() - started).toBeGreaterThanOrEqual(240);
    expect(res.status).toBe(200);
    const quick = Date.now();
    await models();
    expect(Date.now() - quick).toBeLessThan(240);
  });

  test('reset: fetch rejects with a connection error', async () => {
    openai.inject('GET /v1/models', { reset: true, times: 1 });
    const error = await models().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TypeError);
    const cause = (error as { cause?: { code?: string } }).cause;
    expect(['ECONNRESET', 'UND_ERR_SOCKET']).toContain(cause?.code);
    expect((await models()).status).toBe(200);
  });

  test('truncate: headers arrive, reading the body fails', async () => {
    openai.inject('POST /v1/images/generations', { truncate: true, times: 1 });
    const res = await generate();
    expect(res.status).toBe(200);
    expect(Number(res.headers.get('content-length'))).toBeGreaterThan(0);
    await expect(res.arrayBuffer()).rejects.toThrow();

    openai.inject('GET /v1/models', { status: 502, truncate: true, times: 1 });
    const bad = await models();
    expect(bad.status).toBe(502);
    await expect(bad.text()).rejects.toThrow();
  });
});

describe('fault matching', () => {
  test('times limits a fault to the next N matching requests', async () => {
    openai.inject('GET /v1/models', { status: 503, times: 2 });
    expect((await models()).status).toBe(503);
    expect((await generate()).status).toBe(200); // other routes are not affected
    expect((await models()).status).toBe(503);
    expect((await models()).status).toBe(200);
  });

  test('faults apply in injection order; without times they last until cleared', async () => {
    openai.inject('GET /v1/models', { status: 500, times: 1 });
    openai.inject('GET /v1/models', { status: 429 });
    expect((await models()).status).toBe(500);
    expect((await models()).status).toBe(429);
    expect((await models()).status).toBe(429);
    openai.clearFaults();
    expect((await models()).status).toBe(200);
  });

  test("'*' and exact 'METHOD /path' routes match; unknown route names are refused", async () => {
    openai.inject('*', { status: 418, times: 2 });
    expect((await models()).status).toBe(418);
    expect((await generate()).status).toBe(418);
    expect((await models()).status).toBe(200);

    openai.inject('GET /v1/models/sora-2', { status: 404, times: 1 });
    expect((await fetch(`${openai.baseUrl}/models/sora-2`, { headers: { authorization: `Bearer ${openai.apiKey}` } })).status).toBe(404);

    expect(() => openai.inject('GET /v1/video/:id', { status: 500 })).toThrow(/unknown fault route/);
    expect(() => fal.inject('GET stauts', { status: 500 })).toThrow(/unknown fault route/);
    expect(() => openai.inject('GET /v1/models', { times: 0 })).toThrow(/times/);
  });

  test('faults run before auth, and every request is still recorded', async () => {
    const before = openai.requests.length;
    openai.inject('GET /v1/models', { status: 503, times: 1 });
    expect((await fetch(`${openai.baseUrl}/models`)).status).toBe(503);
    expect((await fetch(`${openai.baseUrl}/models`)).status).toBe(401);
    expect(openai.requests.slice(before).map((r) => r.route)).toEqual(['GET /v1/models', 'GET /v1/models']);
  });
});

describe('fal routes', () => {
  test("'GET status', 'GET result', 'PUT cancel' and 'GET file' can each be faulted", async () => {
    const job = await falJob();
    fal.inject('GET status', { status: 500, body: `{"detail":"${SECRET}"}`, times: 1 });
    const status = await fetch(job.status_url, { headers: falAuth() });
    expect(status.status).toBe(500);
    expect(await status.text()).toContain(SECRET);
    expect((await fetch(job.status_url, { headers: falAuth() })).status).toBe(200);

    fal.inject('GET result', { body: '{"images": [{"url": ', times: 1 });
    await expect((await fetch(job.response_url, { headers: falAuth() })).json()).rejects.toThrow(SyntaxError);
    const result = (await (await fetch(job.response_url, { headers: falAuth() })).json()) as { images: { url: string }[] };
    const fileUrl = result.images[0]?.url ?? '';

    fal.inject('GET file', { truncate: true, times: 1 });
    const file = await fetch(fileUrl);
    expect(file.status).toBe(200);
    await expect(file.arrayBuffer()).rejects.toThrow();
    expect((await fetch(fileUrl)).status).toBe(200);

    fal.inject('PUT cancel', { reset: true, times: 1 });
    await expect(fetch(job.cancel_url, { method: 'PUT', headers: falAuth() })).rejects.toThrow(TypeError);
    expect(fal.cancelCalls).toEqual([]);
  });

  test("'POST submit' latency and retry-after", async () => {
    fal.inject('POST submit', { status: 429, headers: { 'retry-after': '1' }, latencyMs: 100, times: 1 });
    const started = Date.now();
    const res = await falSubmit();
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('1');
    expect((await falSubmit()).status).toBe(200);
  });
});
