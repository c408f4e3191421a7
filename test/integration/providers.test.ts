// Upstream providers behind the adapter interface, against loopback emulators of both
// protocols: the OpenAI SDK through the gateway, normalized results, billing from usage,
// partner-backed videos, and provider management from the CLI.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VideoTask } from '../../shared/api-types.js';
import { formatUsd } from '../../electron/core/billing/money.js';
import { USD } from '../helpers/gateway.js';
import { errorOf, postJson, request } from '../helpers/http.js';
import { decodeB64, makeImage } from '../helpers/images.js';
import { waitFor } from '../helpers/stub-video-provider.js';
import { startUpstreams, type UpstreamSetup } from '../helpers/upstreams.js';

let u: UpstreamSetup;
let key: { id: string; token: string; accountId: string };

beforeAll(async () => {
  u = await startUpstreams();
  key = await u.t.key('balance', { balanceNano: 50 * USD });
});
afterAll(() => u.close());

const auth = () => ({ authorization: `Bearer ${key.token}` });

describe('openai-kind provider', () => {
  it('images.generate goes upstream with the provider key and comes back normalized and billed from its usage', async () => {
    const result = await u.t.client(key.token).images.generate({ model: 'up-image', prompt: 'a lighthouse', size: '1024x1024' });
    expect(Object.keys(result).sort()).toEqual(['data', 'usage']);
    expect(Object.keys(result.data![0]!)).toEqual(['b64_json']);
    expect(await decodeB64(result.data![0]!.b64_json!)).toMatchObject({ format: 'png', width: 1024, height: 1024 });
    const upstream = u.openai.requests.filter((r) => r.path === '/v1/images/generations').at(-1)!;
    expect(upstream.headers.authorization).toBe(`Bearer ${u.openai.apiKey}`);
    const sent = JSON.parse(upstream.body.toString()) as Record<string, unknown>;
    expect(sent).toMatchObject({ model: 'gpt-image-1', prompt: 'a lighthouse', size: '1024x1024' });
    // Billed from the usage the upstream reported, at the catalog's token prices.
    const usage = (await upstreamJson(u.openai, '/v1/images/generations')).usage as { input_tokens: number; output_tokens: number };
    const expected = Math.ceil(((usage.input_tokens * 10 + usage.output_tokens * 40) * 1000) / 10) * 10;
    expect((result.usage as unknown as { cost_usd: string }).cost_usd).toBe(formatUsd(expected));
  });

  it('cached input tokens are part of input_tokens (as OpenAI reports them) and are not billed twice', async () => {
    const b64 = (await makeImage(64, 64)).toString('base64');
    const usage = { total_tokens: 1100, input_tokens: 1000, output_tokens: 100, input_tokens_details: { text_tokens: 1000, image_tokens: 0, cached_tokens: 800 } };
    u.openai.inject('POST /v1/images/generations', { body: JSON.stringify({ created: 1, data: [{ b64_json: b64 }], usage }), times: 1 });
    const response = await postJson(`${u.t.baseUrl}/images/generations`, { model: 'up-image', prompt: 'x', size: '1024x1024' }, key.token);
    expect(response.status).toBe(200);
    // (1000 input x $10 + 100 output x $40) per 1M tokens: the 800 cached are inside the 1000.
    expect((response.body as { usage: { cost_usd: string } }).usage.cost_usd).toBe('0.01400000');
  });

  it("cached input tokens count in the key's usage and daily tokens as the input tokens they are", async () => {
    const own = await u.t.key('balance', { balanceNano: USD });
    const b64 = (await makeImage(64, 64)).toString('base64');
    const usage = { total_tokens: 1100, input_tokens: 1000, output_tokens: 100, input_tokens_details: { text_tokens: 1000, image_tokens: 0, cached_tokens: 800 } };
    u.openai.inject('POST /v1/images/generations', { body: JSON.stringify({ created: 1, data: [{ b64_json: b64 }], usage }), times: 1 });
    const response = await postJson(`${u.t.baseUrl}/images/generations`, { model: 'up-image', prompt: 'x', size: '1024x1024' }, own.token);
    expect(response.status).toBe(200);
    const { keyUsage } = await import('../../electron/core/access/key-usage.js');
    const counted = await keyUsage(u.t.gateway, own.id);
    expect(counted.totals).toMatchObject({ requests: 1, input_tokens: 1000, output_tokens: 100, spend_usd: '0.01400000' });
    expect(counted.tokens_today).toBe(1100);
  });

  it("a record's minimum_cache_tokens is the floor of the cache tokens an upstream reports (0 included), and only then", async () => {
    const base = structuredClone((await u.t.gateway.catalog.find('up-image'))!.record);
    await u.t.gateway.catalog.put({ record: { ...base, id: 'up-image-cache', pricing: { ...base.pricing, minimum_cache_tokens: 500 } }, providerId: 'up', upstreamModel: 'gpt-image-1' });
    const b64 = (await makeImage(64, 64)).toString('base64');
    const costWith = async (usage: object) => {
      u.openai.inject('POST /v1/images/generations', { body: JSON.stringify({ created: 1, data: [{ b64_json: b64 }], usage }), times: 1 });
      const response = await postJson(`${u.t.baseUrl}/images/generations`, { model: 'up-image-cache', prompt: 'x', size: '1024x1024' }, key.token);
      expect(response.status).toBe(200);
      return (response.body as { usage: { cost_usd: string } }).usage.cost_usd;
    };
    // 900 input + max(100 cached, 500) at $10, 100 output at $40, per 1M tokens.
    expect(await costWith({ input_tokens: 1000, output_tokens: 100, input_tokens_details: { cached_tokens: 100 } })).toBe('0.01800000');
    // A reported 0 is cache accounting too: 1000 input + 500 at $10.
    expect(await costWith({ input_tokens: 1000, output_tokens: 100, input_tokens_details: { cached_tokens: 0 } })).toBe('0.01900000');
    // No cache accounting reported: no cache tokens billed.
    expect(await costWith({ input_tokens: 1000, output_tokens: 100 })).toBe('0.01400000');
  });

  it.each([
    ['fractional', { input_tokens: 10.5, output_tokens: 100 }],
    ['negative', { input_tokens: -50, output_tokens: -100 }],
    ['beyond exact integers', { input_tokens: 1e30, output_tokens: 1 }],
    ['a fractional cached count', { input_tokens: 10, output_tokens: 100, input_tokens_details: { cached_tokens: 0.5 } }],
  ])('usage with %s token counts is a 502 (not a 500, not a credit) and nothing is charged', async (_name, usage) => {
    const b64 = (await makeImage(64, 64)).toString('base64');
    const before = await u.t.gateway.billing.view(key.accountId);
    u.openai.inject('POST /v1/images/generations', { body: JSON.stringify({ created: 1, data: [{ b64_json: b64 }], usage }), times: 1 });
    const response = await postJson(`${u.t.baseUrl}/images/generations`, { model: 'up-image', prompt: 'x', size: '1024x1024' }, key.token);
    expect(response.status).toBe(502);
    expect(errorOf(response)).toMatchObject({ code: 'upstream_invalid_response', type: 'upstream_invalid_response', param: null });
    expect(await u.t.gateway.billing.view(key.accountId)).toEqual(before);
  });

  it('images.edit sends every reference as image[]', async () => {
    const files = await Promise.all([1, 2, 3].map(async (i) => toFile(await makeImage(64, 64), `r${i}.png`, { type: 'image/png' })));
    const result = await u.t.client(key.token).images.edit({ model: 'up-image', prompt: 'merge', image: files });
    expect(result.data).toHaveLength(1);
    expect(u.openai.lastEditFiles.map((f) => f.field)).toEqual(['image[]', 'image[]', 'image[]']);
  });

  it('images.edit sends a single reference as image, as the OpenAI SDK does', async () => {
    const file = await toFile(await makeImage(64, 64), 'one.png', { type: 'image/png' });
    await u.t.client(key.token).images.edit({ model: 'up-image', prompt: 'recolor', image: file });
    expect(u.openai.lastEditFiles.map((f) => f.field)).toEqual(['image']);
  });

  describe('an upstream that answers by URL (the default of its DALL-E models)', () => {
    beforeAll(async () => {
      const base = structuredClone((await u.t.gateway.catalog.find('up-image'))!.record);
      for (const [id, upstream] of [['up-dalle-3', 'dall-e-3'], ['up-dalle-2', 'dall-e-2']] as const) {
        await u.t.gateway.catalog.put({ record: { ...base, id }, providerId: 'up', upstreamModel: upstream });
      }
    });
    const imageFetches = () => u.openai.requests.filter((r) => r.path.startsWith('/images/'));

    it('images.generate: the image is fetched from the URL, without the provider key, and returned as base64', async () => {
      const before = imageFetches().length;
      const result = await u.t.client(key.token).images.generate({ model: 'up-dalle-3', prompt: 'a red barn', size: '1024x1024' });
      expect(Object.keys(result).sort()).toEqual(['data', 'usage']);
      expect(Object.keys(result.data![0]!)).toEqual(['b64_json']);
      expect((await decodeB64(result.data![0]!.b64_json!)).format).toBe('png');
      const fetched = imageFetches().slice(before);
      expect(fetched).toHaveLength(1);
      expect(fetched[0]!.headers.authorization).toBeUndefined();
      // No usage in a DALL-E answer: billed at the estimate, like the hold.
      expect(Number((result.usage as unknown as { cost_usd: string }).cost_usd)).toBeGreaterThan(0);
    });

    it('images.edit: the same for an edit answered by URL', async () => {
      const before = imageFetches().length;
      const file = await toFile(await makeImage(64, 64), 'r.png', { type: 'image/png' });
      const result = await u.t.client(key.token).images.edit({ model: 'up-dalle-2', prompt: 'add a moon', image: file });
      expect((await decodeB64(result.data![0]!.b64_json!)).format).toBe('png');
      expect(imageFetches().length).toBe(before + 1);
    });

    it('a URL that does not serve an image is a 502 and nothing is charged', async () => {
      const balance = async () => (await u.t.gateway.billing.view(key.accountId)).balance_usd;
      const start = await balance();
      u.openai.inject('GET /images/:name', { body: 'sk-secret-in-body not an image', times: 1 });
      const response = await postJson(`${u.t.baseUrl}/images/generations`, { model: 'up-dalle-3', prompt: 'x' }, key.token);
      expect(response.status).toBe(502);
      expect(errorOf(response)).toMatchObject({ code: 'upstream_invalid_response', type: 'upstream_invalid_response', param: null });
      expect(JSON.stringify(response.body)).not.toContain('sk-secret-in-body');
      expect(await balance()).toBe(start);
    });
  });

  it('an image-to-video reference goes upstream as input_reference with its image type', async () => {
    const form = new FormData();
    for (const [name, value] of Object.entries({ model: 'up-video', prompt: 'a wave', seconds: '4', size: '1280x720' })) form.append(name, value);
    form.append('input_reference', new Blob([new Uint8Array(await makeImage(64, 48))], { type: 'application/octet-stream' }), 'ref.bin');
    const created = await request(`${u.t.baseUrl}/videos`, { method: 'POST', headers: auth(), body: form });
    expect(created.status).toBe(200);
    const upstream = u.openai.requests.filter((r) => r.method === 'POST' && r.path === '/v1/videos').at(-1)!;
    expect(upstream.files).toEqual([expect.objectContaining({ field: 'input_reference', type: 'image/png' })]);
  });

  it('a video task completes through the /videos protocol; the content is served from the gateway', async () => {
    const created = (await postJson(`${u.t.baseUrl}/videos`, { model: 'up-video', prompt: 'clouds', seconds: 4, size: '1280x720' }, key.token)).body as VideoTask;
    expect(created.status).toBe('queued');
    const done = await waitFor(async () => {
      const task = (await request(`${u.t.baseUrl}/videos/${created.id}`, { headers: auth() })).body as VideoTask;
      return task.status === 'completed' ? task : null;
    }, 20_000);
    expect(done.cost_usd).toBe('0.40000000');
    const content = await fetch(`${u.t.baseUrl}/videos/${created.id}/content`, { headers: auth() });
    expect(content.status).toBe(200);
    expect(Buffer.from(await content.arrayBuffer()).toString('latin1', 4, 8)).toBe('ftyp');
    expect(u.openai.requests.some((r) => r.path === `/v1/videos/${[...u.openai.videos.keys()].at(-1)}/content`)).toBe(true);
  });
});

