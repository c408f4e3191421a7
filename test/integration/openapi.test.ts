// GET /v1/openapi.json: served without a token, a valid OpenAPI 3.1 document (swagger-parser), in
// step with the routes as registered (each with its schemas), and every response a drive through
// each endpoint sees (successes and errors) matches it.
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VideoTask } from '../../shared/api-types.js';
import { buildOpenApi, openApiPath, registeredRoutes, type RegisteredRoute, type RouteDoc } from '../../electron/http/openapi.js';
import { startTestGateway, USD, type TestGateway } from '../helpers/gateway.js';
import { postForm, postJson, request, type RawResponse } from '../helpers/http.js';
import { makeImage } from '../helpers/images.js';
import { responseChecker } from '../helpers/openapi-responses.js';
import { waitFor } from '../helpers/stub-video-provider.js';

type Operation = { operationId: string; parameters?: { name: string; in: string }[]; requestBody?: { content: Record<string, unknown> }; responses: Record<string, { content?: Record<string, { schema?: unknown }> }>; security: unknown[] };
type Doc = { openapi: string; paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } };

let t: TestGateway;
let doc: Doc;
let payer: { token: string };

beforeAll(async () => {
  t = await startTestGateway();
  payer = await t.key('balance', { balanceNano: 20 * USD });
  doc = (await request(`${t.baseUrl}/openapi.json`)).body as Doc;
});
afterAll(() => t.close());

