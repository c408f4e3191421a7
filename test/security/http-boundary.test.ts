// The HTTP boundary: DNS-rebinding Host checks on every door (/v1, the catalog fast path, the
// studio API, page and media), CORS closed (no Access-Control-* header anywhere, preflights not
// answered), path traversal in video ids, studio media paths and the studio page refused without
// ever returning the file's bytes, and the studio API refusing every method without the owner
// token or with an API key in its place.
import { readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VideoTask } from '../../shared/api-types.js';
import { STUDIO_METHODS, type GalleryItem, type StudioVideo } from '../../shared/studio-contract.js';
import { createStudio, type Studio } from '../../electron/core/studio/studio.js';
import { loadStudioToken, studioCookie } from '../../electron/core/studio/studio-token.js';
import { startHttpServer, type RunningServer } from '../../electron/http/server.js';
import { startTestGateway, USD, type TestGateway } from '../helpers/gateway.js';
import { errorOf } from '../helpers/http.js';
import { waitFor } from '../helpers/stub-video-provider.js';
import { checkResponse, filePart, multipartBody, rawRequest, textPart } from './support.js';
import { registerGateway } from '../helpers/conformance.js';

let t: TestGateway;
let studio: Studio;
let server: RunningServer;
let ownerToken: string;
let port: number;
let key: { id: string; token: string; accountId: string };
let keyTask: VideoTask;
let ownerVideo: StudioVideo;
let galleryItem: GalleryItem;
const CANARY = `canary-${Math.random().toString(36).slice(2)}-do-not-serve`;