describe('fal-kind provider', () => {
  it('a partner-backed video polls the returned URLs, completes with the partner URL, and content redirects', async () => {
    const created = (await postJson(`${u.t.baseUrl}/videos`, { model: 'fal-video', prompt: 'a fox', seconds: 5, size: '720p' }, key.token)).body as VideoTask;
    const done = await waitFor(async () => {
      const task = (await request(`${u.t.baseUrl}/videos/${created.id}`, { headers: auth() })).body as VideoTask;
      return task.status === 'completed' ? task : null;
    }, 20_000);
    expect(done.outputs[0]).toMatch(new RegExp(`^${u.fal.baseUrl}/files/`));
    const submit = u.fal.requests.find((r) => r.method === 'POST')!;
    expect(submit.path).toBe('/fal-ai/kling-video/v2/master/text-to-video');
    expect(submit.headers.authorization).toBe(`Key ${u.fal.apiKey}`);
    expect(u.fal.requests.some((r) => r.path.startsWith('/q/') && r.path.endsWith('/status'))).toBe(true);
    const content = await fetch(`${u.t.baseUrl}/videos/${created.id}/content`, { headers: auth(), redirect: 'manual' });
    expect(content.status).toBe(302);
    expect(content.headers.get('location')).toBe(done.outputs[0]);
    expect(done.cost_usd).toBe('0.35000000');
    // fal's video models take duration as a string ("5") and an aspect ratio.
    expect(JSON.parse(submit.body.toString())).toMatchObject({ prompt: 'a fox', duration: '5', aspect_ratio: '16:9' });
  });

  it('the provider key goes only to the queue it is for, not to another host a queue answer names', async () => {
    const seen: (string | undefined)[] = [];
    const foreign = createServer((req, res) => {
      seen.push(req.headers.authorization);
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"detail":"Unauthorized"}');
    });
    await new Promise<void>((resolve) => foreign.listen(0, '127.0.0.1', resolve));
    const other = `http://127.0.0.1:${(foreign.address() as AddressInfo).port}/q/x/requests/r1`;
    u.fal.inject('POST submit', { body: JSON.stringify({ request_id: 'r1', status_url: `${other}/status`, response_url: other, cancel_url: `${other}/cancel` }), times: 1 });
    const response = await postJson(`${u.t.baseUrl}/images/generations`, { model: 'fal-image', prompt: 'a kite', size: '512x512' }, key.token);
    u.fal.clearFaults();
    foreign.close();
    expect(response.status).toBe(503);
    expect(seen.length).toBeGreaterThanOrEqual(1);
    expect(seen.every((header) => header === undefined)).toBe(true);
  });

  it('an image job is fetched from the result URL and returned as base64', async () => {
    const result = await postJson(`${u.t.baseUrl}/images/generations`, { model: 'fal-image', prompt: 'a kite', size: '512x512' }, key.token);
    expect(result.status).toBe(200);
    const body = result.body as { data: { b64_json: string }[] };
    expect((await decodeB64(body.data[0]!.b64_json)).format).toBe('png');
  });

  it('an image URL that redirects (a CDN handing on to its storage) is followed, without the provider key', async () => {
    const png = await makeImage(40, 30);
    const seen: (string | undefined)[] = [];
    const storage = createServer((req, res) => {
      seen.push(req.headers.authorization);
      res.writeHead(200, { 'content-type': 'image/png' }).end(png);
    });
    await new Promise<void>((resolve) => storage.listen(0, '127.0.0.1', resolve));
    const location = `http://127.0.0.1:${(storage.address() as AddressInfo).port}/bucket/out.png`;
    u.fal.inject('GET file', { status: 302, body: '', headers: { location }, times: 1 });
    const result = await postJson(`${u.t.baseUrl}/images/generations`, { model: 'fal-image', prompt: 'a kite', size: '512x512' }, key.token);
    u.fal.clearFaults();
    storage.close();
    expect(result.status).toBe(200);
    expect(Buffer.from((result.body as { data: { b64_json: string }[] }).data[0]!.b64_json, 'base64').equals(png)).toBe(true);
    expect(seen).toEqual([undefined]);
  });

  it('an image result in the single-image shape {image: {url}} is taken too', async () => {
    const png = await makeImage(40, 30);
    u.fal.inject('GET result', { body: JSON.stringify({ image: { url: `data:image/png;base64,${png.toString('base64')}`, width: 40, height: 30 } }), times: 1 });
    const result = await postJson(`${u.t.baseUrl}/images/generations`, { model: 'fal-image', prompt: 'a kite', size: '512x512' }, key.token);
    expect(result.status).toBe(200);
    expect(Buffer.from((result.body as { data: { b64_json: string }[] }).data[0]!.b64_json, 'base64').equals(png)).toBe(true);
  });

  it('cancelling a partner task calls PUT on the returned cancel_url', async () => {
    u.fal.behaviour.stuck = true;
    const created = (await postJson(`${u.t.baseUrl}/videos`, { model: 'fal-video', prompt: 'slow', seconds: 10, size: '720p' }, key.token)).body as VideoTask;
    await waitFor(async () => (await u.t.gateway.videoTasks.get(created.id))?.upstream_id);
    const cancelled = (await request(`${u.t.baseUrl}/videos/${created.id}`, { method: 'DELETE', headers: auth() })).body as VideoTask;
    u.fal.behaviour.stuck = false;
    expect(cancelled).toMatchObject({ status: 'failed', error: { code: 'cancelled' } });
    expect(u.fal.cancelCalls).toHaveLength(1);
    expect(u.fal.requests.some((r) => r.method === 'PUT' && r.path.startsWith('/q/'))).toBe(true);
  });

  it('a cancel the queue answers 400 ALREADY_COMPLETED (finished before the gateway saw it) still cancels the task and releases the hold', async () => {
    u.fal.behaviour.stuck = true;
    const created = (await postJson(`${u.t.baseUrl}/videos`, { model: 'fal-video', prompt: 'raced', seconds: 5, size: '720p' }, key.token)).body as VideoTask;
    const row = await waitFor(async () => {
      const found = await u.t.gateway.videoTasks.get(created.id);
      return found?.upstream_id ? found : null;
    });
    u.fal.behaviour.stuck = false;
    const requestId = (JSON.parse(row.upstream_id!) as { request_id: string }).request_id;
    u.fal.inject('GET status', { status: 503 }); // the scheduler must not see the completion first
    u.fal.jobs.get(requestId)!.completeNow();
    const response = await request(`${u.t.baseUrl}/videos/${created.id}`, { method: 'DELETE', headers: auth() });
    u.fal.clearFaults();
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'failed', error: { code: 'cancelled' }, outputs: [] });
    expect(response.text).not.toContain('ALREADY_COMPLETED');
    expect(u.fal.cancelCalls).toContain(requestId);
    const hold = await u.t.gateway.store.db.selectFrom('holds').selectAll().where('id', '=', row.hold_id!).executeTakeFirstOrThrow();
    expect(hold.status).toBe('released');
  });

  it('each URL a queue answer names is used as given, even signed ones none of which can be built from another (status, result, cancel)', async () => {
    u.fal.behaviour.signedUrls = true;
    try {
      const image = await postJson(`${u.t.baseUrl}/images/generations`, { model: 'fal-image', prompt: 'signed', size: '256x256' }, key.token);
      expect(image.status).toBe(200);
      const video = (await postJson(`${u.t.baseUrl}/videos`, { model: 'fal-video', prompt: 'signed', seconds: 5, size: '720p' }, key.token)).body as VideoTask;
      const done = await waitFor(async () => {
        const task = (await request(`${u.t.baseUrl}/videos/${video.id}`, { headers: auth() })).body as VideoTask;
        return task.status === 'queued' || task.status === 'in_progress' ? null : task;
      }, 20_000);
      expect(done.status).toBe('completed');
      u.fal.behaviour.stuck = true;
      const slow = (await postJson(`${u.t.baseUrl}/videos`, { model: 'fal-video', prompt: 'signed slow', seconds: 5, size: '720p' }, key.token)).body as VideoTask;
      const row = await waitFor(async () => {
        const found = await u.t.gateway.videoTasks.get(slow.id);
        return found?.upstream_id ? found : null;
      });
      expect((await request(`${u.t.baseUrl}/videos/${slow.id}`, { method: 'DELETE', headers: auth() })).status).toBe(200);
      expect(u.fal.cancelCalls).toContain((JSON.parse(row.upstream_id!) as { request_id: string }).request_id);
    } finally {
      u.fal.behaviour.signedUrls = false;
      u.fal.behaviour.stuck = false;
    }
    const signed = [...u.fal.jobs.values()].filter((job) => job.signatures !== null);
    expect(signed).toHaveLength(3);
    const unsigned = u.fal.requests.filter((r) => r.path.startsWith('/q/') && signed.some((job) => r.path.includes(job.id)) && !r.path.includes('?sig='));
    expect(unsigned).toEqual([]);
  });
});

