import { toFile } from 'openai';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, USD, type TestGateway } from '../helpers/gateway.js';
import { errorOf, postForm, postJson, request } from '../helpers/http.js';
import { decodeB64, makeImage } from '../helpers/images.js';

let t: TestGateway;
let paid: { id: string; token: string; accountId: string };
let png: Buffer;

beforeAll(async () => {
  t = await startTestGateway();
  paid = await t.key('balance', { balanceNano: 5 * USD });
  png = await makeImage(320, 200, 'png');
});
afterAll(() => t.close());

const blob = (bytes: Buffer, type = 'image/png') => new Blob([new Uint8Array(bytes)], { type });

function form(fields: Record<string, string>, files: [string, Buffer, string?][]): FormData {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) data.append(name, value);
  for (const [name, bytes, filename] of files) data.append(name, blob(bytes), filename ?? 'ref.png');
  return data;
}

describe('POST /v1/images/edits with the OpenAI SDK', () => {
  it('edits one image: grayscale keeps the size and makes R = G = B', async () => {
    const result = await t.client(paid.token).images.edit({
      model: 'local-image',
      prompt: 'make it black and white',
      image: await toFile(png, 'photo.png', { type: 'image/png' }),
    });
    expect(Object.keys(result).sort()).toEqual(['data', 'usage']);
    const bytes = Buffer.from(result.data![0]!.b64_json!, 'base64');
    const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([320, 200]);
    for (let i = 0; i < data.length; i += 3 * 97) {
      expect(Math.abs(data[i]! - data[i + 1]!)).toBeLessThanOrEqual(1);
      expect(Math.abs(data[i]! - data[i + 2]!)).toBeLessThanOrEqual(1);
    }
    expect(Number((result.usage as unknown as { cost_usd: string }).cost_usd)).toBeGreaterThan(0);
  });

  it('composes three references (sent as image[]) into one image of the requested size', async () => {
    const images = await Promise.all([
      makeImage(256, 256, 'png').then((b) => toFile(b, 'a.png', { type: 'image/png' })),
      makeImage(300, 200, 'jpeg').then((b) => toFile(b, 'b.jpg', { type: 'image/jpeg' })),
      makeImage(200, 300, 'webp').then((b) => toFile(b, 'c.webp', { type: 'image/webp' })),
    ]);
    const result = await t.client(paid.token).images.edit({
      model: 'local-image',
      prompt: 'combine these into a collage and rotate 90 degrees',
      image: images,
      size: '1024x1536',
    });
    expect(await decodeB64(result.data![0]!.b64_json!)).toEqual({ format: 'png', width: 1024, height: 1536 });
  });

  it('rotates 90 degrees: width and height swap when no size is given', async () => {
    const result = await t.client(paid.token).images.edit({
      model: 'local-image',
      prompt: 'rotate 90 degrees',
      image: await toFile(png, 'photo.png', { type: 'image/png' }),
    });
    expect(await decodeB64(result.data![0]!.b64_json!)).toMatchObject({ width: 200, height: 320 });
  });

  it('accepts two references under the plain field name too', async () => {
    const response = await postForm(
      `${t.baseUrl}/images/edits`,
      form({ model: 'local-image', prompt: 'blend them' }, [
        ['image', png],
        ['image', png],
      ]),
      paid.token,
    );
    expect(response.status).toBe(200);
    const body = response.body as { data: { b64_json: string }[] };
    expect(await decodeB64(body.data[0]!.b64_json)).toMatchObject({ format: 'png' });
  });

  it('takes images by their bytes, whatever type and file name they declare', async () => {
    const data = new FormData();
    data.append('model', 'local-image');
    data.append('prompt', 'collage of these');
    data.append('size', '1536x1024');
    data.append('image[]', blob(await makeImage(300, 200, 'jpeg'), 'image/png'), 'a.png');
    data.append('image[]', blob(await makeImage(200, 300, 'webp'), 'application/octet-stream'), 'b.bin');
    data.append('image[]', blob(png, 'text/plain'), 'c.txt');
    const response = await postForm(`${t.baseUrl}/images/edits`, data, paid.token);
    expect(response.status).toBe(200);
    const body = response.body as { data: { b64_json: string }[] };
    expect(await decodeB64(body.data[0]!.b64_json)).toMatchObject({ format: 'png', width: 1536, height: 1024 });
  });
});

