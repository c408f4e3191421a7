// The OpenAI-compatible emulator, exercised with real fetch calls against its loopback server.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import sharp from 'sharp';
import { encodePng, inspectPng, startOpenAIEmulator, type OpenAIEmulator } from '../emulators/index.js';
import { readMp4 } from '../helpers/mp4.js';
import { probeMp4 as probe, readChunks } from '../helpers/emulator-checks.js';

let emu: OpenAIEmulator;
const auth = () => ({ authorization: `Bearer ${emu.apiKey}` });
const jsonHeaders = () => ({ ...auth(), 'content-type': 'application/json' });
const post = (path: string, body: unknown) => fetch(`${emu.baseUrl}${path}`, { method: 'POST', headers: jsonHeaders(), body: JSON.stringify(body) });
const get = (path: string) => fetch(`${emu.baseUrl}${path}`, { headers: auth() });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface VideoJson {
  id: string;
  object: string;
  status: string;
  progress: number;
  completed_at: number | null;
  error: { code: string; message: string } | null;
  seconds: string;
  size: string;
}

async function pollVideo(id: string, until: (v: VideoJson) => boolean, timeoutMs = 3000): Promise<VideoJson[]> {
  const seen: VideoJson[] = [];
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const video = (await (await get(`/videos/${id}`)).json()) as VideoJson;
    seen.push(video);
    if (until(video)) return seen;
    await sleep(15);
  }
  throw new Error(`video ${id} never reached the expected state; last: ${JSON.stringify(seen.at(-1))}`);
}

type ErrorBody = { error: { message: string; type: string; param: string | null; code: string | null } };

/** Top-level ISO-BMFF box types of an MP4. */
function boxTypes(buf: Buffer): string[] {
  const types: string[] = [];
  for (let at = 0; at + 8 <= buf.length; ) {
    const size = buf.readUInt32BE(at);
    types.push(buf.toString('latin1', at + 4, at + 8));
    if (size < 8) break;
    at += size;
  }
  return types;
}

beforeEach(async () => {
  emu = await startOpenAIEmulator({ apiKey: 'sk-test-key' });
});
afterEach(async () => {
  await emu.close();
});

describe('auth and models', () => {
  test('rejects a missing or wrong key with an OpenAI-style 401', async () => {
    const missing = await fetch(`${emu.baseUrl}/models`);
    expect(missing.status).toBe(401);
    const missingBody = (await missing.json()) as { error: { type: string; message: string } };
    expect(missingBody.error.type).toBe('invalid_request_error');
    expect(missingBody.error.message).toMatch(/didn't provide an API key/);

    const wrong = await fetch(`${emu.baseUrl}/images/generations`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-wrong-key-1234', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-image-1', prompt: 'x' }),
    });
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
  });

  test('lists models and records every request', async () => {
    const res = await get('/models');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { object: string; data: { id: string; object: string; owned_by: string; created: number }[] };
    expect(body.object).toBe('list');
    expect(body.data.map((m) => m.id)).toEqual(expect.arrayContaining(['gpt-image-1', 'sora-2']));
    expect(body.data.every((m) => m.object === 'model' && typeof m.created === 'number' && m.owned_by !== '')).toBe(true);
    expect((await get('/models/sora-2')).status).toBe(200);
    expect((await get('/models/nope')).status).toBe(404);
    expect(emu.requests.map((r) => `${r.method} ${r.path} ${r.route}`)).toEqual([
      'GET /v1/models GET /v1/models',
      'GET /v1/models/sora-2 GET /v1/models/:id',
      'GET /v1/models/nope GET /v1/models/:id',
    ]);
    expect(emu.requests[0]?.headers.authorization).toBe('Bearer sk-test-key');
  });

  test('unknown paths get the API 404 "Invalid URL"', async () => {
    const res = await get('/nothing/here');
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe('Invalid URL (GET /v1/nothing/here)');
  });
});