beforeAll(async () => {
  t = await startTestGateway();
  studio = await createStudio(t.gateway, { version: 'test', apiBaseUrl: () => t.baseUrl });
  ownerToken = loadStudioToken(t.dataDir);
  server = await startHttpServer(t.gateway, { host: '127.0.0.1', port: 0, studio: { studio, ownerToken } });
  registerGateway(server.baseUrl);
  port = server.port;
  writeFileSync(join(t.dataDir, 'canary.txt'), CANARY);
  key = await t.key('balance', { balanceNano: 20 * USD });
  const created = await rawRequest({ port, method: 'POST', path: '/v1/videos', headers: { authorization: `Bearer ${key.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'local-video', prompt: 'boundary', seconds: 2 }) });
  keyTask = created.body as VideoTask;
  const generated = await studioApi('images.generate', { model: 'local-image', prompt: 'gallery item', size: '256x256' });
  galleryItem = (generated.body as { item: GalleryItem }).item;
  const video = await studioApi('videos.create', { model: 'local-video', prompt: 'owner clip', seconds: 2 });
  const id = (video.body as { video: StudioVideo }).video.id;
  ownerVideo = await waitFor(async () => {
    const list = (await studioApi('videos.list', {})).body as { videos: StudioVideo[] };
    const found = list.videos.find((v) => v.id === id);
    return found?.status === 'completed' ? found : null;
  }, 60_000);
  await waitFor(async () => {
    const task = (await rawRequest({ port, path: `/v1/videos/${keyTask.id}`, headers: { authorization: `Bearer ${key.token}` } })).body as VideoTask;
    return task.status === 'completed';
  }, 60_000);
}, 90_000);

afterAll(async () => {
  studio?.dispose();
  await server?.close();
  await t?.close();
});

function studioApi(method: string, input: unknown, headers: Record<string, string> = { authorization: `Bearer ${ownerToken}` }) {
  return rawRequest({ port, method: 'POST', path: `/studio/api/${method}`, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(input) });
}

/** Raw bytes over a socket: for requests node:http cannot send (no Host, HTTP/1.0). */
function rawSocket(text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    let out = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer: ${text.split('\r\n')[0]}`));
    }, 10_000);
    socket.on('data', (chunk: Buffer) => (out += chunk.toString('latin1')));
    socket.on('end', () => {
      clearTimeout(timer);
      resolve(out);
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

/** One request per door, with the credentials that door takes. */
const DOORS: { label: string; method: string; path: string; headers: () => Record<string, string>; body?: string }[] = [
  { label: 'GET /v1/models (fast path)', method: 'GET', path: '/v1/models', headers: () => ({}) },
  { label: 'GET /v1/models?x (Fastify)', method: 'GET', path: '/v1/models?x=1', headers: () => ({}) },
  { label: 'GET /v1/videos', method: 'GET', path: '/v1/videos', headers: () => ({ authorization: `Bearer ${key.token}` }) },
  { label: 'GET /v1/videos/{id}/content', method: 'GET', path: '/v1/videos/KEYTASK/content', headers: () => ({ authorization: `Bearer ${key.token}` }) },
  { label: 'POST /v1/images/generations', method: 'POST', path: '/v1/images/generations', headers: () => ({ authorization: `Bearer ${key.token}`, 'content-type': 'application/json' }), body: '{"model":"local-image","prompt":"x","size":"256x256"}' },
  { label: 'POST /studio/api/keys.list', method: 'POST', path: '/studio/api/keys.list', headers: () => ({ authorization: `Bearer ${ownerToken}`, 'content-type': 'application/json' }), body: '{}' },
  { label: 'POST /studio/session', method: 'POST', path: '/studio/session', headers: () => ({ authorization: `Bearer ${ownerToken}` }) },
  { label: 'GET /studio/', method: 'GET', path: '/studio/', headers: () => ({}) },
  { label: 'GET /studio/media', method: 'GET', path: '/studio/media/GALLERY', headers: () => ({ authorization: `Bearer ${ownerToken}` }) },
];
const pathOf = (path: string) => path.replace('KEYTASK', keyTask.id).replace('GALLERY', galleryItem.media);

describe('DNS rebinding: the Host header', () => {
  it('every door answers loopback names (any port, any case)', async () => {
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, 'localhost', `LOCALHOST:${port}`]) {
      for (const door of DOORS) {
        const response = await rawRequest({ port, method: door.method, path: pathOf(door.path), headers: { ...door.headers(), host }, ...(door.body ? { body: door.body } : {}) });
        expect(response.status, `${door.label} Host: ${host}`).toBeLessThan(300);
      }
    }
  });

  // docs: anything but localhost, 127.0.0.1 or [::1] (any port up to 65535) and the allowedHosts is refused.
  const FOREIGN = [
    'evil.example.com', 'evil.example.com:8787', 'localhost.evil.com', 'localhost.evil.com:8787', '127.0.0.1.nip.io', '127.0.0.1.nip.io:8787',
    'localhost.', '127.0.0.2', '0.0.0.0', '127.1', '2130706433', '[::2]', '[fe80::1]:8787', '[2001:db8::1]', '[::ffff:7f00:2]', 'evil',
  ];

  it.each(FOREIGN)('Host %j -> 400 invalid_request on every door, with the standard error body', async (host) => {
    for (const door of DOORS) {
      const response = await rawRequest({ port, method: door.method, path: pathOf(door.path), headers: { ...door.headers(), host }, ...(door.body ? { body: door.body } : {}) });
      checkResponse(response, { statuses: [400], label: `${door.label} Host: ${host}` });
      expect(errorOf(response).code).toBe('invalid_request');
      expect(response.headers.get('set-cookie')).toBeNull();
    }
  });

  it.each(['localhost:80@evil.com', 'localhost:8787@evil.com', '[::1].evil.com', '[::1]evil.com', 'localhost:evil.com', '127.0.0.1:x', 'localhost:65536', 'localhost:99999'])(
    'a Host that only starts like a loopback name (%j) is refused too',
    async (host) => {
      for (const door of DOORS) {
        const response = await rawRequest({ port, method: door.method, path: pathOf(door.path), headers: { ...door.headers(), host }, ...(door.body ? { body: door.body } : {}) });
        checkResponse(response, { statuses: [400], label: `${door.label} Host: ${host}` });
      }
    },
  );

  it('the content URL in a task\'s outputs always points at the host that was checked', async () => {
    const hosts: string[] = [];
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, 'localhost:80@evil.com', '[::1].evil.com']) {
      const response = await rawRequest({ port, path: `/v1/videos/${keyTask.id}`, headers: { authorization: `Bearer ${key.token}`, host } });
      if (response.status !== 200) continue;
      const output = (response.body as VideoTask).outputs[0]!;
      let hostname: string;
      try {
        hostname = new URL(output).hostname;
      } catch {
        hostname = `an unparseable URL ${output}`;
      }
      hosts.push(`${host} -> ${hostname}`);
    }
    for (const line of hosts) expect(line).toMatch(/-> (localhost|127\.0\.0\.1|\[::1\])$/);
  });

  it('a request without a Host header is refused (HTTP/1.0 with the standard error body; HTTP/1.1 by Node itself)', async () => {
    const old = await rawSocket('GET /v1/models HTTP/1.0\r\n\r\n');
    expect(old).toMatch(/^HTTP\/1\.1 400 /);
    expect(old).toContain('"code":"invalid_request"');
    expect(old).not.toContain('"object":"list"');
    const oldStudio = await rawSocket(`POST /studio/api/keys.list HTTP/1.0\r\nAuthorization: Bearer ${ownerToken}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`);
    expect(oldStudio).toMatch(/^HTTP\/1\.1 400 /);
    expect(oldStudio).not.toContain('"keys"');
    const missing = await rawSocket('GET /v1/models HTTP/1.1\r\nConnection: close\r\n\r\n');
    expect(missing).toMatch(/^HTTP\/1\.1 400 /);
    expect(missing).not.toContain('"object":"list"');
    for (const request of ['GET /v1/models HTTP/1.1\r\nHost:\r\nConnection: close\r\n\r\n', 'GET /v1/models HTTP/1.1\r\nHost: \r\nConnection: close\r\n\r\n']) {
      const empty = await rawSocket(request);
      expect(empty, 'an empty Host header').toMatch(/^HTTP\/1\.1 400 /);
      expect(empty).not.toContain('"object":"list"');
    }
  });

  // RFC 9112 3.2: more than one Host is a 400 (a proxy in front may pick the other one).
  it('two Host headers are refused whatever their order, on every door', async () => {
    for (const door of DOORS) {
      for (const hosts of [['localhost', 'evil.example.com'], ['evil.example.com', 'localhost'], ['localhost', 'localhost']]) {
        const head = `${door.method} ${pathOf(door.path)} HTTP/1.1\r\n${hosts.map((h) => `Host: ${h}\r\n`).join('')}`;
        const headers = Object.entries(door.headers()).map(([name, value]) => `${name}: ${value}\r\n`).join('');
        const answer = await rawSocket(`${head}${headers}Content-Length: ${Buffer.byteLength(door.body ?? '')}\r\nConnection: close\r\n\r\n${door.body ?? ''}`);
        expect(answer, `${door.label} Host: ${hosts.join(' + ')}`).toMatch(/^HTTP\/1\.1 400 /);
        expect(answer).toContain('"code":"invalid_request"');
      }
    }
  });

  // RFC 9112 3.2.2: the authority of an absolute-form target is the host the request is for.
  it('an absolute-form target naming a foreign host is refused even with a loopback Host; one naming loopback is served', async () => {
    for (const door of DOORS) {
      const headers = Object.entries(door.headers()).map(([name, value]) => `${name}: ${value}\r\n`).join('');
      const send = (authority: string) =>
        rawSocket(`${door.method} http://${authority}${pathOf(door.path)} HTTP/1.1\r\nHost: localhost:${port}\r\n${headers}Content-Length: ${Buffer.byteLength(door.body ?? '')}\r\nConnection: close\r\n\r\n${door.body ?? ''}`);
      for (const authority of ['evil.example.com', `evil.example.com:${port}`, `localhost:${port}@evil.example.com`, '127.0.0.1.nip.io']) {
        const answer = await send(authority);
        expect(answer, `${door.label} target authority ${authority}`).toMatch(/^HTTP\/1\.1 400 /);
        expect(answer).toContain('"code":"invalid_request"');
      }
      expect(await send(`localhost:${port}`), door.label).toMatch(/^HTTP\/1\.1 2\d\d /);
    }
  });
});

