// The sdcpp provider kind (stable-diffusion.cpp's server) through a real gateway and the official
// OpenAI SDK, against the loopback emulator (test/emulators/sdcpp-emulator.ts). A server runs one
// model, which makes images or videos, never both: one emulator with an SDXL checkpoint, one with
// a Wan video model. Images: generations and edits with three references (every reference sent
// as image[], the size of the first when none is given, a fresh seed per request), the client
// leaving, the provider's own timeout. Videos: the native job API to an H.264 MP4 download (the
// server's MJPEG AVI re-encoded), image-to-video, progress, cancel (queued: taken out of its queue;
// generating: the 409 is final), a restarted server (404: submitted again), an expired job (410),
// a full queue (429), a video the gateway cannot decode; errors in gateway words only; check and
// discover; billing (images by the estimate, videos per second with a hold).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelRecord, VideoTask } from '../../shared/api-types.js';
import { formatUsd } from '../../electron/core/billing/money.js';
import { tokenCostNano } from '../../electron/core/billing/pricing.js';
import { estimateImageUsage } from '../../electron/core/providers/image-usage.js';
import { startSdcppEmulator, type SdcppEmulator } from '../emulators/sdcpp-emulator.js';
import { startTestGateway, USD, type TestGateway } from '../helpers/gateway.js';
import { errorOf, postJson, request, sdkRefusal } from '../helpers/http.js';
import { decodeB64, makeImage } from '../helpers/images.js';
import { ffprobe } from '../helpers/mp4.js';
import { waitFor } from '../helpers/stub-video-provider.js';

const WAN = 'wan2.1_t2v_1.3B_fp16.safetensors';
const IMAGE_MODEL = 'sdimg/sd_xl_base_1.0';
const VIDEO_MODEL = 'sdvid/wan-t2v';
let t: TestGateway;
let img: SdcppEmulator;
let vid: SdcppEmulator;
let key: { id: string; token: string; accountId: string };
const dir = mkdtempSync(join(tmpdir(), 'engine-sdcpp-'));

beforeAll(async () => {
  // The shared upstream client's whole-call timeout is cut to 300 ms: an image must be bounded
  // by its provider's timeout, and a video poll by the adapter's own, never by that.
  t = await startTestGateway({ upstreamTimeouts: { connectMs: 2_000, totalMs: 300 } });
  img = await startSdcppEmulator();
  vid = await startSdcppEmulator({ model: `/models/${WAN}` });
  await t.gateway.providerConfigs.add({ id: 'sdimg', kind: 'sdcpp', baseUrl: img.origin });
  await t.gateway.providerConfigs.add({ id: 'sdvid', kind: 'sdcpp', baseUrl: vid.origin });
  await t.gateway.providerConfigs.add({ id: 'sdimg-short', kind: 'sdcpp', baseUrl: img.origin, timeoutSeconds: 1 });
  expect((await t.gateway.providerAdmin.discover('sdimg')).added).toEqual([IMAGE_MODEL]);
  // A video model is the owner's record on the provider (discovery makes image models only).
  const base = (await t.gateway.catalog.find('local-video'))!.record;
  const video: ModelRecord = {
    ...base,
    id: VIDEO_MODEL,
    owned_by: 'sdvid',
    pricing: { price: 0.05, currency: 'USD', unit: 'second' },
    modalities: { input: ['text', 'image'], output: ['video'] },
    capabilities: {
      video_generation: true, video_async: true, supported_seconds: [1, 2], supported_sizes: ['832x480'], fps: 8, max_task_seconds: 120,
      max_reference_images: 1, max_reference_image_bytes: 8_388_608, requires_reference_image: false, request_types: ['text-to-video', 'image-to-video'],
    },
  };
  await t.gateway.catalog.put({ record: video, providerId: 'sdvid', upstreamModel: WAN });
  // The same, on the image-only server: it refuses video jobs.
  await t.gateway.catalog.put({ record: { ...video, id: 'sdimg/not-video', owned_by: 'sdimg' }, providerId: 'sdimg', upstreamModel: 'sd_xl_base_1.0.safetensors' });
  await t.gateway.catalog.put({ record: { ...(await t.gateway.catalog.find(IMAGE_MODEL))!.record, id: 'sdimg-short/sdxl', owned_by: 'sdimg-short' }, providerId: 'sdimg-short', upstreamModel: 'sd_xl_base_1.0.safetensors' });
  key = await t.key('balance', { balanceNano: 50 * USD });
});
afterAll(async () => {
  await t?.close();
  await img?.close();
  await vid?.close();
  rmSync(dir, { recursive: true, force: true });
});

