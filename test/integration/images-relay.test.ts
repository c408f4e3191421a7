// Large upstream images are relayed while they arrive: the client gets its 200 and the first
// base64 before the upstream has finished, the bytes come out exactly as the upstream sent
// them, and the hold ends once: charged when the image ended whole and checked, released when
// the upstream breaks midway, sends a bad tail, or the client goes away (the connection is cut,
// so a broken image never passes for a whole one).
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { Agent, request as undiciRequest } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { USD } from '../helpers/gateway.js';
import { errorOf, postJson } from '../helpers/http.js';
import { makeImage } from '../helpers/images.js';
import { waitFor } from '../helpers/stub-video-provider.js';
import { startUpstreams, type UpstreamSetup } from '../helpers/upstreams.js';

let u: UpstreamSetup;
let key: { id: string; token: string; accountId: string };
let noisePng: Buffer;
let b64: string;
let paced: PacedUpstream;

/** A 700x700 PNG of noise, stored uncompressed: about 1.5 MB, 2 MB of base64. */
async function noiseImage(): Promise<Buffer> {
  const side = 700;
  const pixels = Buffer.alloc(side * side * 3);
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 2654435761) >>> 24;
  return sharp(pixels, { raw: { width: side, height: side, channels: 3 } }).png({ compressionLevel: 0 }).toBuffer();
}

/**
 * An OpenAI-style upstream whose answer the test writes by hand: the head, then whatever the
 * test decides (the rest, garbage, a reset) when it decides.
 */
interface PacedUpstream {
  baseUrl: string;
  /** The next POST /images/generations answer: resolves with its response once the request is in. */
  next(): Promise<ServerResponse>;
  closedConnections: number;
  close(): Promise<void>;
}

