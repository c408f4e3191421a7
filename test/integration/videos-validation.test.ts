// The seven validation rules of POST /videos in both shapes and both transports, each with its
// status, code and param; a refused creation leaves no task and no hold.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, USD, type TestGateway } from '../helpers/gateway.js';
import { errorOf, postForm, postJson, request } from '../helpers/http.js';
import { makeImage } from '../helpers/images.js';

let t: TestGateway;
let key: { id: string; token: string; accountId: string };
let png: Buffer;

beforeAll(async () => {
  // No scheduler: these tests only look at admission.
  t = await startTestGateway({ background: false });
  key = await t.key('balance', { balanceNano: 10 * USD });
  png = await makeImage(64, 64, 'png');
});
afterAll(() => t.close());

const url = () => `${t.baseUrl}/videos`;
const base = { model: 'local-video', prompt: 'a boat', seconds: '2' };

function form(fields: Record<string, string>, files: [string, Buffer][]): FormData {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) data.append(name, value);
  for (const [name, bytes] of files) data.append(name, new Blob([new Uint8Array(bytes)], { type: 'image/png' }), 'ref.png');
  return data;
}

async function unchanged<T>(run: () => Promise<T>): Promise<T> {
  const before = await t.gateway.billing.view(key.accountId);
  const tasksBefore = await t.gateway.store.db.selectFrom('video_tasks').select('id').execute();
  const result = await run();
  expect(await t.gateway.billing.view(key.accountId)).toEqual(before);
  expect(await t.gateway.store.db.selectFrom('video_tasks').select('id').execute()).toHaveLength(tasksBefore.length);
  return result;
}

describe('POST /v1/videos JSON rejections', () => {
  const cases: [string, unknown, number, string, string | null][] = [
    ['rule 1: seconds not listed', { ...base, seconds: '5' }, 400, 'invalid_request', 'seconds'],
    ['rule 1: duration not listed', { model: 'local-video', prompt: 'x', duration: 3 }, 400, 'invalid_request', 'duration'],
    ['rule 2: size not listed', { ...base, size: '1080p' }, 400, 'invalid_request', 'size'],
    ['rule 2: resolution not listed', { ...base, resolution: '640x360' }, 400, 'invalid_request', 'resolution'],
    ['rule 3: unknown request_type', { ...base, request_type: 'video-to-video' }, 400, 'invalid_request', 'request_type'],
    ['rule 6: reference required', { ...base, model: 'local-animate' }, 400, 'invalid_request', 'input_reference'],
    ['rule 7: input_reference inside JSON', { ...base, input_reference: 'data:image/png;base64,AAAA' }, 400, 'invalid_request', 'input_reference'],
    ['image-to-video without a reference', { ...base, request_type: 'image-to-video' }, 400, 'invalid_request', 'input_reference'],
    ['extra property', { ...base, quality: 'hd' }, 400, 'invalid_request', 'quality'],
    ['seconds as a word', { ...base, seconds: 'four' }, 400, 'invalid_request', 'seconds'],
    ['seconds as a boolean', { ...base, seconds: true }, 400, 'invalid_request', 'seconds'],
    ['seconds as a fraction', { ...base, seconds: 2.5 }, 400, 'invalid_request', 'seconds'],
    ['seconds with spaces around', { ...base, seconds: ' 2 ' }, 400, 'invalid_request', 'seconds'],
    ['duration with a tab before it', { model: 'local-video', prompt: 'x', duration: '\t2' }, 400, 'invalid_request', 'duration'],
    ['duration and seconds differ', { ...base, duration: 4 }, 400, 'invalid_request', 'duration'],
    ['resolution and size differ', { ...base, resolution: '480p', size: '720p' }, 400, 'invalid_request', 'resolution'],
    ['missing seconds', { model: 'local-video', prompt: 'x' }, 400, 'invalid_request', 'seconds'],
    ['missing model', { prompt: 'x', seconds: 2 }, 400, 'invalid_request', 'model'],
    ['missing prompt', { model: 'local-video', seconds: 2 }, 400, 'invalid_request', 'prompt'],
    ['image model', { ...base, model: 'local-image' }, 400, 'invalid_request', 'model'],
    ['unknown model', { ...base, model: 'nope' }, 400, 'invalid_request', 'model'],
    ['selector', { ...base, model: 'default' }, 400, 'invalid_request', 'model'],
    ['client_request_id empty', { ...base, client_request_id: '' }, 400, 'invalid_request', 'client_request_id'],
    ['client_request_id over 200 characters', { ...base, client_request_id: 'c'.repeat(201) }, 400, 'invalid_request', 'client_request_id'],
  ];
  it.each(cases.map(([name, body, status, code, param]) => [name, status, code, param, body] as const))('%s -> %i %s (%s)', async (_name, status, code, param, body) => {
    const response = await unchanged(() => postJson(url(), body, key.token));
    expect(response.status).toBe(status);
    expect(errorOf(response)).toMatchObject({ code, param });
  });

  it('accepts duration and seconds when they agree, and seconds as an integer', async () => {
    const both = await postJson(url(), { ...base, seconds: '2', duration: 2 }, key.token);
    expect(both.status).toBe(200);
    const integer = await postJson(url(), { ...base, seconds: 4 }, key.token);
    expect((integer.body as { seconds: string }).seconds).toBe('4');
  });

  it('a free key is refused the pro-tier video model with 402 naming the access needed', async () => {
    const free = await t.key('free');
    const response = await postJson(url(), base, free.token);
    expect(response.status).toBe(402);
    expect(errorOf(response).message).toMatch(/Pro subscription or a topped-up balance/);
  });

  it('wrong content type -> 400, missing key -> 401', async () => {
    const plain = await request(url(), { method: 'POST', headers: { authorization: `Bearer ${key.token}`, 'content-type': 'text/plain' }, body: 'x' });
    expect(plain.status).toBe(400);
    expect((await postJson(url(), base)).status).toBe(401);
  });
});