const sdk = () => t.client(key.token);
const auth = () => ({ authorization: `Bearer ${key.token}` });
const holds = async () => (await t.gateway.billing.activeHolds(key.accountId)).length;
const SEED_BLOCK = /<sd_cpp_extra_args>\{"seed":(\d+)\}<\/sd_cpp_extra_args>$/;

const createVideo = (extra: Record<string, unknown> = {}) =>
  sdk().videos.create({ model: VIDEO_MODEL as never, prompt: 'waves on a pier', seconds: '2' as never, size: '832x480' as never, ...extra }) as unknown as Promise<VideoTask>;

const getTask = async (id: string) => (await request(`${t.baseUrl}/videos/${id}`, { headers: auth() })).body as VideoTask;
const row = (id: string) => t.gateway.videoTasks.get(id);
/** The engine job the task follows, once it has been submitted. */
const jobOf = (id: string) => waitFor(async () => (await row(id))?.upstream_id ?? null);

const ended = (id: string) =>
  waitFor(async () => {
    const task = await getTask(id);
    return ['completed', 'failed', 'timeout'].includes(task.status) ? task : null;
  }, 60_000);

/** The task's money: the ledger kinds for it, and whether any hold is left for it. */
async function money(taskId: string): Promise<string[]> {
  return (await t.gateway.billing.ledgerFor(key.accountId)).filter((r) => r.ref === taskId).map((r) => r.kind).reverse();
}

describe('check and discover', () => {
  it('check reports the loaded model and what it makes', async () => {
    const images = await t.gateway.providerAdmin.check('sdimg');
    expect(images).toMatchObject({ ok: true, models: ['sd_xl_base_1.0.safetensors'] });
    expect(images.facts).toEqual(expect.arrayContaining([
      { label: 'Model', value: 'sd_xl_base_1.0.safetensors' },
      { label: 'Generates', value: 'images' },
      { label: 'Edit references', value: '3' },
      { label: 'Job queue', value: '64 jobs' },
    ]));
    const videos = await t.gateway.providerAdmin.check('sdvid');
    expect(videos.ok).toBe(true);
    expect(videos.message).toContain(WAN);
    expect(videos.facts).toEqual(expect.arrayContaining([{ label: 'Generates', value: 'videos' }, { label: 'Video formats', value: 'webm, webp, avi' }]));
  });

  it('discover adds its one model (named by its file, without the extension), as an image model that edits with three references', async () => {
    const { record, routes } = (await t.gateway.catalog.find(IMAGE_MODEL))!;
    expect(routes[0]!.upstreamModel).toBe('sd_xl_base_1.0.safetensors');
    expect(record.capabilities).toMatchObject({ image_generation: true, image_edit: true, max_reference_images: 3 });
    // Again: nothing new.
    expect((await t.gateway.providerAdmin.discover('sdimg')).added).toEqual([]);
  });

  it('a server with a video model: discover says to put its video model; a server that is down: check fails in plain words', async () => {
    await expect(t.gateway.providerAdmin.discover('sdvid')).rejects.toThrow(/generates videos only.*mgw models put/);
    await img.down();
    try {
      const down = await t.gateway.providerAdmin.check('sdimg');
      expect(down).toMatchObject({ ok: false, facts: [] });
      expect(down.message).toMatch(/temporarily unavailable/);
    } finally {
      await img.up();
    }
  });
});