describe('live catalog of provider models', () => {
  it('discovery adds the upstream models the price book knows', async () => {
    const result = await u.t.gateway.providerAdmin.discover('up');
    expect(result.added).toEqual(expect.arrayContaining(['up/gpt-image-1', 'up/sora-2']));
    const models = (await request(`${u.t.baseUrl}/models`)).body as { data: { id: string; pricing: { output?: number } }[] };
    expect(models.data.find((m) => m.id === 'up/gpt-image-1')!.pricing.output).toBeGreaterThan(0);
    const check = await u.t.gateway.providerAdmin.check('up');
    expect(check).toMatchObject({ ok: true });
  });

  it('the connection test checks the key too, not only that models are listed (another gateway lists them to anyone)', async () => {
    const good = await u.t.key('balance', { balanceNano: USD });
    await u.t.gateway.providerConfigs.add({ id: 'gw-wrong', kind: 'openai', baseUrl: u.t.baseUrl, apiKey: 'mgw_not_a_key_of_this_gateway' });
    await u.t.gateway.providerConfigs.add({ id: 'gw-right', kind: 'openai', baseUrl: u.t.baseUrl, apiKey: good.token });
    try {
      const wrong = await u.t.gateway.providerAdmin.check('gw-wrong');
      expect(wrong).toMatchObject({ ok: false, message: expect.stringMatching(/credentials/) });
      const right = await u.t.gateway.providerAdmin.check('gw-right');
      expect(right).toMatchObject({ ok: true, message: expect.stringMatching(/key was accepted/) });
      expect(right.models).toContain('local-image');
    } finally {
      await u.t.gateway.providerConfigs.remove('gw-wrong');
      await u.t.gateway.providerConfigs.remove('gw-right');
    }
  });

  it('a provider that catalog models still use cannot be removed', async () => {
    const response = await postJson(`${u.t.baseUrl}/images/generations`, { model: 'up-image', prompt: 'x' }, key.token);
    expect(response.status).toBe(200);
    await expect(u.t.gateway.providerConfigs.remove('up')).rejects.toMatchObject({ code: 'invalid_request' });
  });
});

async function upstreamJson(emulator: { requests: { path: string }[] }, path: string): Promise<Record<string, unknown>> {
  // Re-ask the emulator the same question to read the usage it reports for this prompt and size.
  const last = (emulator as unknown as { requests: { path: string; body: Buffer }[] }).requests.filter((r) => r.path === path).at(-1)!;
  const response = await fetch(`${u.openai.baseUrl.replace(/\/v1$/, '')}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${u.openai.apiKey}`, 'content-type': 'application/json' },
    body: last.body,
  });
  return (await response.json()) as Record<string, unknown>;
}
