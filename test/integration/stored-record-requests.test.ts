// Records already in the database that today's catalog check would refuse (stored by an older
// version, or edited in the database by hand) must give 4xx answers at request time, never a 500.
// They are written through a second connection, as another process would.
import { join } from 'node:path';
import Libsql from 'libsql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelRecord, VideoTask } from '../../shared/api-types.js';
import { startTestGateway, USD, type TestGateway } from '../helpers/gateway.js';
import { errorOf, postForm, postJson, request } from '../helpers/http.js';
import { makeImage } from '../helpers/images.js';
import { UNCHECKED_HEADER } from '../helpers/conformance.js';

let t: TestGateway;
let token: string;

beforeAll(async () => {
  t = await startTestGateway();
  token = (await t.key('balance', { balanceNano: 20 * USD })).token;
  const image = (await t.gateway.catalog.find('local-image'))!.record;
  const video = (await t.gateway.catalog.find('local-video'))!.record;
  const broken: Record<string, unknown>[] = [
    { ...video, id: 'v-scalar', capabilities: { ...video.capabilities, supported_seconds: 4, supported_sizes: '720p' } },
    { ...video, id: 'v-refs', capabilities: { ...video.capabilities, max_reference_images: 'one', max_reference_image_bytes: '8MB', request_types: 'text-to-video' } },
    { ...video, id: 'v-task', capabilities: { ...video.capabilities, max_task_seconds: 'soon' } },
    { ...image, id: 'i-scalar', capabilities: { ...image.capabilities, supported_sizes: 1024 } },
    { ...image, id: 'i-refs', capabilities: { ...image.capabilities, max_reference_images: 'three', max_reference_image_bytes: {} } },
    { ...image, id: 'i-zero-unit', pricing: { ...image.pricing, unit: '0 tokens' } },
    { ...image, id: 'i-huge-output', pricing: { ...image.pricing, output: 1e300 } },
    { ...image, id: 'i-huge-minimum', pricing: { ...image.pricing, minimum_request_price_usd: 1e300 } },
  ];
  const other = new Libsql(join(t.dataDir, 'gateway.db'));
  other.pragma('busy_timeout = 5000');
  const insert = other.prepare("insert into models (id, record_json, source, updated_at) values (?, ?, 'owner', ?)");
  const route = other.prepare("insert into model_routes (model_id, position, provider_id, upstream_model) values (?, 0, 'local', ?)");
  for (const record of broken) {
    insert.run(record.id, JSON.stringify(record), Date.now());
    route.run(record.id, record.id);
  }
  other.close();
});
afterAll(() => t?.close());

const auth = () => ({ authorization: `Bearer ${token}` });
/**
 * The catalog's list without the OpenAPI check every test fetch gets: records damaged by hand
 * are served as they are stored, outside the document's model schema, which is the point here.
 */
const rawModels = async () => {
  const response = await fetch(`${t.baseUrl}/models`, { headers: { [UNCHECKED_HEADER]: '1' } });
  return { status: response.status, body: (await response.json()) as { data: ModelRecord[] } };
};