describe('GET /v1/openapi.json', () => {
  it('is served without a token, as JSON with a request id', async () => {
    const response = await request(`${t.baseUrl}/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    expect(doc.openapi).toBe('3.1.0');
  });

  it('keeps the Host guard', async () => {
    const port = new URL(t.baseUrl).port;
    const { request: raw } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      raw({ host: '127.0.0.1', port, path: '/v1/openapi.json', headers: { host: 'evil.example' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
        .on('error', reject)
        .end();
    });
    expect(status).toBe(400);
  });

  it('validates as OpenAPI 3.1 (swagger-parser), its $refs resolving', async () => {
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
  });

  it('lists every registered /v1 route with its schemas, and nothing else', () => {
    const routes = registeredRoutes(t.server.app).filter((route) => route.url.startsWith('/v1/'));
    expect(routes.length).toBeGreaterThanOrEqual(10);
    for (const route of routes) {
      const operation = doc.paths[openApiPath(route.url)]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${route.url}`).toBeDefined();
      if (/[:*]/.test(route.url)) expect(operation!.parameters?.some((p) => p.in === 'path'), route.url).toBe(true);
      if (route.method === 'POST') expect(Object.keys(operation!.requestBody?.content ?? {}).length, route.url).toBeGreaterThan(0);
      for (const [status, answer] of Object.entries(operation!.responses)) {
        if (status !== '302') expect(answer.content, `${route.method} ${route.url} ${status}`).toBeDefined();
      }
      // Every error status answers the standard error object.
      for (const [status, answer] of Object.entries(operation!.responses)) {
        if (Number(status) >= 400) expect(answer.content?.['application/json']?.schema).toEqual({ $ref: '#/components/schemas/ErrorBody' });
      }
    }
    const documented = Object.entries(doc.paths).flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`));
    expect(documented.sort()).toEqual(routes.map((route) => `${route.method} ${openApiPath(route.url)}`).sort());
    for (const name of documented) {
      const [method, path] = name.split(' ') as [string, string];
      const url = path.replace(/^\/v1\/models\/\{id\}$/, '/v1/models/*').replace(/\{([^}]+)\}/g, ':$1');
      expect(t.server.app.hasRoute({ method: method as 'GET', url }), name).toBe(true);
    }
  });

  it('describes the multipart bodies, bearer auth and the Idempotency-Key header', () => {
    const edits = doc.paths['/v1/images/edits']!.post!;
    expect(Object.keys(edits.requestBody!.content)).toEqual(['multipart/form-data']);
    const form = doc.components.schemas.ImageEditForm as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(form.properties).sort()).toEqual(['image', 'model', 'prompt', 'size']);
    expect(form.required.sort()).toEqual(['image', 'model', 'prompt']);
    const videos = doc.paths['/v1/videos']!.post!;
    expect(Object.keys(videos.requestBody!.content).sort()).toEqual(['application/json', 'multipart/form-data']);
    expect(videos.parameters?.find((p) => p.in === 'header')?.name).toBe('Idempotency-Key');
    expect(videos.security).toEqual([{ bearer: [] }]);
    expect(doc.paths['/v1/models']!.get!.security).toEqual([]);
    expect(doc.paths['/v1/openapi.json']!.get!.security).toEqual([]);
  });

  it('cannot be built while a /v1 route lacks its entry or a schema for its input', () => {
    const entry: RouteDoc = { operationId: 'x', summary: 'x', auth: 'bearer', responses: {}, errors: [] };
    const build = (route: RegisteredRoute) => () => buildOpenApi([route]);
    expect(build({ method: 'GET', url: '/v1/things', schema: undefined, doc: undefined })).toThrow(/no OpenAPI entry/);
    expect(build({ method: 'GET', url: '/v1/things/:id', schema: undefined, doc: entry })).toThrow(/no params schema/);
    expect(build({ method: 'POST', url: '/v1/things', schema: undefined, doc: entry })).toThrow(/no schema for it/);
    expect(build({ method: 'GET', url: '/studio/x', schema: undefined, doc: undefined })).not.toThrow();
  });
});

describe('every response of a drive through each endpoint matches the document', () => {
  it('the check refuses a field the document does not describe, and an undocumented status', () => {
    const check = responseChecker(doc);
    const answer = (status: number, body: unknown): RawResponse => ({
      status,
      headers: new Headers({ 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'req_1' }),
      body,
      text: JSON.stringify(body),
    });
    const error = { error: { message: 'No such task.', type: 'not_found', code: 'not_found', param: 'id' } };
    expect(() => check('GET', '/v1/videos/video_x', answer(404, error))).not.toThrow();
    expect(() => check('GET', '/v1/videos/video_x', answer(404, { error: { ...error.error, detail: 1 } }))).toThrow(/must NOT have additional properties/);
    expect(() => check('GET', '/v1/videos/video_x', answer(418, error))).toThrow(/status not in the document/);
    expect(() => check('GET', '/v1/models', answer(200, { object: 'list', data: [], extra: true }))).toThrow(/additional properties/);
  });

  it('successes and errors alike', async () => {
    const check = responseChecker(doc);
    const origin = new URL(t.baseUrl).origin;
    const auth = { authorization: `Bearer ${payer.token}` };
    let seen = 0;
    const send = async (method: string, path: string, response: Promise<RawResponse>): Promise<RawResponse> => {
      const answer = await response;
      check(method, path, answer);
      seen++;
      return answer;
    };
    const get = (path: string, headers: Record<string, string> = auth) => send('GET', path, request(`${origin}${path}`, { headers }));

    await send('GET', '/v1/openapi.json', request(`${origin}/v1/openapi.json`));
    await get('/v1/models', {});
    await get('/v1/models?x=1', {}); // through Fastify, not the fast path
    await get('/v1/models/local-image', {});
    expect((await get('/v1/models/no-such-model', {})).status).toBe(404);

    const image = await makeImage(64, 64);
    expect((await send('POST', '/v1/images/generations', postJson(`${origin}/v1/images/generations`, { model: 'local-image', prompt: 'a red square', size: '256x256' }, payer.token))).status).toBe(200);
    expect((await send('POST', '/v1/images/generations', postJson(`${origin}/v1/images/generations`, { model: 'local-image', prompt: 'x', quality: 'hd' }, payer.token))).status).toBe(400);
    expect((await send('POST', '/v1/images/generations', postJson(`${origin}/v1/images/generations`, { model: 'local-image', prompt: 'x' }))).status).toBe(401);
    const free = await t.key('free');
    expect((await send('POST', '/v1/images/generations', postJson(`${origin}/v1/images/generations`, { model: 'local-image-pro', prompt: 'x' }, free.token))).status).toBe(402);
    const editForm = () => {
      const form = new FormData();
      form.set('model', 'local-image');
      form.set('prompt', 'make it black and white');
      form.set('image', new Blob([image], { type: 'image/png' }), 'a.png');
      return form;
    };
    expect((await send('POST', '/v1/images/edits', postForm(`${origin}/v1/images/edits`, editForm(), payer.token))).status).toBe(200);
    const masked = editForm();
    masked.set('mask', new Blob([image], { type: 'image/png' }), 'mask.png');
    expect((await send('POST', '/v1/images/edits', postForm(`${origin}/v1/images/edits`, masked, payer.token))).status).toBe(400);

    const created = await send('POST', '/v1/videos', postJson(`${origin}/v1/videos`, { model: 'local-video', prompt: 'waves', duration: 2, resolution: '480p', client_request_id: 'job-1' }, payer.token, { 'idempotency-key': 'openapi-1' }));
    expect(created.status).toBe(200);
    const again = await send('POST', '/v1/videos', postJson(`${origin}/v1/videos`, { model: 'local-video', prompt: 'other', duration: 2, resolution: '480p' }, payer.token, { 'idempotency-key': 'openapi-1' }));
    expect(again.status).toBe(400);
    const videoForm = new FormData();
    videoForm.set('model', 'local-video');
    videoForm.set('prompt', 'slow zoom');
    videoForm.set('seconds', '2');
    videoForm.set('size', '480p');
    videoForm.set('input_reference', new Blob([image], { type: 'image/png' }), 'ref.png');
    const fromForm = await send('POST', '/v1/videos', postForm(`${origin}/v1/videos`, videoForm, payer.token));
    expect(fromForm.status).toBe(200);
    const cancelledId = (fromForm.body as VideoTask).id;
    await send('DELETE', `/v1/videos/${cancelledId}`, request(`${origin}/v1/videos/${cancelledId}`, { method: 'DELETE', headers: auth }));
    expect((await get(`/v1/videos/${cancelledId}/content`)).status).toBe(409);

    const id = (created.body as VideoTask).id;
    await waitFor(async () => {
      const task = (await get(`/v1/videos/${id}`)).body as VideoTask;
      return task.status === 'completed' ? task : undefined;
    });
    await get('/v1/videos?limit=1');
    expect((await get('/v1/videos?limit=zero')).status).toBe(400);
    expect((await get(`/v1/videos/${id}/content`)).status).toBe(200);
    expect((await get(`/v1/videos/${id}/content`, { ...auth, range: 'bytes=0-9' })).status).toBe(206);
    expect((await get(`/v1/videos/${id}/content`, { ...auth, range: 'bytes=999999999-' })).status).toBe(416);
    expect((await get(`/v1/videos/${id}/content?variant=thumbnail`)).status).toBe(400);
    expect((await get('/v1/videos/video_aaaaaaaaaaaaaaaaaaaa')).status).toBe(404);
    expect((await get(`/v1/videos/${id}`, { authorization: 'Bearer nope' })).status).toBe(401);
    expect(seen).toBeGreaterThan(25);
  });
});
