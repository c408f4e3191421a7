// The fal-style queue emulator, driven only through the URLs its submit answer returns.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { inspectPng, startFalEmulator, type FalEmulator } from '../emulators/index.js';
import { probeMp4, readChunks } from '../helpers/emulator-checks.js';
import { readMp4 } from '../helpers/mp4.js';

const VIDEO_MODEL = 'fal-ai/kling-video/v2/master/text-to-video';
const IMAGE_MODEL = 'fal-ai/flux/dev';

let fal: FalEmulator;
const auth = () => ({ authorization: `Key ${fal.apiKey}` });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Submitted {
  status: string;
  request_id: string;
  response_url: string;
  status_url: string;
  cancel_url: string;
  queue_position: number;
}
interface StatusJson {
  status: string;
  queue_position?: number;
  logs?: unknown[] | null;
  metrics?: { inference_time: number };
  error?: string;
  response_url: string;
}

async function submit(model: string, input: unknown): Promise<Submitted> {
  const res = await fetch(`${fal.baseUrl}/${model}`, { method: 'POST', headers: { ...auth(), 'content-type': 'application/json' }, body: JSON.stringify(input) });
  expect(res.status).toBe(200);
  return (await res.json()) as Submitted;
}

async function pollStatus(url: string, until: string, timeoutMs = 3000): Promise<{ code: number; body: StatusJson }[]> {
  const seen: { code: number; body: StatusJson }[] = [];
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const res = await fetch(url, { headers: auth() });
    seen.push({ code: res.status, body: (await res.json()) as StatusJson });
    if (seen.at(-1)?.body.status === until) return seen;
    await sleep(15);
  }
  throw new Error(`never reached ${until}: ${JSON.stringify(seen.at(-1))}`);
}

beforeEach(async () => {
  fal = await startFalEmulator({ apiKey: 'key-id:key-secret' });
});
afterEach(async () => {
  await fal.close();
});

