import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpClient, openSession, type EventSourceLike } from '../../renderer/src/transport/http-client.js';
import { StudioError, formatError } from '../../renderer/src/transport/studio-error.js';
import { studioBase, takeToken } from '../../renderer/src/transport/token.js';

const TOKEN = 'mgw_owner_secret';

interface Seen {
  method: string;
  url: string;
  auth: string | undefined;
  contentType: string | undefined;
  body: string;
}

const seen: Seen[] = [];
let server: Server;
let base: string;

function reply(res: ServerResponse, status: number, body: unknown, type = 'application/json') {
  res.writeHead(status, { 'Content-Type': type });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

async function handler(req: IncomingMessage, res: ServerResponse) {
  let body = '';
  for await (const chunk of req) body += chunk;
  seen.push({ method: req.method ?? '', url: req.url ?? '', auth: req.headers.authorization, contentType: req.headers['content-type'], body });
  if (req.headers.authorization !== `Bearer ${TOKEN}`) {
    return reply(res, 401, { error: { message: 'Invalid owner token', type: 'invalid_api_key', code: 'invalid_api_key', param: null } });
  }
  switch (req.url) {
    case '/studio/session':
      res.writeHead(204, { 'Set-Cookie': 'mgw_studio=abc; HttpOnly; Path=/studio' });
      return res.end();
    case '/studio/api/gallery.list':
      return reply(res, 200, { items: [], echo: JSON.parse(body) });
    case '/studio/api/images.generate':
      return reply(res, 402, {
        error: { message: 'Insufficient balance: needs $0.01, available $0.00', type: 'insufficient_balance', code: 'insufficient_balance', param: null },
      });
    case '/studio/api/images.edit':
      return reply(res, 413, {
        error: { message: 'Reference image too large', type: 'reference_image_too_large', code: 'reference_image_too_large', param: 'images' },
      });
    case '/studio/api/catalog.list':
      return reply(res, 502, '<html>Bad gateway</html>', 'text/html');
    default:
      return reply(res, 404, { error: { message: 'Unknown route', type: 'not_found', code: 'not_found', param: null } });
  }
}

beforeAll(async () => {
  server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/studio/`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('HTTP studio client', () => {
  it('posts the input as JSON to <base>api/<method> with the bearer token', async () => {
    const client = createHttpClient({ base, token: TOKEN });
    const out = await client.call('gallery.list', { limit: 5 });
    expect(out.items).toEqual([]);
    const last = seen.at(-1)!;
    expect(last).toMatchObject({ method: 'POST', url: '/studio/api/gallery.list', auth: `Bearer ${TOKEN}` });
    expect(last.contentType).toMatch(/^application\/json/);
    expect(JSON.parse(last.body)).toEqual({ limit: 5 });
  });

  it('maps an error body to StudioError with code, message, param and status', async () => {
    const client = createHttpClient({ base, token: TOKEN });
    const error = await client.call('images.generate', { model: 'local-image-pro', prompt: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioError);
    expect(error).toMatchObject({ code: 'insufficient_balance', status: 402, param: null });
    expect(formatError(error)).toBe('insufficient_balance: Insufficient balance: needs $0.01, available $0.00');

    const tooBig = await client.call('images.edit', { model: 'local-image', prompt: 'x', images: [] }).catch((e: unknown) => e);
    expect(tooBig).toMatchObject({ code: 'reference_image_too_large', param: 'images', status: 413 });
  });

  it('names the status when the error body is not the standard one', async () => {
    const client = createHttpClient({ base, token: TOKEN });
    const error = await client.call('catalog.list', {}).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'http_error', status: 502 });
    expect(formatError(error)).toMatch(/^http_error: HTTP 502/);
  });

  it('reports an unreachable server as network_error', async () => {
    const client = createHttpClient({ base: 'http://127.0.0.1:1/studio/', token: TOKEN });
    const error = await client.call('catalog.list', {}).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'network_error' });
  });

  it('opens the session with the bearer token, and refuses a wrong token', async () => {
    await expect(openSession({ base, token: TOKEN })).resolves.toBeUndefined();
    expect(seen.at(-1)).toMatchObject({ method: 'POST', url: '/studio/session', auth: `Bearer ${TOKEN}` });
    await expect(openSession({ base, token: 'wrong' })).rejects.toMatchObject({ code: 'invalid_api_key', status: 401 });
  });

  it('resolves media paths under <base>media/', () => {
    const client = createHttpClient({ base, token: TOKEN });
    expect(client.mediaUrl('videos/video_1.mp4')).toBe(`${base}media/videos/video_1.mp4`);
    expect(client.mediaUrl('/gallery/a b.png')).toBe(`${base}media/gallery/a%20b.png`);
  });
});

class FakeEventSource implements EventSourceLike {
  readyState = 0;
  readonly listeners = new Map<string, ((event: MessageEvent<string>) => void)[]>();
  constructor(readonly url: string) {}
  addEventListener(type: string, listener: (event: MessageEvent<string>) => void) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }
  close() {
    this.readyState = 2;
  }
  fire(type: string, data = '') {
    for (const listener of this.listeners.get(type) ?? []) listener({ data } as MessageEvent<string>);
  }
}

describe('HTTP studio events', () => {
  it('opens one EventSource on <base>events and routes messages by event name', () => {
    const sources: FakeEventSource[] = [];
    const client = createHttpClient({ base, token: TOKEN, createEventSource: (url) => sources[sources.push(new FakeEventSource(url)) - 1]! });
    const updates: unknown[] = [];
    const added: unknown[] = [];
    const off = client.on('videos.updated', (p) => updates.push(p.video.id));
    client.on('activity.added', (p) => added.push(p.entry.id));
    expect(sources).toHaveLength(1);
    expect(sources[0]!.url).toBe(`${base}events`);

    sources[0]!.fire('videos.updated', JSON.stringify({ video: { id: 'video_1' } }));
    sources[0]!.fire('activity.added', JSON.stringify({ entry: { id: 7 } }));
    sources[0]!.fire('videos.updated', 'not json');
    off();
    sources[0]!.fire('videos.updated', JSON.stringify({ video: { id: 'video_2' } }));
    expect(updates).toEqual(['video_1']);
    expect(added).toEqual([7]);
  });

  it('tells the stores when the stream comes back after an error', () => {
    const sources: FakeEventSource[] = [];
    const client = createHttpClient({ base, token: TOKEN, createEventSource: (url) => sources[sources.push(new FakeEventSource(url)) - 1]! });
    let reconnects = 0;
    client.onReconnect(() => (reconnects += 1));
    client.on('catalog.changed', () => {});
    sources[0]!.fire('open');
    expect(reconnects).toBe(0);
    sources[0]!.fire('error');
    sources[0]!.fire('open');
    expect(reconnects).toBe(1);
  });

  it('says once that the stream broke, and again after it came back and broke anew', () => {
    const sources: FakeEventSource[] = [];
    const client = createHttpClient({ base, token: TOKEN, createEventSource: (url) => sources[sources.push(new FakeEventSource(url)) - 1]! });
    const seen: string[] = [];
    client.onDisconnect(() => seen.push('lost'));
    client.onReconnect(() => seen.push('back'));
    client.on('catalog.changed', () => {});
    sources[0]!.fire('open');
    sources[0]!.fire('error');
    sources[0]!.fire('error'); // the browser's retries fail too: still one notice
    sources[0]!.fire('open');
    sources[0]!.fire('error');
    expect(seen).toEqual(['lost', 'back', 'lost']);
  });
});

describe('owner token', () => {
  function env(hash: string, stored: string | null = null) {
    const storage = new Map<string, string>(stored ? [['mgw.studio.token', stored]] : []);
    const replaced: string[] = [];
    return {
      replaced,
      storage,
      env: {
        location: { hash, pathname: '/studio/', search: '' },
        history: { replaceState: (_d: unknown, _t: string, url?: string | URL | null) => void replaced.push(String(url)) },
        storage: {
          getItem: (k: string) => storage.get(k) ?? null,
          setItem: (k: string, v: string) => void storage.set(k, v),
          removeItem: (k: string) => void storage.delete(k),
        },
      },
    };
  }

  it('takes the token from the fragment, stores it and strips it from the address bar', () => {
    const t = env('#token=mgw_abc_def');
    expect(takeToken(t.env)).toBe('mgw_abc_def');
    expect(t.storage.get('mgw.studio.token')).toBe('mgw_abc_def');
    expect(t.replaced).toEqual(['/studio/']);
  });

  it('falls back to sessionStorage, and has nothing without either', () => {
    const stored = env('', 'mgw_saved');
    expect(takeToken(stored.env)).toBe('mgw_saved');
    expect(stored.replaced).toEqual([]);
    expect(takeToken(env('').env)).toBeNull();
  });

  it('computes the studio root from the page path', () => {
    expect(studioBase({ origin: 'http://127.0.0.1:8787', pathname: '/studio/' })).toBe('http://127.0.0.1:8787/studio/');
    expect(studioBase({ origin: 'http://127.0.0.1:8787', pathname: '/studio/index.html' })).toBe('http://127.0.0.1:8787/studio/');
    expect(studioBase({ origin: 'http://localhost:5173', pathname: '/' })).toBe('http://localhost:5173/studio/');
  });
});