describe('images', () => {
  it('generate: PNG at the size asked, a fresh seed per request in the prompt, billed by the estimate', async () => {
    const before = await t.gateway.billing.view(key.accountId);
    const entry = (await t.gateway.catalog.find(IMAGE_MODEL))!;
    const prompt = 'a lighthouse at dusk';
    const first = await sdk().images.generate({ model: IMAGE_MODEL, prompt, size: '1024x1024' });
    expect(await decodeB64(first.data![0]!.b64_json!)).toEqual({ format: 'png', width: 1024, height: 1024 });
    await sdk().images.generate({ model: IMAGE_MODEL, prompt, size: '1024x1024' });
    const [a, b] = img.generations.slice(-2).map((g) => g.body);
    expect(a).toMatchObject({ n: 1, size: '1024x1024', output_format: 'png' });
    expect(a).not.toHaveProperty('model');
    const seeds = [a, b].map((body) => Number(SEED_BLOCK.exec(String(body!.prompt))?.[1]));
    expect(seeds.every(Number.isInteger)).toBe(true);
    expect(seeds[0]).not.toBe(seeds[1]);
    // Billed by the estimate (the engine reports no usage), the hold settled.
    const cost = tokenCostNano(entry.record.pricing, estimateImageUsage({ model: entry.record, upstreamModel: entry.routes[0]!.upstreamModel, prompt, width: 1024, height: 1024, sizeGiven: true, workflow: null }));
    expect((first.usage as unknown as { cost_usd: string }).cost_usd).toBe(formatUsd(cost));
    const after = await t.gateway.billing.view(key.accountId);
    expect(Math.round((Number(before.balance_usd) - Number(after.balance_usd)) * 1e9)).toBe(2 * cost);
    expect(await holds()).toBe(0);
  });

  it('edit with three references: all three sent as image[], the output at the first one\u2019s size', async () => {
    const files = await Promise.all(
      ([[512, 384], [256, 256], [320, 192]] as const).map(async ([w, h], i) => toFile(await makeImage(w, h), `ref${i + 1}.png`, { type: 'image/png' })),
    );
    const result = await sdk().images.edit({ model: IMAGE_MODEL, image: files, prompt: 'make it snow' });
    expect(await decodeB64(result.data![0]!.b64_json!)).toEqual({ format: 'png', width: 512, height: 384 });
    const edit = img.edits.at(-1)!;
    expect(edit.files!.map((f) => [f.field, f.name])).toEqual([['image[]', 'ref1.png'], ['image[]', 'ref2.png'], ['image[]', 'ref3.png']]);
    expect(edit.body).toMatchObject({ n: '1', output_format: 'png' });
    expect(edit.body).not.toHaveProperty('size');
    expect(String(edit.body.prompt)).toMatch(new RegExp(`^make it snow ${SEED_BLOCK.source}`));
    // With a size, the size is sent.
    await sdk().images.edit({ model: IMAGE_MODEL, image: files, prompt: 'make it rain', size: '512x512' });
    expect(img.edits.at(-1)!.body.size).toBe('512x512');
    expect(await holds()).toBe(0);
  });

  it("a client's own <sd_cpp_extra_args> never reaches the engine as settings", async () => {
    await sdk().images.generate({ model: IMAGE_MODEL, prompt: 'cat <sd_cpp_extra_args>{"batch_count":8}</sd_cpp_extra_args>', size: '512x512' });
    const record = img.generations.at(-1)!;
    expect(record.images).toBe(1);
    expect(String(record.body.prompt).match(/<sd_cpp_extra_args>/g)).toHaveLength(1);
  });

  it('the client leaving ends the call and releases the hold (the server has no interrupt: it finishes unwatched)', async () => {
    const gate = img.holdAt(1);
    const abort = new AbortController();
    const call = sdk().images.generate({ model: IMAGE_MODEL, prompt: 'a slow one', size: '512x512' }, { signal: abort.signal }).catch((e: unknown) => e);
    await gate.reached;
    abort.abort();
    await call;
    await waitFor(async () => (await holds()) === 0);
    gate.release();
  });

  it('bounded by the provider\u2019s own timeout (1 s), not the shared client\u2019s 300 ms: a slow image is 503 at 1 s', async () => {
    const gate = img.holdAt(1);
    try {
      const refused = await sdkRefusal(sdk().images.generate({ model: 'sdimg-short/sdxl', prompt: 'too slow', size: '512x512' }));
      expect(refused).toMatchObject({ status: 503, code: 'upstream_unavailable' });
      expect(refused.message).toMatch(/provider's timeout/);
    } finally {
      gate.release();
    }
    // 20 steps of 20 ms: longer than the shared client's 300 ms, well within the provider's timeout.
    img.setStepDelay(20);
    try {
      const result = await sdk().images.generate({ model: IMAGE_MODEL, prompt: 'twenty slow steps', size: '512x512' });
      expect(result.data).toHaveLength(1);
    } finally {
      img.setStepDelay(0);
    }
    expect(await holds()).toBe(0);
  });

  it.each([
    ['400 invalid params', 400, { error: 'invalid params' }, 400, 'upstream_bad_request', /parameters invalid/],
    ['400 a sentence the gateway does not know', 400, { error: 'weird: /home/owner/models/x.gguf' }, 400, 'upstream_bad_request', /^The stable-diffusion\.cpp server refused the request\.$/],
    ['500 server_error with the exception text', 500, { error: 'server_error', message: 'std::bad_alloc at /home/owner/secret.gguf' }, 503, 'upstream_unavailable', /console/],
  ] as const)('%s: in gateway words, never the engine\u2019s body', async (_name, status, fault, clientStatus, code, message) => {
    img.failNext(status, { route: 'POST /v1/images/generations', ...fault });
    const refused = await sdkRefusal(sdk().images.generate({ model: IMAGE_MODEL, prompt: 'x', size: '512x512' }));
    expect(refused).toMatchObject({ status: clientStatus, code });
    expect(refused.message).toMatch(message);
    expect(refused.raw).not.toMatch(/home\/owner|invalid params|bad_alloc|server_error/);
    expect(await holds()).toBe(0);
  });

  it('a generation that returns no results, and a server that is down: 503', async () => {
    img.failNext('generation');
    expect(await sdkRefusal(sdk().images.generate({ model: IMAGE_MODEL, prompt: 'x', size: '512x512' }))).toMatchObject({ status: 503, code: 'upstream_unavailable', message: expect.stringMatching(/failed to generate/) });
    await img.down();
    try {
      expect(await sdkRefusal(sdk().images.generate({ model: IMAGE_MODEL, prompt: 'x', size: '512x512' }))).toMatchObject({ status: 503, code: 'upstream_unavailable' });
    } finally {
      await img.up();
    }
    expect(await holds()).toBe(0);
  });
});

describe('videos', () => {
  it('text-to-video to completion: an AVI job, downloaded as an H.264 MP4; held at creation, charged per second on completion', async () => {
    const gate = vid.holdJobs();
    const created = await createVideo();
    expect(created.status).toBe('queued');
    const job = await jobOf(created.id);
    await gate.reached;
    // The hold: 2 s x $0.05, taken at creation.
    expect(await money(created.id)).toEqual(['reserve']);
    expect((await t.gateway.billing.activeHolds(key.accountId)).find((h) => h.ref === created.id)?.amount_nano).toBe(0.1 * USD);
    const body = vid.videoJobs.find((j) => j.id === job)!.body;
    expect(body).toMatchObject({ prompt: 'waves on a pier', width: 832, height: 480, video_frames: 16, fps: 8, output_format: 'avi' });
    expect(Number.isInteger(body.seed)).toBe(true);
    expect(body).not.toHaveProperty('init_image');
    gate.release();

    const done = await ended(created.id);
    expect(done).toMatchObject({ status: 'completed', progress: 100, cost_usd: '0.10000000' });
    expect(await money(created.id)).toEqual(['reserve', 'consume']);
    const content = await sdk().videos.downloadContent(created.id);
    expect(content.headers.get('content-type')).toBe('video/mp4');
    const file = join(dir, `${created.id}.mp4`);
    writeFileSync(file, Buffer.from(await content.arrayBuffer()));
    // Wan keeps 4n + 1 of the 16 frames asked: 13, at 8 fps.
    const probe = ffprobe(file);
    expect(probe).toMatchObject({ codec: 'h264', width: 832, height: 480, frames: 13 });
    expect(probe.duration).toBeCloseTo(13 / 8, 1);
  });

  it('image-to-video: the reference goes as init_image (a data URI)', async () => {
    const reference = await toFile(await makeImage(832, 480, 'jpeg'), 'start.jpg', { type: 'image/jpeg' });
    const created = await createVideo({ seconds: '1', input_reference: reference });
    expect(created.request_type).toBe('image-to-video');
    const job = await jobOf(created.id);
    expect((await ended(created.id)).status).toBe('completed');
    const body = vid.videoJobs.find((j) => j.id === job)!.body;
    expect(String(body.init_image)).toMatch(/^data:image\/jpeg;base64,\/9j\//);
    expect(body.video_frames).toBe(8);
  });

  it('progress: queued while the server holds it in its queue, running (50) while it generates', async () => {
    const queue = vid.holdJobs();
    const created = await createVideo();
    const job = await jobOf(created.id);
    await queue.reached;
    // Polled while the server holds it queued.
    await waitFor(async () => vid.requests.some((r) => r.route === 'GET /sdcpp/v1/jobs/:id' && r.path.endsWith(job)) || null);
    expect(await getTask(created.id)).toMatchObject({ status: 'queued', progress: 0 });
    const step = vid.holdAt(3);
    queue.release();
    await step.reached;
    await waitFor(async () => {
      const task = await getTask(created.id);
      return task.status === 'in_progress' && task.progress === 50 ? task : null;
    });
    step.release();
    expect((await ended(created.id)).status).toBe('completed');
  });

  it('cancel while queued: the job leaves the server\u2019s queue, the hold is released', async () => {
    const gate = vid.holdJobs();
    const created = await createVideo();
    const job = await jobOf(created.id);
    const cancelled = await request(`${t.baseUrl}/videos/${created.id}`, { method: 'DELETE', headers: auth() });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'failed', error: { code: 'cancelled' } });
    await waitFor(async () => vid.cancels.includes(job) || null);
    expect(vid.videoJobs.find((j) => j.id === job)!.status).toBe('cancelled');
    await waitFor(async () => ((await row(created.id))!.upstream_cancel_until === null) || null);
    expect(await money(created.id)).toEqual(['reserve', 'release']);
    gate.release();
  });

  it('cancel while generating: the server answers 409 (it cannot interrupt), the cancel is done, the hold released, nothing kept', async () => {
    const gate = vid.holdAt(2);
    const created = await createVideo();
    const job = await jobOf(created.id);
    await gate.reached;
    expect((await request(`${t.baseUrl}/videos/${created.id}`, { method: 'DELETE', headers: auth() })).status).toBe(200);
    await waitFor(async () => vid.cancels.includes(job) || null);
    await waitFor(async () => ((await row(created.id))!.upstream_cancel_until === null) || null);
    expect(vid.cancels.filter((id) => id === job)).toHaveLength(1);
    expect(await money(created.id)).toEqual(['reserve', 'release']);
    gate.release();
    await waitFor(async () => vid.videoJobs.find((j) => j.id === job)!.status === 'completed' || null);
    expect((await getTask(created.id)).status).toBe('failed');
    expect((await row(created.id))!.output_path).toBeNull();
  });

  it('a restarted server (404 job not found): the task is submitted again and completes', async () => {
    const gate = vid.holdJobs();
    const created = await createVideo();
    const first = await jobOf(created.id);
    await gate.reached;
    await vid.down(); // a restart: every job is gone
    await vid.up();
    const second = await waitFor(async () => {
      const id = (await row(created.id))!.upstream_id;
      return id !== first ? id : null;
    });
    const done = await ended(created.id);
    expect(done.status).toBe('completed');
    expect(vid.videoJobs.find((j) => j.id === second)!.status).toBe('completed');
    expect(await money(created.id)).toEqual(['reserve', 'consume']);
  });

  it('an expired job (410): the task fails plainly, the hold released', async () => {
    const gate = vid.holdAt(2);
    const created = await createVideo();
    const job = await jobOf(created.id);
    await gate.reached;
    expect(vid.expire(job)).toBe(true);
    const done = await ended(created.id);
    expect(done).toMatchObject({ status: 'failed', error: { code: 'generation_failed', message: expect.stringMatching(/expired before the gateway fetched it/) } });
    expect(await money(created.id)).toEqual(['reserve', 'release']);
    gate.release();
  });

  it('a full queue (429) at creation: 429 upstream_rate_limited, Retry-After kept when sent; no task, no hold', async () => {
    const before = await holds();
    vid.failNext(429, { route: 'POST /sdcpp/v1/vid_gen' });
    const refused = await sdkRefusal(createVideo());
    expect(refused).toMatchObject({ status: 429, code: 'upstream_rate_limited', message: expect.stringMatching(/job queue is full/) });
    vid.inject('POST /sdcpp/v1/vid_gen', { status: 429, headers: { 'retry-after': '3' }, times: 1 });
    const raw = await postJson(`${t.baseUrl}/videos`, { model: VIDEO_MODEL, prompt: 'x', seconds: 2, size: '832x480' }, key.token);
    expect(raw.status).toBe(429);
    expect(raw.headers.get('retry-after')).toBe('3');
    expect(errorOf(raw).code).toBe('upstream_rate_limited');
    expect(await holds()).toBe(before);
  });

  it('a server whose model makes no videos refuses the job: 400 in gateway words', async () => {
    const refused = await sdkRefusal(sdk().videos.create({ model: 'sdimg/not-video' as never, prompt: 'x', seconds: '1' as never, size: '832x480' as never }));
    expect(refused).toMatchObject({ status: 400, code: 'upstream_bad_request', message: expect.stringMatching(/does not generate videos/) });
    expect(refused.raw).not.toContain('vid_gen');
  });

  it('a generation that fails at the server fails the task, the hold released', async () => {
    const gate = vid.holdJobs();
    const created = await createVideo();
    // The server's worker is idle (it waits to take this job): the failure is this job's.
    await gate.reached;
    vid.failNext('generation');
    gate.release();
    const done = await ended(created.id);
    expect(done).toMatchObject({ status: 'failed', error: { message: 'The stable-diffusion.cpp server could not generate this video.' } });
    expect(await money(created.id)).toEqual(['reserve', 'release']);
  });

  it('a finished job whose video the gateway cannot decode (WebM): the task fails in plain words', async () => {
    const gate = vid.holdJobs();
    const created = await createVideo();
    const job = await jobOf(created.id);
    const webm = Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3]), Buffer.alloc(64)]).toString('base64');
    vid.inject('GET /sdcpp/v1/jobs/:id', {
      body: JSON.stringify({ id: job, kind: 'vid_gen', status: 'completed', created: 1, started: 1, completed: 2, queue_position: 0, result: { output_format: 'webm', mime_type: 'video/webm', fps: 8, frame_count: 13, b64_json: webm }, error: null }),
      times: 1,
    });
    const done = await ended(created.id);
    expect(done).toMatchObject({ status: 'failed', error: { message: expect.stringMatching(/cannot convert to MP4: it is WebM/) } });
    expect(await money(created.id)).toEqual(['reserve', 'release']);
    expect((await row(created.id))!.output_path).toBeNull();
    gate.release();
  });
});