describe('POST /v1/videos multipart rejections', () => {
  it('rule 4: too many references -> 400 input_reference', async () => {
    const response = await unchanged(() => postForm(url(), form(base, [['input_reference', png], ['input_reference', png]]), key.token));
    expect(response.status).toBe(400);
    expect(errorOf(response).param).toBe('input_reference');
  });

  it('rule 5: a reference over max_reference_image_bytes -> 413 reference_image_too_large', async () => {
    const big = Buffer.concat([png, Buffer.alloc(8_388_608)]);
    const response = await unchanged(() => postForm(url(), form(base, [['input_reference[]', big]]), key.token));
    expect(response.status).toBe(413);
    expect(errorOf(response)).toMatchObject({ code: 'reference_image_too_large', param: 'input_reference[]' });
  });

  it('a form is checked as it is read: a file past every model\'s limits is refused before rule 1 looks at seconds', async () => {
    const big = Buffer.concat([png, Buffer.alloc(8_388_608)]);
    let response = await unchanged(() => postForm(url(), form({ ...base, seconds: '5' }, [['input_reference', big]]), key.token));
    expect(response.status).toBe(413);
    expect(errorOf(response).code).toBe('reference_image_too_large');
    response = await unchanged(() => postForm(url(), form({ ...base, seconds: '5' }, [['input_reference', png], ['input_reference', png]]), key.token));
    expect(errorOf(response)).toMatchObject({ code: 'invalid_request', param: 'input_reference' });
  });

  it("rule 5: a model's own byte limit applies below the form's (the largest of any video model)", async () => {
    const record = structuredClone((await t.gateway.catalog.find('local-video'))!.record);
    record.id = 'local-video-small';
    record.capabilities.max_reference_image_bytes = 200;
    await t.gateway.catalog.put({ record, providerId: 'local', upstreamModel: 'local-video' });
    try {
      expect(png.length).toBeGreaterThan(200);
      const response = await unchanged(() => postForm(url(), form({ ...base, model: 'local-video-small' }, [['input_reference', png]]), key.token));
      expect(response.status).toBe(413);
      expect(errorOf(response)).toMatchObject({ code: 'reference_image_too_large', param: 'input_reference' });
    } finally {
      await t.gateway.catalog.remove('local-video-small');
    }
  });

  it('rule 3: a request_type the route does not support -> 400 request_type', async () => {
    const response = await unchanged(() =>
      postForm(url(), form({ ...base, model: 'local-animate', request_type: 'text-to-video' }, [['input_reference', png]]), key.token),
    );
    expect(response.status).toBe(400);
    expect(errorOf(response).param).toBe('request_type');
  });

  it('wrong file field, not an image, text-to-video with a file -> 400', async () => {
    let response = await unchanged(() => postForm(url(), form(base, [['image', png]]), key.token));
    expect(errorOf(response).param).toBe('image');
    response = await unchanged(() => postForm(url(), form(base, [['input_reference', Buffer.from('not an image at all')]]), key.token));
    expect(errorOf(response).param).toBe('input_reference');
    response = await unchanged(() => postForm(url(), form({ ...base, request_type: 'text-to-video' }, [['input_reference', png]]), key.token));
    expect(errorOf(response).param).toBe('input_reference');
  });

  it('a reference cut short or corrupt behind a good header -> 400 input_reference, nothing held', async () => {
    const jpeg = await makeImage(256, 256, 'jpeg');
    for (const broken of [png.subarray(0, 200), jpeg.subarray(0, Math.floor(jpeg.length / 2))]) {
      const response = await unchanged(() => postForm(url(), form({ ...base, model: 'local-animate' }, [['input_reference', broken]]), key.token));
      expect(response.status).toBe(400);
      expect(errorOf(response)).toMatchObject({ code: 'invalid_request', param: 'input_reference' });
      expect(errorOf(response).message).toMatch(/cut short or corrupt/);
    }
  });

  it('input_reference as a text field of the form -> 400 saying it must be a file', async () => {
    const response = await unchanged(() => postForm(url(), form({ ...base, input_reference: 'hello' }, []), key.token));
    expect(response.status).toBe(400);
    expect(errorOf(response).param).toBe('input_reference');
    expect(errorOf(response).message).toMatch(/file part/);
  });

  it('multipart without files is text-to-video; with a file it defaults to image-to-video', async () => {
    const text = await postForm(url(), form(base, []), key.token);
    expect(text.status).toBe(200);
    expect((text.body as { request_type: string }).request_type).toBe('text-to-video');
    const image = await postForm(url(), form({ ...base, model: 'local-animate' }, [['input_reference', png]]), key.token);
    expect(image.status).toBe(200);
    expect((image.body as { request_type: string }).request_type).toBe('image-to-video');
  });
});