describe('POST /v1/images/edits rejections', () => {
  const url = () => `${t.baseUrl}/images/edits`;
  const fields = { model: 'local-image', prompt: 'invert' };

  async function expectError(data: FormData, status: number, code: string, param: string | null) {
    const before = await t.gateway.billing.view(paid.accountId);
    const response = await postForm(url(), data, paid.token);
    expect(response.status).toBe(status);
    expect(errorOf(response)).toMatchObject({ code, param });
    expect(await t.gateway.billing.view(paid.accountId)).toEqual(before);
  }

  it('an edit that costs more than was held and than the balance covers -> 402, nothing charged', async () => {
    // The hold is estimated from the reference's size; the prompt asks for a far larger output.
    const poor = await t.key('balance', { balanceNano: USD / 1000 });
    const response = await postForm(url(), form({ model: 'local-image', prompt: 'resize to 10000x10000' }, [['image', png]]), poor.token);
    expect(response.status).toBe(402);
    expect(errorOf(response)).toMatchObject({ code: 'insufficient_balance', param: null });
    expect(await t.gateway.billing.view(poor.accountId)).toMatchObject({ balance_usd: '0.00100000', holds_usd: '0.00000000' });
    // Funded, the same edit is charged its full cost, not what happened to be available.
    const rich = await t.key('balance', { balanceNano: USD });
    const ok = await postForm(url(), form({ model: 'local-image', prompt: 'resize to 10000x10000' }, [['image', png]]), rich.token);
    expect(ok.status).toBe(200);
    const cost = (ok.body as { usage: { cost_usd: string } }).usage.cost_usd;
    expect(Number(cost)).toBeGreaterThan(0.001);
    expect((await t.gateway.billing.view(rich.accountId)).balance_usd).toBe((1 - Number(cost)).toFixed(8));
  });

  it('mask as a file or a field -> 400 param mask', async () => {
    await expectError(form(fields, [['image', png], ['mask', png]]), 400, 'invalid_request', 'mask');
    await expectError(form({ ...fields, mask: 'x' }, [['image', png]]), 400, 'invalid_request', 'mask');
  });

  it('other file field names and extra text fields -> 400 naming them', async () => {
    await expectError(form(fields, [['photo', png]]), 400, 'invalid_request', 'photo');
    for (const extra of ['response_format', 'quality', 'style', 'background', 'output_format', 'n', 'user']) {
      await expectError(form({ ...fields, [extra]: '1' }, [['image', png]]), 400, 'invalid_request', extra);
    }
  });

  it('no file, too many files, a file that is not an image -> 400 with the param', async () => {
    await expectError(form(fields, []), 400, 'invalid_request', 'image');
    await expectError(form(fields, [['image', png], ['image', png], ['image', png], ['image', png]]), 400, 'invalid_request', 'image');
    await expectError(form(fields, [['image', Buffer.from('GIF89a not really an image at all')]]), 400, 'invalid_request', 'image');
    // Declared as PNG, bytes are text: the content decides.
    await expectError(form(fields, [['image[]', Buffer.from('hello world, not a png'), 'fake.png']]), 400, 'invalid_request', 'image[]');
    // A good header over data cut short: refused before any hold, not edited as a black image.
    await expectError(form(fields, [['image', png], ['image', png.subarray(0, 200)]]), 400, 'invalid_request', 'image');
  });

  it('missing model or prompt, bad size, unknown model -> 400', async () => {
    await expectError(form({ prompt: 'x' }, [['image', png]]), 400, 'invalid_request', 'model');
    await expectError(form({ model: 'local-image' }, [['image', png]]), 400, 'invalid_request', 'prompt');
    await expectError(form({ ...fields, size: '99x99' }, [['image', png]]), 400, 'invalid_request', 'size');
    await expectError(form({ ...fields, model: 'pro' }, [['image', png]]), 400, 'invalid_request', 'model');
    await expectError(form({ ...fields, model: 'missing' }, [['image', png]]), 400, 'invalid_request', 'model');
  });

  it('a reference image over the model limit -> 413 reference_image_too_large', async () => {
    const big = Buffer.concat([png, Buffer.alloc(8_388_608)]);
    await expectError(form(fields, [['image', big]]), 413, 'reference_image_too_large', 'image');
    // The form is checked as it is read: such a file is refused before the model is looked up.
    await expectError(form({ ...fields, model: 'missing' }, [['image', big]]), 413, 'reference_image_too_large', 'image');
  });

  it("a model's own smaller byte limit is applied", async () => {
    const record = structuredClone((await t.gateway.catalog.find('local-image'))!.record);
    record.id = 'local-image-small';
    record.capabilities.max_reference_image_bytes = 1000;
    record.capabilities.max_reference_images = 1;
    await t.gateway.catalog.put({ record, providerId: 'local', upstreamModel: 'local-image' });
    await expectError(form({ ...fields, model: 'local-image-small' }, [['image[]', png]]), 413, 'reference_image_too_large', 'image[]');
    const small = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#fff' } }).png().toBuffer();
    await expectError(form({ ...fields, model: 'local-image-small' }, [['image', small], ['image', small]]), 400, 'invalid_request', 'image');
    await t.gateway.catalog.remove('local-image-small');
  });

  it('model sent as a file -> 400 saying it must be a text field', async () => {
    const data = form({ prompt: 'x' }, [['image', png], ['model', png]]);
    const response = await postForm(url(), data, paid.token);
    expect(response.status).toBe(400);
    expect(errorOf(response)).toMatchObject({ code: 'invalid_request', param: 'model' });
    expect(errorOf(response).message).toMatch(/must be a text field/);
  });

  it('a part without a field name, file or text -> 400, never 500', async () => {
    for (const part of ['Content-Disposition: form-data\r\n\r\nno name', 'Content-Disposition: form-data; filename="a.png"\r\nContent-Type: image/png\r\n\r\n' + png.toString('latin1')]) {
      const body = Buffer.from(`--XyZ\r\n${part}\r\n--XyZ--\r\n`, 'latin1');
      const response = await request(url(), { method: 'POST', headers: { authorization: `Bearer ${paid.token}`, 'content-type': 'multipart/form-data; boundary=XyZ' }, body });
      expect(response.status).toBe(400);
      expect(errorOf(response)).toMatchObject({ code: 'invalid_request', param: null });
    }
  });

  it("a record's own file limits apply without the image_edit flag; one listing no sizes edits at the reference's size", async () => {
    const base = structuredClone((await t.gateway.catalog.find('local-image'))!.record);
    const { image_edit: _flag, ...capabilities } = base.capabilities;
    await t.gateway.catalog.put({
      record: { ...base, id: 'wide-edit', capabilities: { ...capabilities, max_reference_images: 5, supported_sizes: [] } },
      providerId: 'local',
      upstreamModel: 'wide-edit',
    });
    const four: [string, Buffer][] = [['image', png], ['image', png], ['image', png], ['image', png]];
    const response = await postForm(url(), form({ model: 'wide-edit', prompt: 'grayscale' }, four), paid.token);
    expect(response.status).toBe(200);
    const one = await postForm(url(), form({ model: 'wide-edit', prompt: 'grayscale' }, [['image', png]]), paid.token);
    expect(one.status).toBe(200);
    expect(await decodeB64((one.body as { data: { b64_json: string }[] }).data[0]!.b64_json)).toMatchObject({ width: 320, height: 200 });
    await t.gateway.catalog.remove('wide-edit');
  });

  it('JSON instead of multipart -> 400', async () => {
    const response = await postJson(url(), { ...fields, image: 'abc' }, paid.token);
    expect(response.status).toBe(400);
    expect(errorOf(response).code).toBe('invalid_request');
  });

  it('a truncated multipart body -> 400, never 500', async () => {
    const boundary = 'XyZ123';
    const body =
      `--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nlocal-image\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n` +
      png.subarray(0, 40).toString('latin1');
    const response = await request(url(), {
      method: 'POST',
      headers: { authorization: `Bearer ${paid.token}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: Buffer.from(body, 'latin1'),
    });
    expect(response.status).toBe(400);
    expect(errorOf(response).code).toBe('invalid_request');
  });
});
