// The stable-diffusion.cpp server emulator, driven with plain fetch like a client of the real
// sd-server: OpenAI-style images, the async job API (queue, generating, completed, cancelled,
// expired, queue full) and a video whose AVI ffprobe decodes.
import { afterEach, describe, expect, test } from 'vitest';
import sharp from 'sharp';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSdcppEmulator, type SdcppEmulator, type SdcppEmulatorOptions } from '../emulators/sdcpp-emulator.js';
import { writeMjpegAvi } from '../emulators/avi-mjpeg.js';
import { readPngText } from '../emulators/png-text.js';
import { encodePng } from '../emulators/png.js';

let emu: SdcppEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

async function start(options: SdcppEmulatorOptions = {}): Promise<SdcppEmulator> {
  emu = await startSdcppEmulator(options);
  return emu;
}
const WAN = '/models/wan2.1_t2v_1.3B_fp16.safetensors';

const post = (e: SdcppEmulator, path: string, body: unknown) =>
  fetch(`${e.origin}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
const get = (e: SdcppEmulator, path: string) => fetch(`${e.origin}${path}`);
// Bodies typed any: each test compares them by value.
const answer = async (res: Response) => [res.status, (await res.json()) as any] as const;

interface Job {
  id: string;
  kind: string;
  status: string;
  created: number;
  started: number | null;
  completed: number | null;
  queue_position: number;
  result: { output_format: string; mime_type?: string; fps?: number; frame_count?: number; b64_json?: string; images?: { index: number; b64_json: string }[] } | null;
  error: { code: string; message: string } | null;
}

/** Polls a job until `done` holds; each read is a real request (no timing assumptions). */
async function until(e: SdcppEmulator, id: string, done: (job: Job) => boolean): Promise<Job[]> {
  const seen: Job[] = [];
  for (let i = 0; i < 2000; i++) {
    const job = (await (await get(e, `/sdcpp/v1/jobs/${id}`)).json()) as Job;
    seen.push(job);
    if (done(job)) return seen;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`job ${id} never got there: ${JSON.stringify(seen.at(-1))}`);
}

function probe(bytes: Buffer, name: string) {
  const dir = mkdtempSync(join(tmpdir(), 'sdcpp-probe-'));
  try {
    writeFileSync(join(dir, name), bytes);
    const out = execFileSync('ffprobe', ['-v', 'error', '-count_frames', '-select_streams', 'v:0', '-show_entries', 'stream=codec_name,width,height,nb_read_frames,avg_frame_rate', '-of', 'json', join(dir, name)]);
    return (JSON.parse(out.toString()) as { streams: Record<string, unknown>[] }).streams[0]!;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The JPEG payloads of an AVI's '00dc' chunks, read through its idx1 (absolute offsets). */
function aviFrames(avi: Buffer): Buffer[] {
  const idx = avi.lastIndexOf(Buffer.from('idx1'));
  const frames: Buffer[] = [];
  for (let at = idx + 8; at < avi.length; at += 16) {
    const offset = avi.readUInt32LE(at + 8);
    frames.push(avi.subarray(offset + 8, offset + 8 + avi.readUInt32LE(at + 12)));
  }
  return frames;
}

describe('OpenAI-style image routes', () => {
  test('generations: b64 PNGs rounded up to the model multiple, n images, `model` ignored, its own response fields', async () => {
    const e = await start();
    const [status, body] = await answer(await post(e, '/v1/images/generations', { model: 'dall-e-3', prompt: 'a lighthouse', n: 2, size: '500x300' }));
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(['created', 'data', 'output_format']);
    expect(body.output_format).toBe('png');
    const images = (body.data as { b64_json: string }[]).map((d) => Buffer.from(d.b64_json, 'base64'));
    expect(await Promise.all(images.map(async (b) => (await sharp(b).metadata()).width + 'x' + (await sharp(b).metadata()).height))).toEqual(['512x320', '512x320']);
    expect(readPngText(images[1]!).parameters).toMatch(/^a lighthouse\nSteps: 20, CFG scale: 7.000000, .*Seed: 43, Size: 500x300, Model: sd_xl_base_1\.0\.safetensors/);
    const models = await answer(await get(e, '/v1/models'));
    expect(models).toEqual([200, { data: [{ id: 'sd-cpp-local', object: 'model', owned_by: 'local' }] }]);
    const jpeg = (await (await post(e, '/v1/images/generations', { prompt: 'x', output_format: 'JPEG', output_compression: 150 })).json()) as { data: { b64_json: string }[]; output_format: string };
    expect((await sharp(Buffer.from(jpeg.data[0]!.b64_json, 'base64')).metadata()).format).toBe('jpeg');
    expect(e.generations.map((g) => g.status)).toEqual([200, 200]);
  });

  test('errors are flat {"error"} bodies with the server status codes', async () => {
    const e = await start();
    expect(await answer(await post(e, '/v1/images/generations', { size: '64x64' }))).toEqual([400, { error: 'prompt required' }]);
    expect(await answer(await post(e, '/v1/images/generations', { prompt: 'x', output_format: 'gif' }))).toEqual([400, { error: 'invalid output_format, must be one of [png, jpeg, webp]' }]);
    expect(await answer(await post(e, '/v1/images/generations', ''))).toEqual([400, { error: 'empty body' }]);
    const [status, body] = await answer(await post(e, '/v1/images/generations', '{nope'));
    expect([status, body.error]).toEqual([500, 'server_error']);
    expect(await answer(await post(e, '/sdcpp/v1/vid_gen', { prompt: 'x' }))).toEqual([400, { error: 'loaded model does not support vid_gen' }]);
    e.failNext('generation');
    expect(await answer(await post(e, '/v1/images/generations', { prompt: 'x' }))).toEqual([500, { error: 'generate_image returned no results' }]);
    e.failNext(503, { error: 'overloaded' });
    expect(await answer(await post(e, '/v1/images/generations', { prompt: 'x' }))).toEqual([503, { error: 'overloaded' }]);
    const missing = await get(e, '/no/such/route');
    expect([missing.status, await missing.text(), missing.headers.get('access-control-allow-origin')]).toEqual([404, '', '*']);
  });

  test('edits: multipart image[] sizes the output when no size is sent; a missing image is a 400', async () => {
    const e = await start({ capabilities: { sizeMultiple: 8 } });
    const form = new FormData();
    form.append('prompt', 'make it blue');
    form.append('image[]', new Blob([new Uint8Array(encodePng(200, 120))], { type: 'image/png' }), 'in.png');
    const [status, body] = await answer(await fetch(`${e.origin}/v1/images/edits`, { method: 'POST', body: form }));
    expect(status).toBe(200);
    const meta = await sharp(Buffer.from(body.data[0].b64_json, 'base64')).metadata();
    expect([meta.width, meta.height]).toEqual([200, 120]);
    expect(e.edits[0]!.files).toEqual([{ field: 'image[]', name: 'in.png', type: 'image/png', size: encodePng(200, 120).length }]);
    const bare = new FormData();
    bare.append('prompt', 'p');
    expect(await answer(await fetch(`${e.origin}/v1/images/edits`, { method: 'POST', body: bare }))).toEqual([400, { error: 'at least one image[] required' }]);
  });
});

describe('async jobs', () => {
  test('a video job: 202, queued, generating, completed with an MJPEG AVI ffprobe decodes (4n + 1 frames)', async () => {
    const e = await start({ model: WAN });
    expect(await answer(await post(e, '/v1/images/generations', { prompt: 'x' }))).toEqual([400, { error: 'loaded model does not support img_gen' }]);
    const caps = (await (await get(e, '/sdcpp/v1/capabilities')).json()) as Record<string, unknown>;
    expect(caps).toMatchObject({ current_mode: 'vid_gen', supported_modes: ['vid_gen'], output_formats: ['webm', 'webp', 'avi'], model: { name: 'wan2.1_t2v_1.3B_fp16.safetensors' }, limits: { max_queue_size: 64 } });
    const held = e.holdJobs();
    const [status, submitted] = await answer(await post(e, '/sdcpp/v1/vid_gen', { prompt: 'waves', width: 160, height: 96, video_frames: 10, fps: 8, output_format: 'avi', sample_params: { sample_steps: 6 } }));
    expect(status).toBe(202);
    expect(submitted).toEqual({ id: expect.stringMatching(/^job_[0-9a-f]+_00000000$/), kind: 'vid_gen', status: 'queued', created: expect.any(Number), poll_url: `/sdcpp/v1/jobs/${submitted.id}` });
    await held.reached;
    const [queued] = await until(e, submitted.id, () => true);
    expect(queued).toMatchObject({ status: 'queued', queue_position: 1, started: null, completed: null, result: null, error: null });
    const mid = e.holdAt(3);
    held.release();
    await mid.reached;
    const [generating] = await until(e, submitted.id, () => true);
    expect(generating).toMatchObject({ status: 'generating', queue_position: 0, result: null });
    expect(e.videoJobs[0]!.step).toBe(3);
    expect(await answer(await post(e, `/sdcpp/v1/jobs/${submitted.id}/cancel`, ''))).toEqual([409, { error: 'job is currently generating and cannot be interrupted yet' }]);
    mid.release();
    const done = (await until(e, submitted.id, (j) => j.status === 'completed')).at(-1)!;
    expect(done.result).toMatchObject({ output_format: 'avi', mime_type: 'video/x-msvideo', fps: 8, frame_count: 9 });
    expect(done.error).toBeNull();
    const avi = Buffer.from(done.result!.b64_json!, 'base64');
    expect(avi.toString('latin1', 0, 4) + avi.toString('latin1', 8, 12)).toBe('RIFFAVI ');
    expect(probe(avi, 'v.avi')).toMatchObject({ codec_name: 'mjpeg', width: 160, height: 96, nb_read_frames: '9', avg_frame_rate: '8/1' });
    const frames = aviFrames(avi);
    const means = await Promise.all(frames.slice(0, 2).map(async (f) => (await sharp(f).stats()).channels.map((c) => Math.round(c.mean))));
    expect(means[0]).not.toEqual(means[1]);
  });

  test('animated WebP and the default WebM container', async () => {
    const e = await start({ model: WAN });
    const webp = (await (await post(e, '/sdcpp/v1/vid_gen', { prompt: 'p', width: 64, height: 48, video_frames: 5, fps: 4, output_format: 'webp' })).json()) as Job;
    const webm = (await (await post(e, '/sdcpp/v1/vid_gen', { prompt: 'p', width: 64, height: 48, video_frames: 5 })).json()) as Job;
    const a = (await until(e, webp.id, (j) => j.status !== 'queued' && j.status !== 'generating')).at(-1)!;
    expect(a.result).toMatchObject({ output_format: 'webp', mime_type: 'image/webp', frame_count: 5, fps: 4 });
    const meta = await sharp(Buffer.from(a.result!.b64_json!, 'base64'), { animated: true }).metadata();
    expect([meta.format, meta.pages, meta.width, meta.pageHeight, meta.delay]).toEqual(['webp', 5, 64, 48, [250, 250, 250, 250, 250]]);
    const b = (await until(e, webm.id, (j) => j.status !== 'queued' && j.status !== 'generating')).at(-1)!;
    expect(b.result).toMatchObject({ output_format: 'webm', mime_type: 'video/webm', frame_count: 5, fps: 16 });
    expect(probe(Buffer.from(b.result!.b64_json!, 'base64'), 'v.webm')).toMatchObject({ codec_name: 'vp8', width: 64, height: 48, nb_read_frames: '5' });
  });

  test('queue full is a 429; cancelling a queued job; 404 unknown, 410 once expired; a failed generation', async () => {
    const e = await start({ queueLimit: 2 });
    const held = e.holdJobs();
    const first = (await (await post(e, '/sdcpp/v1/img_gen', { prompt: 'a', width: 64, height: 64 })).json()) as Job;
    const second = (await (await post(e, '/sdcpp/v1/img_gen', { prompt: 'b', width: 64, height: 64, batch_count: 20 })).json()) as Job;
    expect(await answer(await post(e, '/sdcpp/v1/img_gen', { prompt: 'c' }))).toEqual([429, { error: 'job queue is full' }]);
    expect(((await (await get(e, `/sdcpp/v1/jobs/${second.id}`)).json()) as Job).queue_position).toBe(2);
    const [status, cancelled] = await answer(await post(e, `/sdcpp/v1/jobs/${first.id}/cancel`, ''));
    expect(status).toBe(200);
    expect(cancelled).toMatchObject({ status: 'cancelled', started: null, completed: expect.any(Number), result: null, error: { code: 'cancelled', message: 'job cancelled by client' } });
    expect(((await (await get(e, `/sdcpp/v1/jobs/${second.id}`)).json()) as Job).queue_position).toBe(1);
    held.release();
    const done = (await until(e, second.id, (j) => j.status === 'completed')).at(-1)!;
    expect(done.result!.images).toHaveLength(8); // batch_count is clamped to 1..8
    expect(done.result!.output_format).toBe('png');
    expect(e.cancels).toEqual([first.id]);

    expect(await answer(await get(e, '/sdcpp/v1/jobs/job_0_00000099'))).toEqual([404, { error: 'job not found' }]);
    expect(e.expire(second.id)).toBe(true);
    expect(await answer(await get(e, `/sdcpp/v1/jobs/${second.id}`))).toEqual([410, { error: 'job expired' }]);
    expect(await answer(await post(e, `/sdcpp/v1/jobs/${second.id}/cancel`, ''))).toEqual([410, { error: 'job expired' }]);

    e.failNext('generation');
    const doomed = (await (await post(e, '/sdcpp/v1/img_gen', { prompt: 'd', width: 64, height: 64 })).json()) as Job;
    const failed = (await until(e, doomed.id, (j) => j.status === 'failed')).at(-1)!;
    expect(failed).toMatchObject({ result: null, error: { code: 'generation_failed', message: 'generate_image returned no results' } });
    expect(await answer(await post(e, '/sdcpp/v1/img_gen', '{"prompt": '))).toEqual([400, { error: 'invalid json', message: expect.stringContaining('parse_error') }]);
    expect(await answer(await post(e, '/sdcpp/v1/img_gen', { prompt: 'x', strength: 2 }))).toEqual([400, { error: 'invalid generation parameters' }]);
  });

  test('with a zero TTL a finished job is purged at once: 410 on the next read', async () => {
    const e = await start({ jobTtlMs: 0 });
    const job = (await (await post(e, '/sdcpp/v1/img_gen', { prompt: 'p', width: 64, height: 64 })).json()) as Job;
    let last = 0;
    for (let i = 0; i < 2000 && last !== 410; i++) {
      last = (await get(e, `/sdcpp/v1/jobs/${job.id}`)).status;
      if (last === 200) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(last).toBe(410);
    expect(e.imageJobs[0]).toMatchObject({ status: 'completed' });
  });

  test('the default video format needs WebM support: a build without it refuses it; down() loses every job', async () => {
    const e = await start({ model: WAN, capabilities: { videoFormats: ['webp', 'avi'] } });
    expect(await answer(await post(e, '/sdcpp/v1/vid_gen', { prompt: 'p' }))).toEqual([400, { error: 'invalid output_format, must be one of [webp, avi]' }]);
    const held = e.holdJobs();
    const job = (await (await post(e, '/sdcpp/v1/vid_gen', { prompt: 'p', output_format: 'avi', width: 64, height: 64 })).json()) as Job;
    await held.reached;
    await e.down();
    await expect(get(e, '/')).rejects.toThrow();
    await e.up();
    expect(await answer(await get(e, `/sdcpp/v1/jobs/${job.id}`))).toEqual([404, { error: 'job not found' }]);
    const preflight = await fetch(`${e.origin}/sdcpp/v1/vid_gen`, { method: 'OPTIONS', headers: { origin: 'http://app.test' } });
    expect([preflight.status, preflight.headers.get('access-control-allow-origin')]).toEqual([204, 'http://app.test']);
  });
});

test('writeMjpegAvi on its own: ffprobe reads the frame count, size and rate', async () => {
  const frames = await Promise.all([0, 1, 2].map((i) => sharp({ create: { width: 34, height: 18, channels: 3, background: { r: i * 90, g: 40, b: 200 } } }).jpeg().toBuffer()));
  expect(probe(writeMjpegAvi(frames, { width: 34, height: 18, fps: 24 }), 'a.avi')).toMatchObject({ codec_name: 'mjpeg', width: 34, height: 18, nb_read_frames: '3', avg_frame_rate: '24/1' });
});