async function startPacedUpstream(): Promise<PacedUpstream> {
  const waiting: ((res: ServerResponse) => void)[] = [];
  const upstream: PacedUpstream = {
    baseUrl: '',
    closedConnections: 0,
    next: () => new Promise((resolve) => waiting.push(resolve)),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const take = waiting.shift();
      if (take) take(res);
      else res.writeHead(500).end();
    });
    res.on('close', () => {
      if (!res.writableFinished) upstream.closedConnections++;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  upstream.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return upstream;
}

beforeAll(async () => {
  u = await startUpstreams();
  key = await u.t.key('balance', { balanceNano: 100 * USD });
  noisePng = await noiseImage();
  b64 = noisePng.toString('base64');
  paced = await startPacedUpstream();
  await u.t.gateway.providerConfigs.add({ id: 'paced', kind: 'openai', baseUrl: paced.baseUrl, apiKey: 'sk-paced' });
  const record = structuredClone((await u.t.gateway.catalog.find('up-image'))!.record);
  await u.t.gateway.catalog.put({ record: { ...record, id: 'paced-image', owned_by: 'paced' }, providerId: 'paced', upstreamModel: 'gpt-image-1' });
});
afterEach(() => u.openai.clearFaults());
afterAll(async () => {
  await paced.close();
  await u.close();
});

const generate = (model: string) =>
  undiciRequest(`${u.t.baseUrl}/images/generations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, prompt: 'noise', size: '1024x1024' }),
  });

const head = (text: string) => text.slice(0, 400 * 1024);

/**
 * Starts a generation on the paced upstream and has it send a 200 and `opening` (the JSON up to
 * and into the image); the test decides the rest. Returns the upstream's response and the
 * gateway's answer once its headers are in.
 */
async function startPaced(opening: string) {
  const answer = paced.next();
  const pending = generate('paced-image');
  const upstream = await answer;
  upstream.writeHead(200, { 'content-type': 'application/json' });
  upstream.write(opening);
  return { upstream, response: await pending };
}
const costOf = (input: number, output: number) => (input * 10 + output * 40) / 1e6;

async function holdsAndBalance() {
  const view = await u.t.gateway.billing.view(key.accountId);
  return { holds: (await u.t.gateway.billing.activeHolds(key.accountId)).length, balance: view.balance_usd };
}

describe('a large upstream image', () => {
  it('comes out byte for byte through the OpenAI SDK, charged once from the reported usage', async () => {
    u.openai.inject('POST /v1/images/generations', { body: JSON.stringify({ created: 1, data: [{ b64_json: b64 }], usage: { input_tokens: 20, output_tokens: 5000 } }) });
    const before = await u.t.gateway.billing.view(key.accountId);
    const result = await u.t.client(key.token).images.generate({ model: 'up-image', prompt: 'noise', size: '1024x1024' });
    expect(result.data?.[0]?.b64_json).toBe(b64);
    const decoded = await sharp(Buffer.from(result.data![0]!.b64_json!, 'base64')).raw().toBuffer({ resolveWithObject: true });
    expect(decoded.info).toMatchObject({ width: 700, height: 700 });
    const cost = (result as unknown as { usage: { cost_usd: string } }).usage.cost_usd;
    expect(Number(cost)).toBeCloseTo(costOf(20, 5000), 9);
    const after = await u.t.gateway.billing.view(key.accountId);
    expect(Number(before.balance_usd) - Number(after.balance_usd)).toBeCloseTo(Number(cost), 9);
    expect((await u.t.gateway.billing.activeHolds(key.accountId)).length).toBe(0);
    // A relayed (hijacked) reply is logged once, with its cost.
    const logged = await waitFor(async () => {
      const entries = (await u.t.gateway.activity.recent(5)).filter((e) => e.endpoint === '/v1/images/generations' && e.cost_usd === cost);
      return entries.length > 0 ? entries : null;
    });
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ status: 200, model: 'up-image' });
  });

  it('shares a keep-alive connection: large and small answers in turn each come out whole', async () => {
    // The relay batches its writes per event-loop turn; none of that may leak into the next
    // answer on the same connection.
    const agent = new Agent({ connections: 1 });
    try {
      for (const big of [true, false, true, true, false]) {
        if (big) u.openai.inject('POST /v1/images/generations', { body: JSON.stringify({ data: [{ b64_json: b64 }], usage: { input_tokens: 1, output_tokens: 2 } }) });
        else u.openai.clearFaults();
        const response = await undiciRequest(`${u.t.baseUrl}/images/generations`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'up-image', prompt: 'noise', size: '1024x1024' }),
          dispatcher: agent,
        });
        expect(response.statusCode).toBe(200);
        const image = ((await response.body.json()) as { data: { b64_json: string }[] }).data[0]!.b64_json;
        if (big) expect(image).toBe(b64);
        else expect((await sharp(Buffer.from(image, 'base64')).metadata()).format).toBe('png');
      }
    } finally {
      await agent.close();
    }
  });

  it('with "\\/" escapes (some JSON encoders write them) comes out unescaped', async () => {
    u.openai.inject('POST /v1/images/generations', { body: `{"data":[{"b64_json":"${b64.replaceAll('/', '\\/')}"}],"usage":{"input_tokens":1,"output_tokens":2}}` });
    const response = await postJson(`${u.t.baseUrl}/images/generations`, { model: 'up-image', prompt: 'x', size: '1024x1024' }, key.token);
    expect(response.status).toBe(200);
    expect((response.body as { data: { b64_json: string }[] }).data[0]!.b64_json).toBe(b64);
  });

  it('a JPEG whose metadata runs past the first 256 KB (the head) is read whole and comes out as sent', async () => {
    // Six 60 KB APP segments (EXIF, ICC, XMP are all APPn) before the frame header.
    const jpeg = await sharp(await makeImage(64, 48)).jpeg().toBuffer();
    const app = (n: number) => Buffer.concat([Buffer.from([0xff, 0xe2, 0xea, 0x60]), Buffer.alloc(60_000 - 2, n)]);
    const heavy = Buffer.concat([jpeg.subarray(0, 2), ...[1, 2, 3, 4, 5, 6].map(app), jpeg.subarray(2)]);
    expect(heavy.indexOf(Buffer.from([0xff, 0xc0]))).toBeGreaterThan((256 * 1024 * 3) / 4);
    u.openai.inject('POST /v1/images/generations', { body: JSON.stringify({ data: [{ b64_json: heavy.toString('base64') }], usage: { input_tokens: 1, output_tokens: 2 } }) });
    const response = await postJson(`${u.t.baseUrl}/images/generations`, { model: 'up-image', prompt: 'x', size: '1024x1024' }, key.token);
    expect(response.status).toBe(200);
    const out = Buffer.from((response.body as { data: { b64_json: string }[] }).data[0]!.b64_json, 'base64');
    expect(out.equals(heavy)).toBe(true);
    expect(await sharp(out).metadata()).toMatchObject({ format: 'jpeg', width: 64, height: 48 });
  });

  it('whose head is not an image is a 502 standard error before anything is sent', async () => {
    const junk = Buffer.alloc(1_500_000, 7).toString('base64');
    u.openai.inject('POST /v1/images/generations', { body: JSON.stringify({ data: [{ b64_json: junk }] }) });
    const before = await holdsAndBalance();
    const response = await postJson(`${u.t.baseUrl}/images/generations`, { model: 'up-image', prompt: 'x', size: '1024x1024' }, key.token);
    expect(response.status).toBe(502);
    expect(errorOf(response)).toMatchObject({ code: 'upstream_invalid_response', type: 'upstream_invalid_response', param: null });
    expect(await holdsAndBalance()).toEqual(before);
  });

  it('whose head is not base64 is a 502, and the upstream call ends at once', async () => {
    const before = await holdsAndBalance();
    const closedBefore = paced.closedConnections;
    const answer = paced.next();
    const pending = postJson(`${u.t.baseUrl}/images/generations`, { model: 'paced-image', prompt: 'x', size: '1024x1024' }, key.token);
    const upstream = await answer;
    upstream.writeHead(200, { 'content-type': 'application/json' });
    upstream.write(`{"data":[{"b64_json":"${b64.slice(0, 100_000)}%%${b64.slice(100_002, 400 * 1024)}`);
    const response = await pending;
    expect(response.status).toBe(502);
    expect(errorOf(response)).toMatchObject({ code: 'upstream_invalid_response', param: null });
    await waitFor(async () => paced.closedConnections > closedBefore, 5_000);
    expect(await holdsAndBalance()).toEqual(before);
  });

  it('that is not JSON at all, or whose image closes early, is read whole and mapped as usual', async () => {
    const before = await holdsAndBalance();
    u.openai.inject('POST /v1/images/generations', { body: `<html>${'x'.repeat(600_000)}</html>` });
    const garbage = await postJson(`${u.t.baseUrl}/images/generations`, { model: 'up-image', prompt: 'x', size: '1024x1024' }, key.token);
    expect(garbage.status).toBe(502);
    expect(errorOf(garbage)).toMatchObject({ code: 'upstream_invalid_response', param: null });
    expect(garbage.text).not.toContain('xxxx');
    expect(await holdsAndBalance()).toEqual(before);

    const small = (await makeImage(64, 64)).toString('base64');
    u.openai.clearFaults();
    u.openai.inject('POST /v1/images/generations', { body: JSON.stringify({ data: [{ b64_json: small, revised_prompt: 'y'.repeat(600_000) }] }) });
    const whole = await postJson(`${u.t.baseUrl}/images/generations`, { model: 'up-image', prompt: 'x', size: '1024x1024' }, key.token);
    expect(whole.status).toBe(200);
    expect((whole.body as { data: { b64_json: string }[] }).data[0]!.b64_json).toBe(small);
  });

  it('is sent on before the upstream has finished; the hold stays until it ends, then is charged', async () => {
    const before = await holdsAndBalance();
    const { upstream, response } = await startPaced(`{"created":1,"data":[{"b64_json":"${head(b64)}`);
    expect(response.statusCode).toBe(200);
    const reader = response.body[Symbol.asyncIterator]();
    let received = '';
    while (received.length < 300 * 1024) received += Buffer.from((await reader.next()).value as Uint8Array).toString('latin1');
    expect(received.startsWith('{"data":[{"b64_json":"iVBORw0KGgo')).toBe(true);
    expect((await holdsAndBalance()).holds).toBe(before.holds + 1);

    upstream.end(`${b64.slice(400 * 1024)}"}],"usage":{"input_tokens":3,"output_tokens":4}}`);
    for (let next = await reader.next(); !next.done; next = await reader.next()) received += Buffer.from(next.value as Uint8Array).toString('latin1');
    const body = JSON.parse(received) as { data: { b64_json: string }[]; usage: { cost_usd: string } };
    expect(body.data[0]!.b64_json).toBe(b64);
    expect(Number(body.usage.cost_usd)).toBeCloseTo(costOf(3, 4), 9);
    const after = await holdsAndBalance();
    expect(after.holds).toBe(before.holds);
    expect(Number(before.balance) - Number(after.balance)).toBeCloseTo(costOf(3, 4), 9);
  });

  const breaks: [string, (upstream: ServerResponse) => void, number][] = [
    ['the upstream connection breaks midway', (upstream) => upstream.socket?.destroy(), 503],
    ['a character outside base64 midway', (upstream) => upstream.end(`${b64.slice(400 * 1024, 500 * 1024)}%%${b64.slice(500 * 1024 + 2)}"}]}`), 502],
    ['the JSON after the image is broken', (upstream) => upstream.end(`${b64.slice(400 * 1024)}"}],"usage":{"input_tok`), 502],
    ['the image is not inside data', (upstream) => upstream.end(`${b64.slice(400 * 1024)}"}`), 502],
    ['the base64 length is cut short', (upstream) => upstream.end(`${b64.slice(400 * 1024, -3)}"}]}`), 502],
  ];

  it.each(breaks)('when %s, the client connection is cut and nothing is charged', async (_name, breakIt, loggedStatus) => {
    const before = await holdsAndBalance();
    const { upstream, response } = await startPaced(`{"data":[{"b64_json":"${head(b64)}`);
    expect(response.statusCode).toBe(200);
    const read = response.body.text();
    breakIt(upstream);
    await expect(read).rejects.toThrow();
    await waitFor(async () => (await holdsAndBalance()).holds === before.holds);
    expect(await holdsAndBalance()).toEqual(before);
    const logged = await waitFor(async () => (await u.t.gateway.activity.recent(1)).find((e) => e.endpoint === '/v1/images/generations' && e.status !== 200));
    expect(logged).toMatchObject({ key_id: key.id, status: loggedStatus, cost_usd: '0.00000000' });
  });

  it('abandoned by its client ends the upstream call and charges nothing', async () => {
    const before = await holdsAndBalance();
    const closedBefore = paced.closedConnections;
    const { response } = await startPaced(`{"data":[{"b64_json":"${head(b64)}`);
    await response.body[Symbol.asyncIterator]().next();
    response.body.destroy();
    // Well inside the gateway's 10 s upstream timeout: the departure itself ends the call.
    await waitFor(async () => paced.closedConnections > closedBefore && (await holdsAndBalance()).holds === before.holds, 5_000);
    expect(await holdsAndBalance()).toEqual(before);
    const logged = await waitFor(async () => (await u.t.gateway.activity.recent(1)).find((e) => e.status === 499));
    expect(logged).toMatchObject({ key_id: key.id, endpoint: '/v1/images/generations', cost_usd: '0.00000000' });
  });
});
