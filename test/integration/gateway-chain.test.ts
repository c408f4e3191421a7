// One gateway in front of another (an `openai`-kind provider whose base URL is a second gateway
// like this one): images pass through both, and a partner-backed video of the far gateway, whose
// content endpoint redirects to the partner's file, completes and is served by the near one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VideoTask } from '../../shared/api-types.js';
import { startTestGateway, USD, type TestGateway } from '../helpers/gateway.js';
import { postJson, request } from '../helpers/http.js';
import { toFile } from 'openai';
import { decodeB64, makeImage } from '../helpers/images.js';
import { waitFor } from '../helpers/stub-video-provider.js';
import { startUpstreams, type UpstreamSetup } from '../helpers/upstreams.js';

let far: UpstreamSetup;
let near: TestGateway;
let key: { id: string; token: string; accountId: string };
let farKey: { id: string; token: string; accountId: string };

beforeAll(async () => {
  far = await startUpstreams();
  farKey = await far.t.key('balance', { balanceNano: 50 * USD });
  near = await startTestGateway();
  await near.gateway.providerConfigs.add({ id: 'far', kind: 'openai', baseUrl: far.t.baseUrl, apiKey: farKey.token });
  const video = structuredClone((await near.gateway.catalog.find('local-video'))!.record);
  const image = structuredClone((await near.gateway.catalog.find('local-image'))!.record);
  await near.gateway.catalog.put({
    record: {
      ...video,
      id: 'far-partner-video',
      owned_by: 'far',
      pricing: { price: 0.2, currency: 'USD', unit: 'second' },
      capabilities: { ...video.capabilities, supported_seconds: [5, 10], supported_sizes: ['720p'], max_task_seconds: 60 },
    },
    providerId: 'far',
    upstreamModel: 'fal-video',
  });
  await near.gateway.catalog.put({
    record: { ...video, id: 'far-local-video', owned_by: 'far', pricing: { price: 0.1, currency: 'USD', unit: 'second' } },
    providerId: 'far',
    upstreamModel: 'local-video',
  });
  await near.gateway.catalog.put({
    // A size the far gateway's up-image (gpt-image-1 upstream) takes.
    record: { ...image, id: 'far-image', owned_by: 'far', capabilities: { ...image.capabilities, supported_sizes: ['1024x1024'] } },
    providerId: 'far',
    upstreamModel: 'up-image',
  });
  key = await near.key('balance', { balanceNano: 50 * USD });
});
afterAll(async () => {
  await near?.close();
  await far?.close();
});

