// The studio door over HTTP (headless mode): owner-token guard, session cookie, the handler
// map through POST /studio/api/<method>, server-sent events, media with ranges, and the
// studio page with its CSP. The same dispatch serves IPC in Electron.
import { chmodSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STUDIO_METHODS, type StudioInput, type StudioMethod, type StudioVideo } from '../../shared/studio-contract.js';
import { createStudio, type Studio } from '../../electron/core/studio/studio.js';
import { loadStudioToken } from '../../electron/core/studio/studio-token.js';
import { startHttpServer, type RunningServer } from '../../electron/http/server.js';
import { startTestGateway, tempDir, type TestGateway } from '../helpers/gateway.js';
import { errorOf, request } from '../helpers/http.js';
import { makeImage } from '../helpers/images.js';
import { readMp4 } from '../helpers/mp4.js';
import { waitFor } from '../helpers/stub-video-provider.js';
import { startOpenAIEmulator } from '../emulators/index.js';
import { registerGateway } from '../helpers/conformance.js';

let t: TestGateway;
let studio: Studio;
let server: RunningServer;
let token: string;
let base: string;

beforeAll(async () => {
  t = await startTestGateway();
  studio = await createStudio(t.gateway, { version: 'test', apiBaseUrl: () => t.baseUrl });
  token = loadStudioToken(t.dataDir);
  server = await startHttpServer(t.gateway, { host: '127.0.0.1', port: 0, studio: { studio, ownerToken: token } });
  registerGateway(server.baseUrl);
  base = `http://127.0.0.1:${server.port}/studio`;
});
afterAll(async () => {
  studio.dispose();
  await server.close();
  await t.close();
});

async function call<T>(method: string, input: unknown, auth: Record<string, string> = { authorization: `Bearer ${token}` }) {
  const response = await request(`${base}/api/${method}`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: JSON.stringify(input) });
  return { ...response, body: response.body as T };
}