describe('DALL-E models answer by URL', () => {
  test('the default is a url (no usage), served without a key; response_format b64_json gives base64', async () => {
    const byUrl = (await (await post('/images/generations', { model: 'dall-e-3', prompt: 'a barn', size: '1024x1024' })).json()) as { data: { url: string }[]; usage?: unknown };
    expect(byUrl.usage).toBeUndefined();
    const image = await fetch(byUrl.data[0]!.url);
    expect(image.status).toBe(200);
    expect(inspectPng(Buffer.from(await image.arrayBuffer()))).toMatchObject({ width: 256, height: 256 });
    const inline = (await (await post('/images/generations', { model: 'dall-e-3', prompt: 'a barn', response_format: 'b64_json' })).json()) as { data: { b64_json: string }[] };
    expect(inspectPng(Buffer.from(inline.data[0]!.b64_json, 'base64'))).toMatchObject({ width: 1024 / 4, height: 1024 / 4 });
    expect((await post('/images/generations', { model: 'dall-e-2', prompt: 'x', response_format: 'jpeg' })).status).toBe(400);
  });
});

describe('images', () => {
  test('generations return decodable PNGs, usage, and the fields a gateway must strip', async () => {
    const res = await post('/images/generations', { model: 'gpt-image-1', prompt: 'a red fox in snow', size: '1024x1536', n: 2, quality: 'low' });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      created: number;
      data: { b64_json: string; revised_prompt: string; url: null }[];
      usage: { input_tokens: number; output_tokens: number; total_tokens: number; input_tokens_details: { text_tokens: number; image_tokens: number } };
    };
    expect(body.data).toHaveLength(2);
    expect(typeof body.created).toBe('number');
    for (const item of body.data) {
      const png = Buffer.from(item.b64_json, 'base64');
      expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
      expect(png.toString('latin1', 12, 16)).toBe('IHDR');
      // Default: longer side capped at 256, aspect ratio of 1024x1536 kept.
      expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([171, 256]);
      const meta = await sharp(png).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['png', 171, 256]);
      expect(item.revised_prompt).toContain('a red fox in snow');
      expect(item).toHaveProperty('url', null);
    }
    expect(body.usage.input_tokens).toBe(Math.ceil('a red fox in snow'.length / 4));
    expect(body.usage.output_tokens).toBe(408 * 2);
    expect(body.usage.total_tokens).toBe(body.usage.input_tokens + body.usage.output_tokens);
    expect(body.usage.input_tokens_details).toEqual({ text_tokens: body.usage.input_tokens, image_tokens: 0 });
  });

  test('exactSize returns the requested size', async () => {
    emu.imageSettings.exactSize = true;
    const res = await post('/images/generations', { model: 'gpt-image-1', prompt: 'p', size: '1536x1024' });
    const body = (await res.json()) as { data: { b64_json: string }[] };
    const info = inspectPng(Buffer.from(body.data[0]?.b64_json ?? '', 'base64'));
    expect([info.width, info.height]).toEqual([1536, 1024]);
  });

  test('generations validate model, prompt, size and n', async () => {
    const cases: [unknown, number, string | null][] = [
      [{ model: 'gpt-image-1' }, 400, 'prompt'],
      [{ prompt: 'x' }, 400, 'model'],
      [{ model: 'dall-e-9', prompt: 'x' }, 404, 'model'],
      [{ model: 'gpt-image-1', prompt: 'x', size: 'huge' }, 400, 'size'],
      [{ model: 'gpt-image-1', prompt: 'x', n: 0 }, 400, 'n'],
    ];
    for (const [body, status, param] of cases) {
      const res = await post('/images/generations', body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(((await res.json()) as { error: { param: string | null } }).error.param).toBe(param);
    }
    const broken = await fetch(`${emu.baseUrl}/images/generations`, { method: 'POST', headers: jsonHeaders(), body: '{nope' });
    expect(broken.status).toBe(400);
  });

  test('each model takes only its own sizes, as the API reference lists them', async () => {
    const accepted: [string, string[]][] = [
      ['gpt-image-1', ['1024x1024', '1536x1024', '1024x1536', 'auto']],
      ['gpt-image-1-mini', ['1024x1024', '1536x1024', '1024x1536', 'auto']],
      ['dall-e-2', ['256x256', '512x512', '1024x1024']],
      ['dall-e-3', ['1024x1024', '1792x1024', '1024x1792']],
    ];
    for (const [model, sizes] of accepted) {
      for (const size of sizes) expect((await post('/images/generations', { model, prompt: 'x', size })).status, `${model} ${size}`).toBe(200);
    }
    const refused: [string, string, string][] = [
      ['gpt-image-1', '256x256', "Invalid value: '256x256'. Supported values are: '1024x1024', '1024x1536', '1536x1024', and 'auto'."],
      ['gpt-image-1', '1792x1024', "Invalid value: '1792x1024'. Supported values are: '1024x1024', '1024x1536', '1536x1024', and 'auto'."],
      ['gpt-image-1-mini', '512x512', "Invalid value: '512x512'. Supported values are: '1024x1024', '1024x1536', '1536x1024', and 'auto'."],
      ['gpt-image-1', '1000x1000', "Invalid value: '1000x1000'. Supported values are: '1024x1024', '1024x1536', '1536x1024', and 'auto'."],
      ['dall-e-2', '1536x1024', "Invalid value: '1536x1024'. Supported values are: '256x256', '512x512', and '1024x1024'."],
      ['dall-e-2', 'auto', "Invalid value: 'auto'. Supported values are: '256x256', '512x512', and '1024x1024'."],
      ['dall-e-3', '512x512', "Invalid value: '512x512'. Supported values are: '1024x1024', '1792x1024', and '1024x1792'."],
      ['dall-e-3', '1024x1536', "Invalid value: '1024x1536'. Supported values are: '1024x1024', '1792x1024', and '1024x1792'."],
    ];
    for (const [model, size, message] of refused) {
      const res = await post('/images/generations', { model, prompt: 'x', size });
      expect(res.status, `${model} ${size}`).toBe(400);
      expect(await res.json()).toEqual({ error: { message, type: 'invalid_request_error', param: 'size', code: 'invalid_value' } });
    }
  });

  test('parameters a model or endpoint does not take are refused as unknown, as the API does', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ model: 'gpt-image-1', prompt: 'x', response_format: 'b64_json' }, 'response_format'],
      [{ model: 'gpt-image-1-mini', prompt: 'x', style: 'vivid' }, 'style'],
      [{ model: 'dall-e-3', prompt: 'x', moderation: 'low' }, 'moderation'],
      [{ model: 'dall-e-2', prompt: 'x', background: 'transparent' }, 'background'],
      [{ model: 'dall-e-2', prompt: 'x', style: 'natural' }, 'style'],
      [{ model: 'gpt-image-1', prompt: 'x', seed: 42 }, 'seed'],
      [{ model: 'gpt-image-1', prompt: 'x', negative_prompt: 'no' }, 'negative_prompt'],
    ];
    for (const [body, param] of cases) {
      const res = await post('/images/generations', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(await res.json()).toEqual({ error: { message: `Unknown parameter: '${param}'.`, type: 'invalid_request_error', param, code: 'unknown_parameter' } });
    }
  });

  test('n, quality and the enums are checked per model (status, code and param)', async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ model: 'dall-e-3', prompt: 'x', n: 2 }, 'n', 'integer_above_max_value'],
      [{ model: 'gpt-image-1', prompt: 'x', n: 11 }, 'n', 'integer_above_max_value'],
      [{ model: 'gpt-image-1', prompt: 'x', n: 0 }, 'n', 'integer_below_min_value'],
      [{ model: 'gpt-image-1', prompt: 'x', n: '2' }, 'n', 'invalid_type'],
      [{ model: 'gpt-image-1', prompt: 'x', quality: 'hd' }, 'quality', 'invalid_value'],
      [{ model: 'dall-e-3', prompt: 'x', quality: 'high' }, 'quality', 'invalid_value'],
      [{ model: 'dall-e-2', prompt: 'x', quality: 'hd' }, 'quality', 'invalid_value'],
      [{ model: 'gpt-image-1', prompt: 'x', output_format: 'gif' }, 'output_format', 'invalid_value'],
      [{ model: 'gpt-image-1', prompt: 'x', background: 'green' }, 'background', 'invalid_value'],
      [{ model: 'dall-e-3', prompt: 'x', style: 'baroque' }, 'style', 'invalid_value'],
      [{ model: 'gpt-image-1', prompt: 'x', size: 1024 }, 'size', 'invalid_type'],
    ];
    for (const [body, param, code] of cases) {
      const res = await post('/images/generations', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(((await res.json()) as ErrorBody).error, JSON.stringify(body)).toMatchObject({ type: 'invalid_request_error', param, code });
    }
    const quality = await post('/images/generations', { model: 'dall-e-3', prompt: 'x', quality: 'high' });
    expect(((await quality.json()) as ErrorBody).error.message).toBe("Invalid value: 'high'. Supported values are: 'standard', 'hd', and 'auto'.");
    expect((await post('/images/generations', { model: 'dall-e-3', prompt: 'x', quality: 'hd', style: 'natural', n: 1 })).status).toBe(200);
  });

  test('edits: sizes and parameters per model, no edits for dall-e-3', async () => {
    const edit = (fields: Record<string, string>, files: Record<string, number> = { image: 1 }) => {
      const form = new FormData();
      for (const [name, value] of Object.entries(fields)) form.append(name, value);
      for (const [field, count] of Object.entries(files)) {
        for (let i = 0; i < count; i++) form.append(field, new Blob([new Uint8Array(encodePng(4, 4))], { type: 'image/png' }), `${field}-${i}.png`);
      }
      return fetch(`${emu.baseUrl}/images/edits`, { method: 'POST', headers: auth(), body: form });
    };
    expect((await edit({ model: 'gpt-image-1', prompt: 'x', size: '1536x1024', input_fidelity: 'high' }, { image: 1, mask: 1 })).status).toBe(200);
    expect((await edit({ model: 'dall-e-2', prompt: 'x', size: '512x512', response_format: 'b64_json' })).status).toBe(200);
    const cases: [Record<string, string>, Record<string, number> | undefined, string, string][] = [
      [{ model: 'gpt-image-1', prompt: 'x', size: '512x512' }, undefined, 'size', 'invalid_value'],
      [{ model: 'dall-e-2', prompt: 'x', size: '1536x1024' }, undefined, 'size', 'invalid_value'],
      [{ model: 'gpt-image-1', prompt: 'x', response_format: 'url' }, undefined, 'response_format', 'unknown_parameter'],
      [{ model: 'dall-e-2', prompt: 'x', input_fidelity: 'high' }, undefined, 'input_fidelity', 'unknown_parameter'],
      [{ model: 'gpt-image-1', prompt: 'x' }, { image: 1, reference: 1 }, 'reference', 'unknown_parameter'],
      [{ model: 'dall-e-3', prompt: 'x' }, undefined, 'model', 'invalid_value'],
    ];
    for (const [fields, files, param, code] of cases) {
      const res = await edit(fields, files);
      expect(res.status, JSON.stringify(fields)).toBe(400);
      expect(((await res.json()) as ErrorBody).error, JSON.stringify(fields)).toMatchObject({ type: 'invalid_request_error', param, code });
    }
  });

  test('image answers and image files arrive in several chunks (Transfer-Encoding: chunked)', async () => {
    const res = await post('/images/generations', { model: 'gpt-image-1', prompt: 'x' });
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    expect(res.headers.get('content-length')).toBeNull();
    const { body, chunks } = await readChunks(res);
    expect(chunks).toBeGreaterThan(1);
    expect((JSON.parse(body.toString()) as { data: unknown[] }).data).toHaveLength(1);

    const byUrl = (await (await post('/images/generations', { model: 'dall-e-2', prompt: 'x', size: '512x512' })).json()) as { data: { url: string }[] };
    const file = await fetch(byUrl.data[0]!.url);
    expect(file.headers.get('transfer-encoding')).toBe('chunked');
    const png = await readChunks(file);
    expect(png.chunks).toBeGreaterThan(1);
    expect(inspectPng(png.body)).toMatchObject({ width: 256, height: 256 });
  });

  test('edits accept several image[] files and record them', async () => {
    const form = new FormData();
    form.append('model', 'gpt-image-1');
    form.append('prompt', 'put them in a basket');
    for (const name of ['lotion.png', 'soap.png', 'candle.png']) form.append('image[]', new Blob([new Uint8Array(encodePng(8, 8))], { type: 'image/png' }), name);
    const res = await fetch(`${emu.baseUrl}/images/edits`, { method: 'POST', headers: auth(), body: form });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { b64_json: string }[]; usage: { input_tokens_details: { image_tokens: number } } };
    expect(inspectPng(Buffer.from(body.data[0]?.b64_json ?? '', 'base64')).width).toBeGreaterThan(0);
    expect(body.usage.input_tokens_details.image_tokens).toBe(3 * 323);
    expect(emu.lastEditFiles.map((f) => [f.field, f.name, f.type])).toEqual([
      ['image[]', 'lotion.png', 'image/png'],
      ['image[]', 'soap.png', 'image/png'],
      ['image[]', 'candle.png', 'image/png'],
    ]);
    expect(emu.requests.at(-1)?.files).toHaveLength(3);
  });

  test('edits accept a single `image` file and reject a form without images or a JSON body', async () => {
    const one = new FormData();
    one.append('model', 'gpt-image-1');
    one.append('prompt', 'x');
    one.append('image', new Blob([new Uint8Array(encodePng(4, 4))], { type: 'image/png' }), 'one.png');
    expect((await fetch(`${emu.baseUrl}/images/edits`, { method: 'POST', headers: auth(), body: one })).status).toBe(200);
    expect(emu.lastEditFiles.map((f) => f.field)).toEqual(['image']);

    const none = new FormData();
    none.append('model', 'gpt-image-1');
    none.append('prompt', 'x');
    const noImage = await fetch(`${emu.baseUrl}/images/edits`, { method: 'POST', headers: auth(), body: none });
    expect(noImage.status).toBe(400);
    expect(((await noImage.json()) as { error: { param: string } }).error.param).toBe('image');
    expect((await post('/images/edits', { model: 'gpt-image-1', prompt: 'x' })).status).toBe(400);
  });

  test('imageLatencyMs delays image answers', async () => {
    emu.imageSettings.latencyMs = 150;
    const started = Date.now();
    expect((await post('/images/generations', { model: 'gpt-image-1', prompt: 'x' })).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });
});