describe('requests Node cannot parse', () => {
  it.each([
    ['an unknown method', 'FOO /v1/models HTTP/1.1\r\nHost: localhost\r\n\r\n', 400],
    ['an unknown HTTP version', 'GET /v1/models HTTP/9.9\r\nHost: localhost\r\n\r\n', 400],
    ['both Content-Length and chunked', 'POST /v1/videos HTTP/1.1\r\nHost: localhost\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', 400],
    ['20 KB of headers', `GET /v1/models HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
  ])('%s -> the standard error body with its status and a request id', async (_name, text, status) => {
    const answer = await rawSocket(text);
    expect(answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(answer).toMatch(/\r\nx-request-id: req_\w+\r\n/);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { error: Record<string, unknown> };
    expect(body).toEqual({ error: { message: expect.any(String), type: 'invalid_request', code: 'invalid_request', param: null } });
  });

  // Node hands CONNECT to a 'connect' listener and, without one, closes the socket unanswered.
  it('CONNECT (this is no proxy) -> 405 with the standard error body and a request id', async () => {
    for (const target of ['localhost:443', `127.0.0.1:${port}`, 'evil.example:80']) {
      const answer = await rawSocket(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
      expect(answer, target).toMatch(/^HTTP\/1\.1 405 /);
      expect(answer).toMatch(/\r\nx-request-id: req_\w+\r\n/);
      const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { error: Record<string, unknown> };
      expect(body).toEqual({ error: { message: expect.stringContaining('CONNECT'), type: 'method_not_allowed', code: 'method_not_allowed', param: null } });
    }
  });
});

describe('compressed request bodies', () => {
  it('a body with a Content-Encoding is refused as such (400 naming the coding), after auth, on JSON and multipart doors', async () => {
    const json = gzipSync(JSON.stringify({ model: 'local-image', prompt: 'gzip', size: '256x256' }));
    const auth = { authorization: `Bearer ${key.token}` };
    const image = await rawRequest({ port, method: 'POST', path: '/v1/images/generations', headers: { ...auth, 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: json });
    expect(image.status).toBe(400);
    expect(errorOf(image)).toEqual({ message: 'Content-Encoding "gzip" is not supported: send the request body uncompressed.', type: 'invalid_request', code: 'invalid_request', param: null });
    const B = 'gzipform';
    const form = gzipSync(multipartBody(B, [textPart('model', 'local-video'), textPart('prompt', 'gzip'), textPart('seconds', '2')]));
    const video = await rawRequest({ port, method: 'POST', path: '/v1/videos', headers: { ...auth, 'content-type': `multipart/form-data; boundary=${B}`, 'content-encoding': 'br' }, body: form });
    expect(video.status).toBe(400);
    expect(errorOf(video).message).toMatch(/^Content-Encoding "br" is not supported/);
    const anonymous = await rawRequest({ port, method: 'POST', path: '/v1/images/generations', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: json });
    expect(errorOf(anonymous).code).toBe('missing_api_key');
    const identity = await rawRequest({ port, method: 'POST', path: '/v1/images/generations', headers: { ...auth, 'content-type': 'application/json', 'content-encoding': 'identity' }, body: JSON.stringify({ model: 'local-image', prompt: 'plain', size: '256x256' }) });
    expect(identity.status).toBe(200);
  });
});

describe('output URLs', () => {
  it('follow the Host the caller used; a Host without a port gets the port the request came in on', async () => {
    const poll = (host: string) => rawRequest({ port, path: `/v1/videos/${keyTask.id}`, headers: { host, authorization: `Bearer ${key.token}` } });
    const content = `/v1/videos/${keyTask.id}/content`;
    expect(((await poll(`127.0.0.1:${port}`)).body as VideoTask).outputs).toEqual([`http://127.0.0.1:${port}${content}`]);
    expect(((await poll('localhost')).body as VideoTask).outputs).toEqual([`http://localhost:${port}${content}`]);
    expect(((await poll('[::1]')).body as VideoTask).outputs).toEqual([`http://[::1]:${port}${content}`]);
  });
});

describe('Expect headers', () => {
  it('an expectation other than 100-continue is ignored and the request served, on both doors', async () => {
    const models = await rawSocket(`GET /v1/models HTTP/1.1\r\nHost: localhost\r\nExpect: fancy\r\nConnection: close\r\n\r\n`);
    expect(models).toMatch(/^HTTP\/1\.1 200 /);
    const body = JSON.stringify({ model: 'local-image', prompt: 'expect', size: '256x256' });
    const image = await rawRequest({ port, method: 'POST', path: '/v1/images/generations', headers: { expect: 'something-else', authorization: `Bearer ${key.token}`, 'content-type': 'application/json' }, body });
    expect(image.status).toBe(200);
    expect((image.body as { data: unknown[] }).data).toHaveLength(1);
  });
});

describe('CORS is closed', () => {
  it('no route sends Access-Control-* headers, whatever the Origin', async () => {
    for (const origin of ['http://evil.example', 'null', 'http://localhost:3000']) {
      const doors: typeof DOORS = [...DOORS, { label: 'unknown route', method: 'GET', path: '/v1/nothing', headers: () => ({}) }];
      for (const door of doors) {
        const response = await rawRequest({ port, method: door.method, path: pathOf(door.path), headers: { ...door.headers(), origin }, ...(door.body ? { body: door.body } : {}) });
        const cors = [...response.headers.keys()].filter((name) => name.startsWith('access-control-'));
        expect(cors, `${door.label} Origin: ${origin}`).toEqual([]);
      }
    }
  });

  it('an OPTIONS preflight is not answered with CORS headers (and is not a 2xx)', async () => {
    for (const door of DOORS) {
      const response = await rawRequest({
        port,
        method: 'OPTIONS',
        path: pathOf(door.path),
        headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
      });
      checkResponse(response, { statuses: [404, 405], label: `OPTIONS ${door.label}` });
      const cors = [...response.headers.keys()].filter((name) => name.startsWith('access-control-'));
      expect(cors, door.label).toEqual([]);
    }
  });
});

describe('CORS with origins the owner configured', () => {
  const allowed = 'http://localhost:3000';
  let open: RunningServer;
  beforeAll(async () => {
    open = await startHttpServer(t.gateway, { host: '127.0.0.1', port: 0, allowedOrigins: [allowed], studio: { studio, ownerToken } });
    registerGateway(open.baseUrl);
  });
  afterAll(() => open.close());
  const corsHeaders = (headers: Headers) => Object.fromEntries([...headers.entries()].filter(([name]) => name.startsWith('access-control-')));

  it('a preflight from a listed origin is answered 204 for /v1; the answer names the origin', async () => {
    const preflight = await rawRequest({ port: open.port, method: 'OPTIONS', path: '/v1/images/generations', headers: { origin: allowed, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' } });
    expect(preflight.status).toBe(204);
    expect(corsHeaders(preflight.headers)).toMatchObject({ 'access-control-allow-origin': allowed, 'access-control-allow-methods': expect.stringContaining('POST'), 'access-control-allow-headers': expect.stringContaining('authorization') });
    const models = await rawRequest({ port: open.port, method: 'GET', path: '/v1/models', headers: { origin: allowed } });
    expect(models.status).toBe(200);
    expect(models.headers.get('access-control-allow-origin')).toBe(allowed);
    expect(models.headers.get('vary')).toMatch(/Origin/);
    const image = await rawRequest({ port: open.port, method: 'POST', path: '/v1/images/generations', headers: { origin: allowed, authorization: `Bearer ${key.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'local-image', prompt: 'cors', size: '256x256' }) });
    expect(image.status).toBe(200);
    expect(image.headers.get('access-control-allow-origin')).toBe(allowed);
    expect(image.headers.get('access-control-expose-headers')).toMatch(/x-ratelimit-remaining-requests/);
  });

  it('a preflight allows the headers the page asks for (the OpenAI SDK sends x-stainless-* on every call)', async () => {
    const asked = 'authorization, content-type, x-stainless-os, x-stainless-lang, x-stainless-retry-count, idempotency-key';
    const preflight = await rawRequest({ port: open.port, method: 'OPTIONS', path: '/v1/videos', headers: { origin: allowed, 'access-control-request-method': 'POST', 'access-control-request-headers': asked } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toBe(asked);
    expect(preflight.headers.get('vary')).toMatch(/Access-Control-Request-Headers/);
    // A list that is not a list of header names gets the default set.
    const odd = await rawRequest({ port: open.port, method: 'OPTIONS', path: '/v1/videos', headers: { origin: allowed, 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-a; (y)' } });
    expect(odd.headers.get('access-control-allow-headers')).toBe('authorization, content-type, idempotency-key');
  });

  it('any other origin, and the studio, still get no CORS header', async () => {
    for (const [origin, method, path] of [
      ['http://evil.example', 'GET', '/v1/models'],
      ['http://localhost:3001', 'OPTIONS', '/v1/images/generations'],
      [allowed, 'POST', '/studio/api/system.info'],
    ] as const) {
      const response = await rawRequest({ port: open.port, method, path, headers: { origin, 'access-control-request-method': 'POST', authorization: `Bearer ${ownerToken}`, 'content-type': 'application/json' }, ...(method === 'POST' ? { body: '{}' } : {}) });
      expect(corsHeaders(response.headers), `${origin} ${method} ${path}`).toEqual({});
    }
  });
});

// A web page can make the browser send a form (multipart, urlencoded, text/plain) anywhere
// without a preflight; CORS only hides the answer. With allowAnonymous on, such a post needs no
// credential at all, and would spend the anonymous quota (and, for a turbo model on an upstream
// provider, the owner's provider credit) from any site the owner visits.
describe('cross-site form posts (CSRF)', () => {
  let anon: RunningServer;
  beforeAll(async () => {
    anon = await startHttpServer(t.gateway, { host: '127.0.0.1', port: 0, allowAnonymous: true, studio: { studio, ownerToken } });
    registerGateway(anon.baseUrl);
  });
  afterAll(() => anon.close());
  const B = 'csrfboundary';
  const form = () => multipartBody(B, [textPart('model', 'local-image'), textPart('prompt', 'drive-by'), filePart('image', 'a.png', readFileSync(join(t.dataDir, galleryItem.media)))]);
  const video = multipartBody(B, [textPart('model', 'local-video'), textPart('prompt', 'drive-by'), textPart('seconds', '2')]);

  it('a post from a page of another origin is refused before it does anything, on every door', async () => {
    for (const origin of ['https://evil.example', 'null', `http://127.0.0.1:${anon.port + 1}`, `http://localhost:${anon.port}.evil.example`]) {
      for (const [path, body, type] of [
        ['/v1/images/edits', form(), `multipart/form-data; boundary=${B}`],
        ['/v1/videos', video, `multipart/form-data; boundary=${B}`],
        ['/studio/api/keys.create', '{"access":"pro"}', 'text/plain'],
        ['/studio/session', '', 'text/plain'],
      ] as const) {
        const response = await rawRequest({ port: anon.port, method: 'POST', path, headers: { origin, 'content-type': type, cookie: `${studioCookie(ownerToken).name}=${studioCookie(ownerToken).value}` }, body });
        checkResponse(response, { statuses: [400], label: `${origin} ${path}` });
        expect(errorOf(response).message, `${origin} ${path}`).toMatch(/origin/i);
      }
      const cancel = await rawRequest({ port: anon.port, method: 'DELETE', path: `/v1/videos/${keyTask.id}`, headers: { origin, authorization: `Bearer ${key.token}` } });
      checkResponse(cancel, { statuses: [400], label: `${origin} DELETE` });
    }
    const anonymous = await t.gateway.store.db.selectFrom('video_tasks').select('id').where('key_id', 'like', 'anon%').execute();
    expect(anonymous).toEqual([]);
  });

  it("the gateway's own page (same origin), and clients that send no Origin, are served", async () => {
    const own = `http://127.0.0.1:${anon.port}`;
    const studioCall = await rawRequest({ port: anon.port, method: 'POST', path: '/studio/api/system.info', headers: { origin: own, host: `127.0.0.1:${anon.port}`, authorization: `Bearer ${ownerToken}`, 'content-type': 'application/json' }, body: '{}' });
    checkResponse(studioCall, { statuses: [200] });
    const session = await rawRequest({ port: anon.port, method: 'POST', path: '/studio/session', headers: { origin: `http://LOCALHOST:${anon.port}`, host: `localhost:${anon.port}`, authorization: `Bearer ${ownerToken}` } });
    checkResponse(session, { statuses: [204] });
    const edit = await rawRequest({ port: anon.port, method: 'POST', path: '/v1/images/edits', headers: { 'content-type': `multipart/form-data; boundary=${B}` }, body: form() });
    checkResponse(edit, { statuses: [200] });
    // Reads change nothing, and a page cannot read their answers without CORS.
    const models = await rawRequest({ port: anon.port, path: '/v1/models?x=1', headers: { origin: 'https://evil.example' } });
    checkResponse(models, { statuses: [200] });
  });
});

describe('path traversal', () => {
  const neverTheFile = (bytes: Buffer, label: string) => {
    const text = bytes.toString('latin1');
    expect(text, label).not.toContain('SQLite format 3');
    expect(text, label).not.toContain(CANARY);
    expect(text, label).not.toContain('"name": "media-gateway-studio"');
    expect(text, label).not.toMatch(/root:.*:0:0:/);
  };

  it('in video ids: 404 not_found and never the file', async () => {
    const ids = [
      '../../gateway.db', '..%2F..%2Fgateway.db', '%2e%2e%2f%2e%2e%2fgateway.db', '..%5C..%5Cgateway.db', '%2Fetc%2Fpasswd',
      '..%2F..%2Fcanary.txt', `${'..%2F'.repeat(12)}etc%2Fpasswd`, 'video_aaaaaaaaaaaaaaaaaaaa%00', `${keyTask.id}%2F..%2F..%2Fgateway.db`,
      `${keyTask.id}%00.db`, encodeURIComponent(join(t.dataDir, 'gateway.db')), '%252e%252e%252fgateway.db',
    ];
    for (const id of ids) {
      for (const suffix of ['', '/content']) {
        const path = `/v1/videos/${id}${suffix}`;
        const response = await rawRequest({ port, path, headers: { authorization: `Bearer ${key.token}` } });
        checkResponse(response, { statuses: [404], label: path, echoed: [decodeURIComponent(id)] });
        expect(errorOf(response).code).toBe('not_found');
        neverTheFile(response.bytes, path);
      }
    }
    // Unencoded dot segments reach no route at all.
    for (const path of ['/v1/videos/../../gateway.db', `/v1/videos/${keyTask.id}/../../../gateway.db`, '/v1/videos/./../canary.txt']) {
      const response = await rawRequest({ port, path, headers: { authorization: `Bearer ${key.token}` } });
      checkResponse(response, { statuses: [404], label: path });
      neverTheFile(response.bytes, path);
    }
  });

  it('in studio media paths: 404 and never the file (while the real media path works)', async () => {
    const real = await rawRequest({ port, path: `/studio/media/${galleryItem.media}`, headers: { authorization: `Bearer ${ownerToken}` } });
    expect(real.status).toBe(200);
    const file = galleryItem.media.split('/')[1]!;
    const paths = [
      'gallery/../../gateway.db', 'gallery/..%2F..%2Fgateway.db', 'videos/..%2F..%2Fgateway.db', 'videos/%2e%2e%2f%2e%2e%2fgateway.db',
      '..%2Fgateway.db', '%2e%2e/gateway.db', 'gateway.db', 'canary.txt', 'gallery%2F..%2F..%2Fcanary.txt', '/etc/passwd', '%2Fetc%2Fpasswd',
      `gallery/${file}/../../gateway.db`, `gallery/${file}%2F..%2F..%2Fgateway.db`, `gallery/${file}%00.db`, `gallery/..%5C..%5Cgateway.db`,
      `videos/${ownerVideo.id}.mp4%2F..%2F..%2Fgateway.db`, `videos/..%2F${ownerVideo.id}.mp4`, encodeURIComponent(join(t.dataDir, 'gateway.db')),
      `gallery/${encodeURIComponent(join(t.dataDir, 'canary.txt'))}`, 'gallery/%252e%252e%252fgateway.db',
    ];
    for (const media of paths) {
      const path = `/studio/media/${media}`;
      const response = await rawRequest({ port, path, headers: { authorization: `Bearer ${ownerToken}` } });
      checkResponse(response, { statuses: [404], label: path });
      neverTheFile(response.bytes, path);
    }
  });

  it('in gallery and video ids of the studio API: 404', async () => {
    for (const id of ['../../gateway.db', 'gallery/../../gateway.db', '..\\..\\gateway.db', join(t.dataDir, 'gateway.db'), `${galleryItem.id}/../../canary.txt`]) {
      for (const method of ['gallery.delete', 'videos.cancel']) {
        const response = await studioApi(method, { id });
        checkResponse(response, { statuses: [404], label: `${method} ${id}`, echoed: [id] });
        neverTheFile(response.bytes, `${method} ${id}`);
      }
    }
    const still = await rawRequest({ port, path: `/studio/media/${galleryItem.media}`, headers: { authorization: `Bearer ${ownerToken}` } });
    expect(still.status).toBe(200);
  });

  it('in the studio page: a 4xx and never a file outside dist/renderer', async () => {
    const paths = [
      '/studio/../package.json', '/studio/..%2f..%2fpackage.json', '/studio/%2e%2e/%2e%2e/package.json', '/studio/%2e%2e%2f%2e%2e%2fpackage.json',
      '/studio/..%5c..%5cpackage.json', '/studio/....//....//package.json', '/studio/index.html/../../../package.json', '/studio/%252e%252e/%252e%252e/package.json',
      '/studio/..%00/package.json', '/studio//etc/passwd', '/studio/%2fetc%2fpasswd',
    ];
    for (const path of paths) {
      const response = await rawRequest({ port, path });
      checkResponse(response, { statuses: [400, 403, 404], label: path });
      neverTheFile(response.bytes, path);
    }
  });
});

describe('the studio API guard', () => {
  it('refuses every method without the owner token, and with an API key (header or cookie) in its place', async () => {
    const wrong: [string, Record<string, string>][] = [
      ['no credentials', {}],
      ['an API key as bearer', { authorization: `Bearer ${key.token}` }],
      ['an API key as cookie', { cookie: `mgw_studio=${key.token}` }],
      ['the owner token with a typo', { authorization: `Bearer ${ownerToken.slice(0, -1)}${ownerToken.endsWith('a') ? 'b' : 'a'}` }],
      ['the owner token as Basic', { authorization: `Basic ${Buffer.from(`owner:${ownerToken}`).toString('base64')}` }],
      ['the owner token in another cookie', { cookie: `session=${ownerToken}` }],
      ['the owner token as the studio cookie', { cookie: `${studioCookie(ownerToken).name}=${ownerToken}` }],
    ];
    for (const method of STUDIO_METHODS) {
      for (const [label, headers] of wrong) {
        const response = await studioApi(method, {}, headers);
        checkResponse(response, { statuses: [401], label: `${method} with ${label}` });
        // No bearer header and no studio cookie is no credential at all.
        const none = headers.authorization === undefined && !headers.cookie?.startsWith('mgw_studio_');
        expect(errorOf(response).code).toBe(none ? 'missing_api_key' : 'invalid_api_key');
      }
    }
    for (const [method, path] of [['GET', '/studio/events'], ['GET', `/studio/media/${galleryItem.media}`], ['POST', '/studio/session'], ['GET', `/studio/media/${ownerVideo.media}`]] as const) {
      for (const [label, headers] of wrong) {
        // A refusal is immediate; an event stream let through would never end: fail in seconds.
        const response = await rawRequest({ port, method, path, headers, timeoutMs: 3_000 });
        checkResponse(response, { statuses: [401], label: `${method} ${path} with ${label}` });
        expect(response.headers.get('set-cookie')).toBeNull();
      }
    }
  });

  it('the owner token does not open /v1 (it is not an API key)', async () => {
    const response = await rawRequest({ port, path: '/v1/videos', headers: { authorization: `Bearer ${ownerToken}` } });
    checkResponse(response, { statuses: [401] });
  });

  it('error messages never carry JavaScript internals for prototype-named fields', async () => {
    const internals: string[] = [];
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
      const response = await rawRequest({ port, path: `/v1/videos?${name}=1`, headers: { authorization: `Bearer ${key.token}` } });
      checkResponse(response, { statuses: [400], label: name });
      const message = errorOf(response).message;
      if (/\[object Object\]|\[native code\]|function \w*\(/.test(message)) internals.push(message);
    }
    expect(internals, internals.join(' | ')).toEqual([]);
  });
});
