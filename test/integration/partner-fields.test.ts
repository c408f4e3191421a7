// partner_video / partner_routes follow the provider: a fal video model put without them is
// listed as partner-backed, as its content endpoint behaves (302 to the partner's URL).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelRecord, VideoTask } from '../../shared/api-types.js';
import { USD } from '../helpers/gateway.js';
import { postForm, postJson, request } from '../helpers/http.js';
import { makeImage } from '../helpers/images.js';
import { waitFor } from '../helpers/stub-video-provider.js';
import { startUpstreams, type UpstreamSetup } from '../helpers/upstreams.js';

let u: UpstreamSetup;
let token: string;
let video: ModelRecord;

beforeAll(async () => {
  u = await startUpstreams();
  token = (await u.t.key('balance', { balanceNano: 20 * USD })).token;
  const local = structuredClone((await u.t.gateway.catalog.find('local-video'))!.record);
  // A full video record as an owner writes it for fal: no partner fields, no route prices.
  video = {
    ...local,
    id: 'kling',
    owned_by: 'fal',
    pricing: { price: 0.1, currency: 'USD', unit: 'second' },
    modalities: { input: ['text', 'image'], output: ['video'] },
    capabilities: { video_generation: true, video_async: true, supported_seconds: [5, 10], supported_sizes: ['720p'], max_reference_images: 1, max_reference_image_bytes: 8388608, requires_reference_image: false },
  };
});
afterAll(() => u?.close());

const listed = async (id: string) => ((await request(`${u.t.baseUrl}/models`)).body as { data: ModelRecord[] }).data.find((m) => m.id === id)!;