describe('studio API guard', () => {
  it('refuses calls, events and media without the owner token', async () => {
    for (const path of ['/api/catalog.list', '/events', '/media/gallery/img_aaaaaaaaaaaaaaaa.png']) {
      const response = await request(`${base}${path}`, { method: path.startsWith('/api') ? 'POST' : 'GET', headers: { 'content-type': 'application/json' }, body: path.startsWith('/api') ? '{}' : undefined });
      expect(response.status).toBe(401);
      expect(errorOf(response).code).toBe('missing_api_key');
    }
    const wrong = await call('catalog.list', {}, { authorization: 'Bearer nope' });
    expect(wrong.status).toBe(401);
    // An API key is not the owner token.
    const key = await t.key('balance');
    expect((await call('catalog.list', {}, { authorization: `Bearer ${key.token}` })).status).toBe(401);
  });

  it('POST /studio/session sets an HttpOnly SameSite=Strict cookie that authenticates later calls', async () => {
    const session = await fetch(`${base}/session`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    expect(session.status).toBe(204);
    const cookie = session.headers.get('set-cookie')!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const viaCookie = await call<{ models: unknown[] }>('catalog.list', {}, { cookie: cookie.split(';')[0]! });
    expect(viaCookie.status).toBe(200);
    expect(viaCookie.body.models.length).toBeGreaterThanOrEqual(4);
    // Browsers send localhost cookies to every port: the cookie is not the owner token, and its
    // name is this gateway's own.
    expect(cookie).not.toContain(token);
    expect(cookie).toMatch(/^mgw_studio_[0-9a-f]{12}=/);
    const [name] = cookie.split('=');
    expect((await call('catalog.list', {}, { cookie: `${name}=${token}` })).status).toBe(401);
  });

  it('no token -> 401 missing_api_key; GET on an API method or the session -> 405 Allow: POST', async () => {
    const none = await call('catalog.list', {}, {});
    expect(none.status).toBe(401);
    expect(errorOf(none).code).toBe('missing_api_key');
    for (const path of ['/api/catalog.list', '/session']) {
      const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('method_not_allowed');
    }
  });

  it('unknown methods -> 404, bad input -> 400 with param', async () => {
    expect((await call('nope.nothing', {})).status).toBe(404);
    const bad = await call('images.generate', { model: 'local-image' });
    expect(bad.status).toBe(400);
    expect(errorOf(bad)).toMatchObject({ code: 'invalid_request', param: 'prompt' });
    const extra = await call('keys.create', { access: 'free', admin: true });
    expect(errorOf(extra).code).toBe('invalid_request');
  });

  it('every method refuses a field it does not know, on an otherwise valid input, before doing anything', async () => {
    const valid: { [M in StudioMethod]: StudioInput<M> } = {
      'system.info': {},
      'catalog.list': {},
      'catalog.putWorkflow': { id: 'wf/x', provider: 'nope', workflow: '{}', output: 'image' },
      'catalog.remove': { id: 'local-image' },
      'catalog.setRoutes': { id: 'local-image', routes: [{ provider: 'local', upstream_model: 'local-image' }] },
      'images.generate': { model: 'local-image', prompt: 'x', size: '256x256' },
      'images.edit': { model: 'local-image', prompt: 'x', images: [] },
      'gallery.list': {},
      'gallery.delete': { id: 'img_aaaaaaaaaaaaaaaa' },
      'videos.quote': { model: 'local-video', seconds: 2, request_type: 'text-to-video' },
      'videos.create': { model: 'local-video', prompt: 'x', seconds: 2 },
      'videos.list': {},
      'videos.cancel': { id: 'video_aaaaaaaaaaaaaaaaaaaa' },
      'billing.summary': {},
      'billing.topUp': { usd: '1' },
      'keys.list': {},
      'keys.create': { access: 'free' },
      'keys.revoke': { id: 'key_aaaaaaaaaaaa' },
      'keys.topUp': { id: 'key_aaaaaaaaaaaa', usd: '1' },
      'keys.update': { id: 'key_aaaaaaaaaaaa', access: 'pro' },
      'keys.usage': { id: 'key_aaaaaaaaaaaa' },
      'activity.list': {},
      'providers.list': {},
      'providers.add': { id: 'extra-field', kind: 'openai', base_url: 'http://127.0.0.1:9/v1', api_key: 'sk-x' },
      'providers.update': { id: 'extra-field' },
      'providers.remove': { id: 'extra-field' },
      'providers.test': { id: 'extra-field' },
      'providers.discover': { id: 'extra-field' },
    };
    expect(Object.keys(valid).sort()).toEqual([...STUDIO_METHODS].sort());
    for (const method of STUDIO_METHODS) {
      const refused = await call(method, { ...valid[method], unexpected: true });
      expect(refused.status, method).toBe(400);
      expect(errorOf(refused).code, method).toBe('invalid_request');
    }
  });
});

describe('the owner token file', () => {
  it('is <data dir>/studio-token, mode 0600 (docs), kept across starts; an unusable one is replaced, owner-only too', () => {
    const dir = tempDir('mgw-studio-token-');
    try {
      const file = join(dir, 'studio-token');
      const first = loadStudioToken(dir);
      expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(readFileSync(file, 'utf8').trim()).toBe(first);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(loadStudioToken(dir)).toBe(first);
      writeFileSync(file, 'short\n', { mode: 0o644 });
      chmodSync(file, 0o644);
      const replaced = loadStudioToken(dir);
      expect(replaced).not.toBe(first);
      expect(statSync(file).mode & 0o777).toBe(0o600);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('studio methods over HTTP', () => {
  it('every contract method is served', () => {
    expect(Object.keys(studio.handlers).sort()).toEqual([...STUDIO_METHODS].sort());
  });

  it('providers.add refuses an id that exists with 400 invalid_request, param id, and keeps the stored key', async () => {
    const first = await call<{ provider: { key_source: string } }>('providers.add', { id: 'dup', kind: 'fal', base_url: 'http://127.0.0.1:9', api_key: 'fal-KEEP-ME-2' });
    expect(first.status).toBe(200);
    const again = await call('providers.add', { id: 'dup', kind: 'openai', base_url: 'http://127.0.0.1:9/v1' });
    expect(again.status).toBe(400);
    expect(errorOf(again)).toMatchObject({ code: 'invalid_request', param: 'id' });
    const listed = (await call<{ providers: { id: string; kind: string; key_source: string }[] }>('providers.list', {})).body.providers;
    expect(listed.find((p) => p.id === 'dup')).toMatchObject({ kind: 'fal', key_source: 'stored' });
    expect(t.gateway.providerConfigs.apiKey((await t.gateway.providerConfigs.row('dup'))!)).toBe('fal-KEEP-ME-2');
  });

  it('providers.update fixes a wrong key and a moved base URL, keeping kind, models and what was not given', async () => {
    const upstream = await startOpenAIEmulator({ apiKey: 'sk-right-UPDATE-1' });
    try {
      const added = await call('providers.add', { id: 'upd', kind: 'openai', base_url: 'http://127.0.0.1:9/v1', api_key: 'sk-wrong-UPDATE-0' });
      expect(added.status).toBe(200);
      const template = (await t.gateway.catalog.find('local-image'))!.record;
      await t.gateway.catalog.put({ record: { ...template, id: 'upd/gpt-image-1' }, providerId: 'upd', upstreamModel: 'gpt-image-1' });
      const test = async () => (await call<{ ok: boolean; message: string }>('providers.test', { id: 'upd' })).body;
      expect((await test()).ok).toBe(false);

      // The base URL alone: the wrong key stays, and the upstream now refuses it.
      const moved = await call<{ provider: { base_url: string; kind: string; key_source: string } }>('providers.update', { id: 'upd', base_url: `${upstream.baseUrl}/` });
      expect(moved.status).toBe(200);
      expect(moved.body.provider).toMatchObject({ base_url: upstream.baseUrl, kind: 'openai', key_source: 'stored' });
      expect(await test()).toMatchObject({ ok: false, message: expect.stringContaining('credentials') });

      // The key alone: the base URL stays, the key is never answered, and the connection works.
      const rekeyed = await call<{ provider: { base_url: string } }>('providers.update', { id: 'upd', api_key: 'sk-right-UPDATE-1' });
      expect(rekeyed.status).toBe(200);
      expect(rekeyed.body.provider.base_url).toBe(upstream.baseUrl);
      expect(rekeyed.text).not.toContain('sk-right-UPDATE-1');
      expect(await test()).toMatchObject({ ok: true });
      const models = (await call<{ models: { record: { id: string }; provider: string }[] }>('catalog.list', {})).body.models;
      expect(models.find((m) => m.record.id === 'upd/gpt-image-1')?.provider).toBe('upd');

      // Refusals name the field; an unknown id is 404; nothing given is 400.
      const badUrl = await call('providers.update', { id: 'upd', base_url: 'ftp://127.0.0.1/' });
      expect(badUrl.status).toBe(400);
      expect(errorOf(badUrl)).toMatchObject({ code: 'invalid_request', param: 'base_url' });
      const emptyKey = await call('providers.update', { id: 'upd', api_key: '' });
      expect(emptyKey.status).toBe(400);
      expect(errorOf(emptyKey).param).toBe('api_key');
      expect((await call('providers.update', { id: 'upd' })).status).toBe(400);
      const missing = await call('providers.update', { id: 'nope', api_key: 'sk-x' });
      expect(missing.status).toBe(404);
      expect(errorOf(missing)).toMatchObject({ code: 'not_found', param: 'id' });
      expect(await test()).toMatchObject({ ok: true });
    } finally {
      await upstream.close();
    }
  });

  it('images.generate bills the owner, saves to the gallery, and the media URL serves the PNG', async () => {
    const before = (await call<{ balance: { balance_usd: string } }>('billing.summary', {})).body.balance.balance_usd;
    const generated = await call<{ item: { id: string; media: string; cost_usd: string; width: number } }>('images.generate', { model: 'local-image', prompt: 'a paper boat', size: '512x512' });
    expect(generated.status).toBe(200);
    expect(generated.body.item).toMatchObject({ width: 512, kind: 'generation' });
    expect(Number(generated.body.item.cost_usd)).toBeGreaterThan(0);
    const after = (await call<{ balance: { balance_usd: string } }>('billing.summary', {})).body.balance.balance_usd;
    expect(Number(before) - Number(after)).toBeCloseTo(Number(generated.body.item.cost_usd), 8);

    const gallery = await call<{ items: { id: string }[] }>('gallery.list', {});
    expect(gallery.body.items[0]!.id).toBe(generated.body.item.id);
    const media = await fetch(`${base}/media/${generated.body.item.media}`, { headers: { authorization: `Bearer ${token}` } });
    expect(media.status).toBe(200);
    expect(media.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await media.arrayBuffer()).subarray(1, 4).toString()).toBe('PNG');
  });

  it('gallery media is served with the type of its file: JPEG and WebP (as upstream providers may answer) too', async () => {
    const owner = (await call<{ owner_key_id: string }>('system.info', {})).body.owner_key_id;
    const { account_id: accountId } = await t.gateway.store.db.selectFrom('api_keys').select('account_id').where('id', '=', owner).executeTakeFirstOrThrow();
    for (const [format, type] of [['jpeg', 'image/jpeg'], ['webp', 'image/webp']] as const) {
      const written = await t.gateway.gallery.writeFile(await makeImage(32, 32, format));
      const item = await t.gateway.gallery.record(accountId, 'generation', 'local-image', format, written, 0);
      const media = await fetch(`${base}/media/${item.media}`, { headers: { authorization: `Bearer ${token}` } });
      expect(media.status).toBe(200);
      expect(media.headers.get('content-type'), format).toBe(type);
    }
  });

  it('images.edit takes base64 files and rejects non-images with param image', async () => {
    const png = (await makeImage(64, 48)).toString('base64');
    const edited = await call<{ item: { width: number; height: number } }>('images.edit', {
      model: 'local-image',
      prompt: 'rotate 90',
      images: [{ name: 'a.png', mime: 'image/png', base64: png }, { name: 'b.png', mime: 'image/png', base64: png }],
    });
    expect(edited.status).toBe(200);
    const bad = await call('images.edit', { model: 'local-image', prompt: 'x', images: [{ name: 'a.txt', mime: 'image/png', base64: Buffer.from('hello').toString('base64') }] });
    expect(errorOf(bad)).toMatchObject({ code: 'invalid_request', param: 'image' });
  });

  it('videos.quote shows the hold; videos.create pushes videos.updated events until completed; media plays', async () => {
    const quote = await call<{ hold_usd: string }>('videos.quote', { model: 'local-video', seconds: 2, request_type: 'image-to-video' });
    expect(quote.body.hold_usd).toBe('0.16000000');

    const events: StudioVideo[] = [];
    const { stop, connected } = listenEvents((event, data) => {
      if (event === 'videos.updated') events.push((data as { video: StudioVideo }).video);
    });
    await connected;
    const created = await call<{ video: StudioVideo }>('videos.create', { model: 'local-video', prompt: 'studio clip', seconds: 2, size: '480p' });
    expect(created.body.video).toMatchObject({ status: 'queued', media: null });
    const done = await waitFor(async () => events.find((v) => v.id === created.body.video.id && v.status === 'completed'), 60_000);
    stop();
    expect(done.media).toBe(`videos/${done.id}.mp4`);
    expect(events.some((v) => v.id === done.id && v.status === 'in_progress')).toBe(true);

    const full = await fetch(`${base}/media/${done.media}`, { headers: { authorization: `Bearer ${token}` } });
    const bytes = Buffer.from(await full.arrayBuffer());
    expect(readMp4(bytes)).toMatchObject({ codec: 'avc1', width: 854, height: 480 });
    const part = await fetch(`${base}/media/${done.media}`, { headers: { authorization: `Bearer ${token}`, range: 'bytes=0-99' } });
    expect(part.status).toBe(206);

    // Cut short on disk since it finished: a storage fault, not a shorter video.
    const file = join(t.dataDir, done.media!);
    writeFileSync(file, bytes.subarray(0, bytes.length >> 1));
    try {
      const damaged = await request(`${base}/media/${done.media}`, { headers: { authorization: `Bearer ${token}` } });
      expect(damaged.status).toBe(503);
      expect(errorOf(damaged)).toMatchObject({ code: 'storage_unavailable', message: expect.stringMatching(/damaged/) });
    } finally {
      writeFileSync(file, bytes);
    }

    const listed = await call<{ videos: StudioVideo[] }>('videos.list', {});
    expect(listed.body.videos[0]!.id).toBe(done.id);
  });

  it('videos.create with the same idempotency_key answers the first task and holds once', async () => {
    const holdsBefore = (await call<{ holds: unknown[] }>('billing.summary', {})).body.holds.length;
    const input = { model: 'local-video', prompt: 'once only', seconds: 8, size: '480p', idempotency_key: 'studio-test-once' };
    const [a, b] = await Promise.all([call<{ video: StudioVideo }>('videos.create', input), call<{ video: StudioVideo }>('videos.create', input)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.body.video.id).toBe(a.body.video.id);
    const summary = await call<{ holds: { ref: string | null }[] }>('billing.summary', {});
    expect(summary.body.holds.filter((h) => h.ref === a.body.video.id)).toHaveLength(1);
    expect(summary.body.holds.length).toBe(holdsBefore + 1);
    await call('videos.cancel', { id: a.body.video.id });
  });

  it('a refused amount says the rule it broke: the format (not a regex), or the largest amount one entry holds', async () => {
    const exponent = await call('billing.topUp', { usd: '1e2' });
    expect(exponent.status).toBe(400);
    expect(errorOf(exponent).message).toBe('usd: must be a plain decimal amount in USD such as 10 or 2.50 (digits, at most 9 decimals, no exponent).');
    expect(errorOf(exponent).param).toBe('usd');
    const created = await call('keys.create', { access: 'balance', balance_usd: '1e2' });
    expect(errorOf(created).message).toMatch(/^balance_usd: must be a plain decimal amount/);
    const huge = await call('billing.topUp', { usd: '10000000' });
    expect(huge.status).toBe(400);
    expect(errorOf(huge).message).toBe('usd must be at most 9007199.254740991 USD, the most a balance holds exactly to the nano-dollar.');
  });

  it('keys.update with nothing to change is 400 invalid_request (it was a 500 from an empty SQL update)', async () => {
    const created = await call<{ key: { id: string } }>('keys.create', { access: 'pro', allowance_usd: '1' });
    const empty = await call('keys.update', { id: created.body.key.id });
    expect(empty.status).toBe(400);
    expect(errorOf(empty)).toMatchObject({ code: 'invalid_request', message: 'Nothing to change: give a new access type, a new allowance, or both.' });
    expect((await call<{ key: { access: string } }>('keys.update', { id: created.body.key.id, access: 'balance' })).body.key.access).toBe('balance');
  });

  it('a revoked key cannot be topped up or changed: its token never works again, so the money would be lost', async () => {
    const created = await call<{ key: { id: string } }>('keys.create', { access: 'balance', balance_usd: '1' });
    const id = created.body.key.id;
    await call('keys.revoke', { id });
    for (const refused of [await call('keys.topUp', { id, usd: '5' }), await call('keys.update', { id, access: 'pro' })]) {
      expect(refused.status).toBe(400);
      expect(errorOf(refused)).toMatchObject({ code: 'invalid_request', param: 'key_id' });
      expect(errorOf(refused).message).toMatch(/was revoked at .* create a new key instead\.$/);
    }
    const listed = await call<{ keys: { id: string; access: string }[] }>('keys.list', {});
    expect(listed.body.keys.find((k) => k.id === id)?.access).toBe('balance');
  });

  it('keys.create returns the token once and it works on /v1; activity shows the request', async () => {
    const created = await call<{ key: { id: string }; token: string }>('keys.create', { access: 'balance', balance_usd: '1', label: 'from studio' });
    expect(created.status).toBe(200);
    const response = await fetch(`${t.baseUrl}/images/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${created.body.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'local-image', prompt: 'activity', size: '256x256' }),
    });
    expect(response.status).toBe(200);
    const listed = await call<{ keys: { id: string; token_hint: string }[] }>('keys.list', {});
    expect(JSON.stringify(listed.body)).not.toContain(created.body.token);
    const activity = await waitFor(async () => {
      const entries = (await call<{ entries: { key_id: string; endpoint: string; status: number; cost_usd: string }[] }>('activity.list', {})).body.entries;
      return entries.find((e) => e.key_id === created.body.key.id);
    });
    expect(activity).toMatchObject({ endpoint: '/v1/images/generations', status: 200 });
    expect(Number(activity.cost_usd)).toBeGreaterThan(0);
  });
});

describe('the studio page', () => {
  it('is served under /studio/ with a strict CSP', async () => {
    const page = await fetch(`${base}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await page.text()).toContain('<div id="root"');
  });
});

/** Listens to the studio's events; `connected` once the stream is open (the server subscribes before it answers). */
function listenEvents(onEvent: (event: string, data: unknown) => void): { stop(): void; connected: Promise<void> } {
  let open!: () => void;
  const connected = new Promise<void>((resolve) => (open = resolve));
  const req = httpRequest(`${base}/events`, { headers: { authorization: `Bearer ${token}` } }, (res) => {
    open();
    let buffer = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buffer += chunk;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.+)$/m.exec(block)?.[1];
        const data = /^data: (.+)$/m.exec(block)?.[1];
        if (event && data) onEvent(event, JSON.parse(data));
      }
    });
  });
  req.end();
  return { stop: () => req.destroy(), connected };
}