describe('stored records the catalog check would refuse', () => {
  it('are listed by GET /v1/models (the catalog serves what is stored)', async () => {
    const listed = (await rawModels()).body;
    expect(listed.data.map((m) => m.id)).toEqual(expect.arrayContaining(['v-scalar', 'i-scalar']));
  });

  it('a video model whose seconds and sizes are not lists: 400 naming the field, not a 500', async () => {
    const seconds = await postJson(`${t.baseUrl}/videos`, { model: 'v-scalar', prompt: 'waves', seconds: '4' }, token);
    expect(seconds.status).toBe(400);
    expect(errorOf(seconds)).toMatchObject({ code: 'invalid_request', param: 'seconds' });
  });

  it('a video model with non-numeric reference limits and a string request_types: 4xx, not a 500', async () => {
    const form = new FormData();
    for (const [name, value] of Object.entries({ model: 'v-refs', prompt: 'the boat sails', seconds: '2', size: '480p' })) form.append(name, value);
    form.append('input_reference', new Blob([await makeImage(64, 64)], { type: 'image/png' }), 'ref.png');
    const response = await postForm(`${t.baseUrl}/videos`, form, token);
    expect(response.status).toBe(400);
    expect(errorOf(response)).toMatchObject({ code: 'invalid_request', param: 'input_reference' });
  });

  it('a video model whose max_task_seconds is not a number: the task gets the default deadline', async () => {
    const created = await postJson(`${t.baseUrl}/videos`, { model: 'v-task', prompt: 'rain', seconds: 2, size: '480p' }, token);
    expect(created.status).toBe(200);
    const id = (created.body as VideoTask).id;
    const polled = await request(`${t.baseUrl}/videos/${id}`, { headers: auth() });
    expect(polled.status).toBe(200);
  });

  it('an image model whose sizes are not a list reads as listing none, not a 500', async () => {
    // No default size to pick: 400 naming the model.
    const response = await postJson(`${t.baseUrl}/images/generations`, { model: 'i-scalar', prompt: 'a dog' }, token);
    expect(response.status).toBe(400);
    expect(errorOf(response)).toMatchObject({ code: 'invalid_request', param: 'model' });
    // A record listing no sizes takes the size asked for, as before.
    const sized = await postJson(`${t.baseUrl}/images/generations`, { model: 'i-scalar', prompt: 'a dog', size: '256x256' }, token);
    expect(sized.status).toBe(200);
  });

  it('an image model with non-numeric reference limits: an edit answers 4xx or 200, never a 500', async () => {
    const form = new FormData();
    for (const [name, value] of Object.entries({ model: 'i-refs', prompt: 'make it blue', size: '256x256' })) form.append(name, value);
    form.append('image', new Blob([await makeImage(64, 64)], { type: 'image/png' }), 'ref.png');
    const response = await postForm(`${t.baseUrl}/images/edits`, form, token);
    expect(response.status).toBe(200);
    // The other models' uploads are not disturbed by the broken limits in the catalog.
    const good = new FormData();
    for (const [name, value] of Object.entries({ model: 'local-image', prompt: 'make it blue', size: '256x256' })) good.append(name, value);
    good.append('image', new Blob([await makeImage(64, 64)], { type: 'image/png' }), 'ref.png');
    expect((await postForm(`${t.baseUrl}/images/edits`, good, token)).status).toBe(200);
  });

  it('a token unit of zero tokens is billed as the default 1M tokens, not a division by zero', async () => {
    const response = await postJson(`${t.baseUrl}/images/generations`, { model: 'i-zero-unit', prompt: 'a dog', size: '256x256' }, token);
    expect(response.status).toBe(200);
  });

  it('a price billing cannot hold in nano-USD (1e300) is refused as out of range, not a 500', async () => {
    for (const model of ['i-huge-output', 'i-huge-minimum']) {
      const response = await postJson(`${t.baseUrl}/images/generations`, { model, prompt: 'a dog', size: '256x256' }, token);
      expect(response.status, model).toBe(400);
      expect(errorOf(response)).toMatchObject({ code: 'invalid_request', param: 'model', message: 'The price of this request is out of range.' });
    }
  });
});

describe('a stored record that is not JSON at all (the row damaged by hand)', () => {
  it('leaves that model out of the catalog, not the catalog out of service', async () => {
    const other = new Libsql(join(t.dataDir, 'gateway.db'));
    other.pragma('busy_timeout = 5000');
    other.prepare("insert into models (id, record_json, source, updated_at) values ('torn', '{\"id\": \"torn\", \"pric', 'owner', ?)").run(Date.now());
    other.prepare("insert into model_routes (model_id, position, provider_id, upstream_model) values ('torn', 0, 'local', 'torn')").run();
    other.close();
    const list = await rawModels();
    expect(list.status).toBe(200);
    expect(list.body.data.map((m) => m.id)).not.toContain('torn');
    expect((await request(`${t.baseUrl}/models/torn`)).status).toBe(404);
    const image = await postJson(`${t.baseUrl}/images/generations`, { model: 'local-image', prompt: 'a dog', size: '256x256' }, token);
    expect(image.status).toBe(200);
  });
});