describe('fal queue', () => {
  test('rejects a missing, wrong or Bearer-style key with 401 {detail}', async () => {
    for (const authorization of [undefined, 'Key wrong', `Bearer ${fal.apiKey}`]) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (authorization) headers.authorization = authorization;
      const res = await fetch(`${fal.baseUrl}/${VIDEO_MODEL}`, { method: 'POST', headers, body: '{"prompt":"x"}' });
      expect(res.status, String(authorization)).toBe(401);
      expect(typeof ((await res.json()) as { detail: unknown }).detail).toBe('string');
    }
    expect(fal.jobs.size).toBe(0);
  });

  test('submit returns URLs on the emulator, under a different layout than the submit path', async () => {
    const job = await submit(VIDEO_MODEL, { prompt: 'a cat surfing', duration: '5' });
    expect(job.status).toBe('IN_QUEUE');
    expect(job.queue_position).toBe(0);
    for (const url of [job.status_url, job.response_url, job.cancel_url]) {
      expect(url.startsWith(`${fal.origin}/q/fal-ai/kling-video/requests/${job.request_id}`)).toBe(true);
      expect(url.startsWith(`${fal.baseUrl}/${VIDEO_MODEL}`)).toBe(false);
    }
    expect(job.status_url).toBe(`${job.response_url}/status`);
    expect(job.cancel_url).toBe(`${job.response_url}/cancel`);
    // A client that builds the URLs itself (full model path, or the documented owner/app form) fails.
    for (const built of [`${fal.baseUrl}/${VIDEO_MODEL}/requests/${job.request_id}/status`, `${fal.baseUrl}/fal-ai/kling-video/requests/${job.request_id}/status`]) {
      expect((await fetch(built, { headers: auth() })).status).toBe(404);
    }
    // The owner/app in the returned URLs must match the request's model.
    expect((await fetch(job.status_url.replace('/kling-video/', '/other-app/'), { headers: auth() })).status).toBe(404);
    expect(fal.requests[0]).toMatchObject({ method: 'POST', path: `/${VIDEO_MODEL}`, route: 'POST submit' });
    expect(JSON.parse(fal.requests[0]?.body.toString() ?? '{}')).toEqual({ prompt: 'a cat surfing', duration: '5' });
  });

  test('status goes IN_QUEUE (202) -> IN_PROGRESS (202) -> COMPLETED (200); video result and file are real', async () => {
    const job = await submit(VIDEO_MODEL, { prompt: 'x', duration: '10', aspect_ratio: '9:16' });
    const early = await fetch(job.response_url, { headers: auth() });
    expect(early.status).toBe(400);
    expect(await early.json()).toEqual({ detail: 'Request is still in progress' });

    const seen = await pollStatus(`${job.status_url}?logs=1`, 'COMPLETED');
    const byStatus = new Map(seen.map((s) => [s.body.status, s]));
    expect(byStatus.get('IN_QUEUE')?.code).toBe(202);
    expect(byStatus.get('IN_QUEUE')?.body.queue_position).toBe(0);
    expect(byStatus.get('IN_PROGRESS')?.code).toBe(202);
    expect(Array.isArray(byStatus.get('IN_PROGRESS')?.body.logs)).toBe(true);
    const done = byStatus.get('COMPLETED');
    expect(done?.code).toBe(200);
    expect(done?.body.metrics?.inference_time).toBeGreaterThan(0);
    expect(done?.body.response_url).toBe(job.response_url);

    const res = await fetch(job.response_url, { headers: auth() });
    expect(res.status).toBe(200);
    const { video } = (await res.json()) as { video: { url: string; content_type: string; file_name: string; file_size: number } };
    expect(video.content_type).toBe('video/mp4');
    expect(video.url.startsWith(`${fal.origin}/files/`)).toBe(true);
    const file = await fetch(video.url); // public, like fal's CDN
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('video/mp4');
    expect(file.headers.get('transfer-encoding')).toBe('chunked');
    const { body: mp4, chunks } = await readChunks(file);
    expect(chunks).toBeGreaterThan(1);
    expect(mp4.length).toBe(video.file_size);
    // 10 s of 720x1280 at a realistic bitrate (~1.5 Mbit/s), playable: ffprobe decodes every frame.
    expect(mp4.length).toBeGreaterThan(1_500_000);
    expect(readMp4(mp4)).toMatchObject({ codec: 'avc1', width: 720, height: 1280, durationSeconds: 10 });
    expect(probeMp4(mp4)).toEqual({ codec: 'h264', width: 720, height: 1280, duration: 10, frames: 300 });
  });

  test('modelled models refuse invalid input with 422 {detail: [{loc, msg, type}]}; nothing is queued', async () => {
    const refuse = async (model: string, input: Record<string, unknown>) => {
      const res = await fetch(`${fal.baseUrl}/${model}`, { method: 'POST', headers: { ...auth(), 'content-type': 'application/json' }, body: JSON.stringify(input) });
      expect(res.status, JSON.stringify(input)).toBe(422);
      return ((await res.json()) as { detail: { loc: (string | number)[]; msg: string; type: string; input?: unknown; ctx?: unknown }[] }).detail;
    };
    expect(await refuse(VIDEO_MODEL, { duration: '5' })).toEqual([{ loc: ['body', 'prompt'], msg: 'Field required', type: 'missing', input: { duration: '5' } }]);
    expect(await refuse(VIDEO_MODEL, { prompt: 'x', duration: '8' })).toEqual([
      { loc: ['body', 'duration'], msg: "Input should be '5' or '10'", type: 'enum', input: '8', ctx: { expected: "'5' or '10'" } },
    ]);
    expect(await refuse(VIDEO_MODEL, { prompt: 'x', duration: 5 })).toMatchObject([{ loc: ['body', 'duration'], type: 'enum' }]);
    expect(await refuse(VIDEO_MODEL, { prompt: 'x', aspect_ratio: '4:3' })).toEqual([
      { loc: ['body', 'aspect_ratio'], msg: "Input should be '16:9', '9:16' or '1:1'", type: 'enum', input: '4:3', ctx: { expected: "'16:9', '9:16' or '1:1'" } },
    ]);
    expect(await refuse(VIDEO_MODEL, { prompt: 'x', cfg_scale: 2 })).toEqual([
      { loc: ['body', 'cfg_scale'], msg: 'Input should be less than or equal to 1', type: 'less_than_equal', input: 2, ctx: { le: 1 } },
    ]);
    expect(await refuse(VIDEO_MODEL, { prompt: 42 })).toMatchObject([{ loc: ['body', 'prompt'], type: 'string_type' }]);
    expect(await refuse('fal-ai/kling-video/v2/master/image-to-video', { prompt: 'x' })).toMatchObject([{ loc: ['body', 'image_url'], type: 'missing' }]);
    expect(await refuse(IMAGE_MODEL, { prompt: 'x', image_size: 'huge' })).toMatchObject([{ loc: ['body', 'image_size'], type: 'enum' }]);
    expect(await refuse(IMAGE_MODEL, { prompt: 'x', image_size: { width: 20_000, height: 0 } })).toEqual([
      { loc: ['body', 'image_size', 'width'], msg: 'Input should be less than or equal to 14142', type: 'less_than_equal', input: 20_000, ctx: { le: 14142 } },
      { loc: ['body', 'image_size', 'height'], msg: 'Input should be greater than 0', type: 'greater_than', input: 0, ctx: { gt: 0 } },
    ]);
    expect(await refuse(IMAGE_MODEL, { prompt: 'x', num_images: 5 })).toMatchObject([{ loc: ['body', 'num_images'], type: 'less_than_equal', ctx: { le: 4 } }]);
    expect(await refuse(IMAGE_MODEL, { prompt: 'x', num_images: 1.5 })).toMatchObject([{ loc: ['body', 'num_images'], type: 'int_from_float' }]);
    expect(await refuse(IMAGE_MODEL, { prompt: 'x', output_format: 'webp' })).toMatchObject([{ loc: ['body', 'output_format'], type: 'enum' }]);
    expect(await refuse(IMAGE_MODEL, { prompt: 'x', enable_safety_checker: 'yes' })).toMatchObject([{ loc: ['body', 'enable_safety_checker'], type: 'bool_type' }]);
    expect(fal.jobs.size).toBe(0);
    // Fields a schema does not name are ignored (pydantic's default), and models with no schema here take any object.
    await submit(VIDEO_MODEL, { prompt: 'x', duration: '10', resolution: '720p', seed: 1 });
    await submit('fal-ai/some/other-model', { anything: [1, 2] });
    expect(fal.jobs.size).toBe(2);
  });

  test('image models return {images: [{url, width, height}]} pointing at real PNGs', async () => {
    const job = await submit(IMAGE_MODEL, { prompt: 'x', image_size: 'landscape_16_9', num_images: 2 });
    fal.jobs.get(job.request_id)?.completeNow();
    const res = await fetch(job.response_url, { headers: auth() });
    const { images } = (await res.json()) as { images: { url: string; width: number; height: number; content_type: string }[] };
    expect(images).toHaveLength(2);
    for (const image of images) {
      expect(image.content_type).toBe('image/png');
      const file = await fetch(image.url);
      expect(file.headers.get('transfer-encoding')).toBe('chunked');
      const { body: png, chunks } = await readChunks(file);
      expect(chunks).toBeGreaterThan(1);
      const info = inspectPng(png);
      expect([info.width, info.height]).toEqual([image.width, image.height]);
      expect(image.width / image.height).toBeCloseTo(1024 / 576, 1);
    }
  });

  test('queue_position counts earlier requests still queued', async () => {
    fal.behaviour.durationMs = 60_000;
    await submit(VIDEO_MODEL, { prompt: 'a' });
    await submit(VIDEO_MODEL, { prompt: 'b' });
    const third = await submit(VIDEO_MODEL, { prompt: 'c' });
    expect(third.queue_position).toBe(2);
    const status = await fetch(third.status_url, { headers: auth() });
    expect(((await status.json()) as StatusJson).queue_position).toBe(2);
  });

  test('cancel: 202 CANCELLATION_REQUESTED, then the request ends cancelled; 400 ALREADY_COMPLETED after', async () => {
    fal.behaviour.durationMs = 60_000;
    const job = await submit(VIDEO_MODEL, { prompt: 'x' });
    const res = await fetch(job.cancel_url, { method: 'PUT', headers: auth() });
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ status: 'CANCELLATION_REQUESTED' });
    expect(fal.cancelCalls).toEqual([job.request_id]);
    expect(fal.jobs.get(job.request_id)?.cancelled).toBe(true);
    const status = (await (await fetch(job.status_url, { headers: auth() })).json()) as StatusJson;
    expect(status.status).toBe('COMPLETED');
    expect(status.error).toMatch(/cancel/i);
    expect((await fetch(job.response_url, { headers: auth() })).status).toBe(400);

    const again = await fetch(job.cancel_url, { method: 'PUT', headers: auth() });
    expect(again.status).toBe(400);
    expect(await again.json()).toEqual({ status: 'ALREADY_COMPLETED' });
    expect((await fetch(job.cancel_url.replace(job.request_id, 'nope'), { method: 'PUT', headers: auth() })).status).toBe(404);
  });

  test('stuck requests stay IN_PROGRESS', async () => {
    fal.behaviour.stuck = true;
    const job = await submit(VIDEO_MODEL, { prompt: 'x' });
    await sleep(450);
    const res = await fetch(job.status_url, { headers: auth() });
    expect(res.status).toBe(202);
    expect(((await res.json()) as StatusJson).status).toBe('IN_PROGRESS');
  });

  test('failed requests complete, and the result answers with the model error', async () => {
    await fal.close();
    fal = await startFalEmulator({ fail: true, durationMs: 60 });
    const job = await submit(VIDEO_MODEL, { prompt: 'forbidden' });
    const seen = await pollStatus(job.status_url, 'COMPLETED');
    expect(seen.at(-1)?.body.error).toBeTruthy();
    const res = await fetch(job.response_url, { headers: auth() });
    expect(res.status).toBe(422);
    const body = (await res.json()) as { detail: { type: string; input: string }[] };
    expect(body.detail[0]).toMatchObject({ type: 'content_policy_violation', input: 'forbidden' });

    // A request-level failure carries error_type in the body and the X-Fal-Error-Type header.
    fal.behaviour.fail = { status: 504, body: { detail: 'Request timed out', error_type: 'request_timeout' }, errorType: 'request_timeout' };
    const timedOut = await submit(VIDEO_MODEL, { prompt: 'slow' });
    fal.jobs.get(timedOut.request_id)?.completeNow();
    const res2 = await fetch(timedOut.response_url, { headers: auth() });
    expect(res2.status).toBe(504);
    expect(res2.headers.get('x-fal-error-type')).toBe('request_timeout');
  });
});