describe('videos', () => {
  test('a video goes queued -> in_progress -> completed and its content is an MP4', async () => {
    const res = await post('/videos', { model: 'sora-2', prompt: 'a paper boat', seconds: '8', size: '1280x720' });
    expect(res.status).toBe(200);
    const created = (await res.json()) as VideoJson;
    expect(created).toMatchObject({ object: 'video', status: 'queued', progress: 0, seconds: '8', size: '1280x720', error: null, completed_at: null });
    expect(created.id).toMatch(/^video_/);

    const early = await get(`/videos/${created.id}/content`);
    expect(early.status).toBe(400);

    const seen = await pollVideo(created.id, (v) => v.status === 'completed');
    const statuses = [...new Set(seen.map((v) => v.status))];
    expect(statuses.at(-1)).toBe('completed');
    expect(statuses).toContain('in_progress');
    const progress = seen.map((v) => v.progress);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    for (const v of seen.filter((s) => s.status === 'in_progress')) expect(v.progress).toBeGreaterThanOrEqual(1);
    expect(seen.at(-1)?.progress).toBe(100);
    expect(typeof seen.at(-1)?.completed_at).toBe('number');

    const content = await get(`/videos/${created.id}/content`);
    expect(content.status).toBe(200);
    expect(content.headers.get('content-type')).toBe('video/mp4');
    expect(content.headers.get('transfer-encoding')).toBe('chunked');
    const { body: mp4, chunks } = await readChunks(content);
    expect(chunks).toBeGreaterThan(1);
    expect(boxTypes(mp4)).toEqual(['ftyp', 'moov', 'mdat']);
    // A realistic size for 8 s of 720p H.264 (about 1.5 Mbit/s), not a 1 KB stand-in.
    expect(mp4.length).toBeGreaterThan(1_000_000);
    expect(mp4.length).toBeLessThan(3_000_000);
    expect(readMp4(mp4)).toMatchObject({ brand: 'isom', codec: 'avc1', width: 1280, height: 720, durationSeconds: 8 });
    // ffprobe decodes every frame: the file plays.
    expect(probe(mp4)).toEqual({ codec: 'h264', width: 1280, height: 720, duration: 8, frames: 240 });
  });

  test('the MP4 has the size and length of the task, for every size and seconds a model renders', async () => {
    emu.videoBehaviour.durationMs = 0;
    for (const [model, size, seconds] of [['sora-2', '720x1280', '4'], ['sora-2-pro', '1792x1024', '12'], ['sora-2-pro', '1024x1792', '4']] as const) {
      const { id } = (await (await post('/videos', { model, prompt: 'x', size, seconds })).json()) as VideoJson;
      await pollVideo(id, (v) => v.status === 'completed');
      const mp4 = Buffer.from(await (await get(`/videos/${id}/content`)).arrayBuffer());
      const [width, height] = size.split('x').map(Number);
      expect(probe(mp4), `${model} ${size} ${seconds}`).toEqual({ codec: 'h264', width, height, duration: Number(seconds), frames: Number(seconds) * 30 });
      expect(mp4.length / Number(seconds)).toBeGreaterThan(width! * height! * 0.15);
    }
  });

  test('multipart create with an input_reference file, and JSON with {image_url}', async () => {
    const form = new FormData();
    form.append('model', 'sora-2-pro');
    form.append('prompt', 'animate this');
    form.append('seconds', '4');
    form.append('input_reference', new Blob([new Uint8Array(encodePng(16, 16))], { type: 'image/png' }), 'ref.png');
    const res = await fetch(`${emu.baseUrl}/videos`, { method: 'POST', headers: auth(), body: form });
    expect(res.status).toBe(200);
    const { id } = (await res.json()) as VideoJson;
    expect(emu.videos.get(id)?.inputReference).toMatchObject({ kind: 'file', name: 'ref.png', type: 'image/png' });

    const viaJson = await post('/videos', { prompt: 'x', input_reference: { image_url: 'https://example.test/a.png' } });
    const second = (await viaJson.json()) as VideoJson;
    expect(emu.videos.get(second.id)?.inputReference).toEqual({ kind: 'image_url', value: 'https://example.test/a.png' });
  });

  test('create validates prompt, model, seconds and size', async () => {
    for (const [body, param, code] of [
      [{ model: 'sora-2' }, 'prompt', 'missing_required_parameter'],
      [{ prompt: 'x', model: 'gpt-image-1' }, 'model', 'invalid_value'],
      [{ prompt: 'x', seconds: '5' }, 'seconds', 'invalid_value'],
      [{ prompt: 'x', seconds: '16' }, 'seconds', 'invalid_value'],
      [{ prompt: 'x', seconds: 4 }, 'seconds', 'invalid_type'],
      [{ prompt: 'x', size: '640x480' }, 'size', 'invalid_value'],
    ] as const) {
      const res = await post('/videos', body);
      expect(res.status).toBe(400);
      expect(((await res.json()) as ErrorBody).error).toMatchObject({ type: 'invalid_request_error', param, code });
    }
  });

  test('each Sora model takes only its own sizes', async () => {
    for (const size of ['720x1280', '1280x720']) expect((await post('/videos', { model: 'sora-2', prompt: 'x', size })).status).toBe(200);
    for (const size of ['720x1280', '1280x720', '1024x1792', '1792x1024']) expect((await post('/videos', { model: 'sora-2-pro', prompt: 'x', size })).status).toBe(200);
    const refused: [string, string, string][] = [
      ['sora-2', '1792x1024', "'720x1280' and '1280x720'"],
      ['sora-2', '1024x1792', "'720x1280' and '1280x720'"],
      ['sora-2', '1920x1080', "'720x1280' and '1280x720'"],
      ['sora-2-pro', '1080x1920', "'720x1280', '1280x720', '1024x1792', and '1792x1024'"],
      ['sora-2-pro', '1024x1024', "'720x1280', '1280x720', '1024x1792', and '1792x1024'"],
    ];
    for (const [model, size, supported] of refused) {
      const res = await post('/videos', { model, prompt: 'x', size });
      expect(res.status, `${model} ${size}`).toBe(400);
      expect(await res.json()).toEqual({ error: { message: `Invalid value: '${size}'. Supported values are: ${supported}.`, type: 'invalid_request_error', param: 'size', code: 'invalid_value' } });
    }
  });

  test('create refuses parameters it does not take, in JSON and in a form', async () => {
    for (const [body, param] of [
      [{ prompt: 'x', duration: 8 }, 'duration'],
      [{ prompt: 'x', resolution: '720p' }, 'resolution'],
      [{ prompt: 'x', aspect_ratio: '16:9' }, 'aspect_ratio'],
      [{ prompt: 'x', n: 1 }, 'n'],
    ] as const) {
      const res = await post('/videos', body);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: { message: `Unknown parameter: '${param}'.`, type: 'invalid_request_error', param, code: 'unknown_parameter' } });
    }
    const form = new FormData();
    form.append('prompt', 'x');
    form.append('fps', '24');
    const res = await fetch(`${emu.baseUrl}/videos`, { method: 'POST', headers: auth(), body: form });
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).error).toMatchObject({ param: 'fps', code: 'unknown_parameter' });
    expect(emu.videos.size).toBe(0);
  });

  test('stuck videos stay in_progress', async () => {
    emu.videoBehaviour.stuck = true;
    const { id } = (await (await post('/videos', { prompt: 'never ends' })).json()) as VideoJson;
    await sleep(450);
    const video = (await (await get(`/videos/${id}`)).json()) as VideoJson;
    expect(video.status).toBe('in_progress');
    expect(video.progress).toBeLessThan(100);
    emu.videos.get(id)?.completeNow();
    expect(((await (await get(`/videos/${id}`)).json()) as VideoJson).status).toBe('completed');
  });

  test('failing videos end failed with {code, message}', async () => {
    await emu.close();
    emu = await startOpenAIEmulator({ failVideos: { code: 'moderation_blocked', message: 'blocked' }, videoDurationMs: 100 });
    const { id } = (await (await post('/videos', { prompt: 'x' })).json()) as VideoJson;
    const seen = await pollVideo(id, (v) => v.status === 'failed');
    expect(seen.at(-1)?.error).toEqual({ code: 'moderation_blocked', message: 'blocked' });
    expect((await get(`/videos/${id}/content`)).status).toBe(400);
  });

  test('DELETE of a queued or in_progress video is refused; a finished one is deleted, then it is gone', async () => {
    const create = async () => ((await (await post('/videos', { prompt: 'x' })).json()) as VideoJson).id;
    const del = (id: string) => fetch(`${emu.baseUrl}/videos/${id}`, { method: 'DELETE', headers: auth() });
    emu.videoBehaviour.durationMs = 60_000;
    const queued = await create();
    emu.videoBehaviour.durationMs = 50;
    emu.videoBehaviour.stuck = true;
    const running = await create();
    await pollVideo(running, (v) => v.status === 'in_progress');
    for (const [id, status] of [[queued, 'queued'], [running, 'in_progress']] as const) {
      const refused = await del(id);
      expect(refused.status).toBe(400);
      expect(await refused.json()).toEqual({
        error: { message: `Cannot delete video with status '${status}'. Only completed or failed videos can be deleted.`, type: 'invalid_request_error', param: null, code: null },
      });
      // Still there, still running.
      expect(((await (await get(`/videos/${id}`)).json()) as VideoJson).status).toBe(status);
    }
    emu.videos.get(running)!.completeNow();
    const res = await del(running);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: running, object: 'video.deleted', deleted: true });
    expect(emu.deleteCalls).toEqual([queued, running, running]);
    expect(emu.videos.get(running)).toMatchObject({ deleted: true });
    expect((await get(`/videos/${running}`)).status).toBe(404);
    expect((await del(running)).status).toBe(404);

    emu.videos.get(queued)!.failNow();
    expect((await del(queued)).status).toBe(200);
  });

  test('GET /videos lists live videos as a cursor page (limit, order, after), as the reference does', async () => {
    const ids: string[] = [];
    for (const prompt of ['one', 'two', 'three']) ids.push(((await (await post('/videos', { prompt })).json()) as VideoJson).id);
    emu.videos.get(ids[1]!)!.completeNow();
    expect((await fetch(`${emu.baseUrl}/videos/${ids[1]}`, { method: 'DELETE', headers: auth() })).status).toBe(200);
    type Page = { object: string; data: VideoJson[]; first_id: string | null; last_id: string | null; has_more: boolean };
    const page = async (query: string) => (await (await get(`/videos${query}`)).json()) as Page;

    const first = await page('?limit=1');
    expect(first).toMatchObject({ object: 'list', first_id: ids[2], last_id: ids[2], has_more: true });
    expect(first.data.map((v) => [v.id, v.object])).toEqual([[ids[2], 'video']]);
    expect(await page(`?limit=1&after=${ids[2]}`)).toMatchObject({ first_id: ids[0], has_more: false });
    expect((await page('?order=asc')).data.map((v) => v.id)).toEqual([ids[0], ids[2]]);
    expect(await page('?limit=0')).toEqual({ object: 'list', data: [], first_id: null, last_id: null, has_more: true });
    for (const query of ['?limit=101', '?limit=x', '?order=up']) expect((await get(`/videos${query}`)).status).toBe(400);
    expect((await fetch(`${emu.baseUrl}/videos`, { headers: { authorization: 'Bearer sk-wrong' } })).status).toBe(401);
  });
});