describe('partner fields of fal video models', () => {
  it('are set on put, with one route per supported request type, and the content endpoint redirects', async () => {
    await u.t.gateway.catalog.put({ record: video, providerId: 'fal', upstreamModel: 'fal-ai/kling-video/v2/master/text-to-video' });
    expect((await listed('kling')).capabilities).toMatchObject({
      partner_video: true,
      partner_routes: [
        { route: 'fal-ai/kling-video/v2/master/text-to-video', request_type: 'text-to-video' },
        { route: 'fal-ai/kling-video/v2/master/text-to-video', request_type: 'image-to-video' },
      ],
    });
    const created = (await postJson(`${u.t.baseUrl}/videos`, { model: 'kling', prompt: 'a fox', seconds: 5, size: '720p' }, token)).body as VideoTask;
    const done = await waitFor(async () => {
      const task = (await request(`${u.t.baseUrl}/videos/${created.id}`, { headers: { authorization: `Bearer ${token}` } })).body as VideoTask;
      return task.status === 'completed' ? task : null;
    }, 20_000);
    const content = await fetch(`${u.t.baseUrl}/videos/${created.id}/content`, { headers: { authorization: `Bearer ${token}` }, redirect: 'manual' });
    expect(content.status).toBe(302);
    expect(content.headers.get('location')).toBe(done.outputs[0]);
  });

  it('an image-only model routes only image-to-video; routes the owner gave are kept', async () => {
    const animate = { ...video, id: 'kling-i2v', capabilities: { ...video.capabilities, requires_reference_image: true } };
    await u.t.gateway.catalog.put({ record: animate, providerId: 'fal', upstreamModel: 'fal-ai/kling-video/v2/master/image-to-video' });
    expect((await listed('kling-i2v')).capabilities.partner_routes).toEqual([
      { route: 'fal-ai/kling-video/v2/master/image-to-video', request_type: 'image-to-video' },
    ]);
    const own = [{ route: 'fal-ai/kling-video', request_type: 'text-to-video', region: 'eu' }];
    await u.t.gateway.catalog.put({ record: { ...video, id: 'kling-own', capabilities: { ...video.capabilities, partner_routes: own } }, providerId: 'fal', upstreamModel: 'fal-ai/kling-video' });
    expect((await listed('kling-own')).capabilities).toMatchObject({ partner_video: true, partner_routes: own });
  });

  it("routes each request type to its own path (fal serves a model's text- and image-to-video apart), held at that route's price", async () => {
    const base = 'fal-ai/kling-video/v2.1/master';
    const routed: ModelRecord = {
      ...video,
      id: 'kling-routed',
      pricing: {
        price: 0.1,
        currency: 'USD',
        unit: 'second',
        route_prices_usd_per_second: [
          { route: `${base}/text-to-video`, request_type: 'text-to-video', public_price_usd_per_second: 0.2 },
          { route: `${base}/image-to-video`, request_type: 'image-to-video', public_price_usd_per_second: 0.3 },
        ],
      },
      capabilities: {
        ...video.capabilities,
        partner_routes: [
          { route: `${base}/text-to-video`, request_type: 'text-to-video' },
          { route: `${base}/image-to-video`, request_type: 'image-to-video' },
        ],
      },
    };
    await u.t.gateway.catalog.put({ record: routed, providerId: 'fal', upstreamModel: base });
    const submitted = () => u.fal.requests.filter((r) => r.method === 'POST').map((r) => r.path);
    const before = submitted().length;

    const text = await postJson(`${u.t.baseUrl}/videos`, { model: 'kling-routed', prompt: 'a fox', seconds: 5, size: '720p' }, token);
    expect(text.status).toBe(200);
    expect((text.body as VideoTask & { cost_usd: string }).cost_usd).toBe('1.00000000'); // 5 s x $0.20
    const form = new FormData();
    form.set('model', 'kling-routed');
    form.set('prompt', 'the fox turns');
    form.set('seconds', '5');
    form.set('size', '720p');
    form.set('input_reference', new Blob([new Uint8Array(await makeImage(320, 180))], { type: 'image/png' }), 'fox.png');
    const image = await postForm(`${u.t.baseUrl}/videos`, form, token);
    expect(image.status).toBe(200);
    expect((image.body as VideoTask & { cost_usd: string }).cost_usd).toBe('1.50000000'); // 5 s x $0.30

    expect(submitted().slice(before)).toEqual([`/${base}/text-to-video`, `/${base}/image-to-video`]);
    const imageSubmit = u.fal.requests.filter((r) => r.method === 'POST').at(-1)!;
    expect(JSON.parse(imageSubmit.body.toString())).toMatchObject({ prompt: 'the fox turns', image_url: expect.stringMatching(/^data:image\/png;base64,/) });
  });

  it.each([
    ['a route with a ".." segment', [{ route: 'fal-ai/../admin', request_type: 'text-to-video' }], 'capabilities.partner_routes[0].route'],
    ['an empty route', [{ route: '', request_type: 'text-to-video' }], 'capabilities.partner_routes[0].route'],
    ['a request type the model does not take', [{ route: 'fal-ai/x', request_type: 'video-to-video' }], 'capabilities.partner_routes[0].request_type'],
    ['a request type routed twice', [{ route: 'fal-ai/a', request_type: 'text-to-video' }, { route: 'fal-ai/b', request_type: 'text-to-video' }], 'capabilities.partner_routes[1].request_type'],
  ])('refuses partner routes with %s', async (_what, routes, param) => {
    const record = { ...video, id: 'bad-routes', capabilities: { ...video.capabilities, partner_routes: routes } };
    await expect(u.t.gateway.catalog.put({ record, providerId: 'fal', upstreamModel: 'fal-ai/x' })).rejects.toMatchObject({ code: 'invalid_request', param });
    expect(await u.t.gateway.catalog.find('bad-routes')).toBeUndefined();
  });

  it('says in plain words what a route must be', async () => {
    const record = { ...video, id: 'bad-route', capabilities: { ...video.capabilities, partner_routes: [{ route: 'a//b', request_type: 'text-to-video' }] } };
    await expect(u.t.gateway.catalog.put({ record, providerId: 'fal', upstreamModel: 'fal-ai/x' })).rejects.toMatchObject({
      message: 'Invalid model record: capabilities.partner_routes[0].route must be an upstream model path, a string without empty, "." or ".." path segments.',
    });
  });

  it('a fal image model gets no partner fields', async () => {
    expect((await listed('fal-image')).capabilities).not.toHaveProperty('partner_video');
    expect((await listed('fal-image')).capabilities).not.toHaveProperty('partner_routes');
  });

  it.each([
    ['partner_video false on a fal video model', 'fal', { partner_video: false }, 'capabilities.partner_video'],
    ['partner_video on an openai provider (the gateway serves the MP4 itself)', 'up', { partner_video: true }, 'capabilities.partner_video'],
    ['partner_video on the built-in engine', 'local', { partner_video: true }, 'capabilities.partner_video'],
    ['partner_routes without partner_video on an openai provider', 'up', { partner_routes: [{ route: 'x', request_type: 'text-to-video' }] }, 'capabilities.partner_routes'],
  ])('refuses %s', async (_what, providerId, extra, param) => {
    const record = { ...video, id: 'claims', capabilities: { ...video.capabilities, ...extra } };
    await expect(u.t.gateway.catalog.put({ record, providerId, upstreamModel: 'x' })).rejects.toMatchObject({ code: 'invalid_request', param });
    expect(await u.t.gateway.catalog.find('claims')).toBeUndefined();
  });
});