describe('a gateway in front of another gateway', () => {
  it('an image passes through both and comes back in the contract shape', async () => {
    const result = await near.client(key.token).images.generate({ model: 'far-image', prompt: 'a kite over dunes', size: '1024x1024' });
    expect(Object.keys(result).sort()).toEqual(['data', 'usage']);
    expect(await decodeB64(result.data![0]!.b64_json!)).toMatchObject({ format: 'png', width: 1024, height: 1024 });
  });

  it('an edit with a reference passes through both', async () => {
    const file = await toFile(await makeImage(96, 64), 'ref.png', { type: 'image/png' });
    const result = await near.client(key.token).images.edit({ model: 'far-image', prompt: 'make it dusk', image: file, size: '1024x1024' });
    expect(await decodeB64(result.data![0]!.b64_json!)).toMatchObject({ format: 'png', width: 1024, height: 1024 });
  });

  it("a video of the far gateway's own engine completes and its MP4 is served by the near one", async () => {
    const created = (await postJson(`${near.baseUrl}/videos`, { model: 'far-local-video', prompt: 'waves at night', seconds: 2, size: '480p' }, key.token)).body as VideoTask;
    const done = await waitFor(async () => {
      const task = (await request(`${near.baseUrl}/videos/${created.id}`, { headers: { authorization: `Bearer ${key.token}` } })).body as VideoTask;
      return task.status === 'completed' || task.status === 'failed' ? task : null;
    }, 30_000);
    expect(done).toMatchObject({ status: 'completed', cost_usd: '0.20000000' });
    const content = await fetch(`${near.baseUrl}/videos/${created.id}/content`, { headers: { authorization: `Bearer ${key.token}` } });
    expect(content.status).toBe(200);
    expect(Buffer.from(await content.arrayBuffer()).toString('latin1', 4, 8)).toBe('ftyp');
  });

  it('an image-to-video task with a reference passes its file on to the far gateway', async () => {
    const form = new FormData();
    for (const [name, value] of Object.entries({ model: 'far-local-video', prompt: 'the boat sails off', seconds: '2', size: '480p' })) form.append(name, value);
    form.append('input_reference', new Blob([new Uint8Array(await makeImage(160, 90))], { type: 'image/png' }), 'boat.png');
    const created = (await (await fetch(`${near.baseUrl}/videos`, { method: 'POST', headers: { authorization: `Bearer ${key.token}` }, body: form })).json()) as VideoTask;
    expect(created.status).toBe('queued');
    const done = await waitFor(async () => {
      const task = (await request(`${near.baseUrl}/videos/${created.id}`, { headers: { authorization: `Bearer ${key.token}` } })).body as VideoTask;
      return task.status === 'completed' || task.status === 'failed' ? task : null;
    }, 30_000);
    expect(done.status).toBe('completed');
    const farTasks = (await request(`${far.t.baseUrl}/videos?limit=1`, { headers: { authorization: `Bearer ${farKey.token}` } })).body as { data: (VideoTask & { request_type?: string })[] };
    expect(farTasks.data[0]).toMatchObject({ model: 'local-video', status: 'completed' });
    const farRow = (await far.t.gateway.videoTasks.get(farTasks.data[0]!.id))!;
    expect(farRow.request_type).toBe('image-to-video');
  });

  it("a partner-backed video of the far gateway completes; the near one follows the far one's content redirect without its key", async () => {
    const created = (await postJson(`${near.baseUrl}/videos`, { model: 'far-partner-video', prompt: 'a heron takes off', seconds: 5, size: '720p' }, key.token)).body as VideoTask;
    expect(created.status).toBe('queued');
    const done = await waitFor(async () => {
      const task = (await request(`${near.baseUrl}/videos/${created.id}`, { headers: { authorization: `Bearer ${key.token}` } })).body as VideoTask;
      return task.status === 'completed' || task.status === 'failed' ? task : null;
    }, 20_000);
    expect(done).toMatchObject({ status: 'completed', cost_usd: '1.00000000' });

    // The far gateway's task redirects to the partner's file; the near one serves those bytes itself.
    const farTask = (await request(`${far.t.baseUrl}/videos?limit=1`, { headers: { authorization: `Bearer ${farKey.token}` } })).body as { data: VideoTask[] };
    const partnerUrl = farTask.data[0]!.outputs[0]!;
    expect(partnerUrl).toMatch(new RegExp(`^${far.fal.baseUrl}/files/`));
    const expected = Buffer.from(await (await fetch(partnerUrl)).arrayBuffer());
    const content = await fetch(`${near.baseUrl}/videos/${created.id}/content`, { headers: { authorization: `Bearer ${key.token}` } });
    expect(content.status).toBe(200);
    const served = Buffer.from(await content.arrayBuffer());
    expect(served.toString('latin1', 4, 8)).toBe('ftyp');
    expect(served.equals(expected)).toBe(true);

    // The near gateway's key for the far one never reached the partner's file host.
    const fileRequests = far.fal.requests.filter((r) => r.path.startsWith('/files/'));
    expect(fileRequests.length).toBeGreaterThanOrEqual(2);
    expect(fileRequests.map((r) => r.headers.authorization)).toEqual(fileRequests.map(() => undefined));
  });

  it('cancelling on the near gateway cancels the far task and releases both holds', async () => {
    far.fal.behaviour.stuck = true;
    try {
      const created = (await postJson(`${near.baseUrl}/videos`, { model: 'far-partner-video', prompt: 'never ends', seconds: 5, size: '720p' }, key.token)).body as VideoTask;
      const upstreamId = await waitFor(async () => (await near.gateway.videoTasks.get(created.id))?.upstream_id ?? null, 10_000);
      const cancelled = (await request(`${near.baseUrl}/videos/${created.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${key.token}` } })).body as VideoTask;
      expect(cancelled).toMatchObject({ status: 'failed', error: { code: 'cancelled' } });
      const farTask = await waitFor(async () => {
        const task = (await request(`${far.t.baseUrl}/videos/${upstreamId}`, { headers: { authorization: `Bearer ${farKey.token}` } })).body as VideoTask;
        return task.status === 'failed' ? task : null;
      }, 10_000);
      expect(farTask.error?.code).toBe('cancelled');
      for (const [gateway, accountId] of [[near.gateway, key.accountId], [far.t.gateway, farKey.accountId]] as const) {
        expect(await gateway.billing.activeHolds(accountId)).toEqual([]);
      }
    } finally {
      far.fal.behaviour.stuck = false;
    }
  });

  it('discovery takes the far gateway\'s own records (prices, capabilities), without its partner flags', async () => {
    const result = await near.gateway.providerAdmin.discover('far');
    expect(result.added).toEqual(expect.arrayContaining(['far/local-image', 'far/local-video', 'far/up-image', 'far/fal-video']));
    const listed = (await request(`${near.baseUrl}/models`)).body as { data: { id: string; owned_by: string; pricing: unknown; capabilities: Record<string, unknown> }[] };
    const farListed = (await request(`${far.t.baseUrl}/models`)).body as typeof listed;
    const adopted = listed.data.find((m) => m.id === 'far/local-video')!;
    expect(adopted).toMatchObject({ owned_by: 'far', pricing: farListed.data.find((m) => m.id === 'local-video')!.pricing });
    const partner = listed.data.find((m) => m.id === 'far/fal-video')!;
    expect(farListed.data.find((m) => m.id === 'fal-video')!.capabilities.partner_video).toBe(true);
    expect(partner.capabilities).not.toHaveProperty('partner_video');
    expect(partner.capabilities).not.toHaveProperty('partner_routes');
    const image = await near.client(key.token).images.generate({ model: 'far/local-image', prompt: 'a teapot', size: '256x256' });
    expect(await decodeB64(image.data![0]!.b64_json!)).toMatchObject({ format: 'png', width: 256, height: 256 });
  });
});
