// The runway provider kind through a real gateway and the official OpenAI SDK, against the
// loopback Runway emulator (test/emulators/runway-emulator.ts, its outputs on a second origin).
// Runway's 5 s between reads of a task is cut here to 100 ms (the constant mocked below; the
// real pace is tested on fake timers in test/unit/runway-polling.test.ts), and the emulator
// counts any read of a task that comes sooner than that.
// Images: generations and edits (references as tagged data URIs), the size mapped to the
// model's nearest ratio, the owner's template, failed tasks, every refusal in gateway words, the
// client leaving and the provider timeout (both cancel the task). Videos: text-to-video and
// image-to-video to an MP4 copied into the data dir and served by the gateway (Range included),
// progress, cancel, failed and cancelled tasks, an output that expired once or for good, a WebM.
// Check, discover, the key and version on every API call and never on the output host; billing.
import { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ModelRecord, VideoTask } from '../../shared/api-types.js';
import { formatUsd } from '../../electron/core/billing/money.js';
import { tokenCostNano } from '../../electron/core/billing/pricing.js';
import { estimateImageUsage } from '../../electron/core/providers/image-usage.js';
import { startRunwayEmulator, type RunwayEmulator } from '../emulators/runway-emulator.js';
import { startTestGateway, USD, type TestGateway } from '../helpers/gateway.js';
import { request, sdkRefusal } from '../helpers/http.js';
import { decodeB64, makeImage } from '../helpers/images.js';
import { readMp4 } from '../helpers/mp4.js';
import { runwayImageFaultCases } from '../helpers/runway-fault-cases.js';
import { waitFor } from '../helpers/stub-video-provider.js';

const POLL_MS = 100;
vi.mock('../../electron/core/providers/runway/runway-mapping.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../electron/core/providers/runway/runway-mapping.js')>()),
  POLL_INTERVAL_MS: 100,
}));

const SECRET = 'RUNWAY-SECRET-4f1c';
let t: TestGateway;
let rw: RunwayEmulator;
let key: { id: string; token: string; accountId: string };

const IMAGE_CAPS = { image_generation: true, image_edit: true, max_reference_images: 3, supported_sizes: ['1024x1024', '1280x720', '1344x768', '1920x1080'] };
const VIDEO_CAPS = { video_generation: true, video_async: true, max_task_seconds: 120, max_reference_image_bytes: 8_388_608, supported_sizes: ['1280x720', '720x1280', '1024x1024'] };

beforeAll(async () => {
  // The fault-case bursts are many requests a second on one key: its rate limit is raised.
  t = await startTestGateway({ limits: { requests: { balance: { perSecond: 1_000, perMinute: 10_000, perHour: 100_000 } } } });
  rw = await startRunwayEmulator({ pollFloorMs: POLL_MS - 5 });
  await t.gateway.providerConfigs.add({ id: 'rw', kind: 'runway', baseUrl: rw.baseUrl, apiKey: rw.apiKey });
  await t.gateway.providerConfigs.add({ id: 'rw-short', kind: 'runway', baseUrl: rw.baseUrl, apiKey: rw.apiKey, timeoutSeconds: 1 });
  await t.gateway.providerConfigs.add({ id: 'rw-wrong', kind: 'runway', baseUrl: rw.baseUrl, apiKey: `key_${SECRET}` });
  const image = (await t.gateway.catalog.find('local-image-pro'))!.record;
  const video = (await t.gateway.catalog.find('local-video'))!.record;
  const put = (record: ModelRecord, upstreamModel: string, providerId = 'rw', workflow?: unknown) => t.gateway.catalog.put({ record: { ...record, owned_by: providerId }, providerId, upstreamModel, ...(workflow ? { workflow } : {}) });
  const imageRecord = (id: string, caps: Record<string, unknown> = IMAGE_CAPS): ModelRecord => ({ ...image, id, pricing: { input: 2, output: 30, minimum_request_price_usd: 0.02, currency: 'USD', unit: '1M tokens' }, modalities: { input: ['text', 'image'], output: ['image'] }, capabilities: caps });
  const videoRecord = (id: string, caps: Record<string, unknown>): ModelRecord => ({ ...video, id, pricing: { price: 0.05, currency: 'USD', unit: 'second' }, modalities: { input: ['text', 'image'], output: ['video'] }, capabilities: { ...VIDEO_CAPS, ...caps } });
  await put(imageRecord('rw/gen4-image'), 'gen4_image');
  await put(imageRecord('rw/gen4-image-turbo', { image_edit: true, max_reference_images: 3, supported_sizes: IMAGE_CAPS.supported_sizes }), 'gen4_image_turbo');
  await put(imageRecord('rw/no-such-model'), 'gen9_image');
  await put(imageRecord('rw-short/gen4-image'), 'gen4_image', 'rw-short');
  await put(imageRecord('rw-wrong/gen4-image'), 'gen4_image', 'rw-wrong');
  // The owner's template: a fixed seed, a style around the prompt, a moderation setting; no references.
  await put(imageRecord('rw/gen4-styled', { image_generation: true, supported_sizes: IMAGE_CAPS.supported_sizes }), 'gen4_image', 'rw', {
    promptText: 'Watercolor: {{prompt}}', ratio: '{{ratio}}', seed: 42, contentModeration: { publicFigureThreshold: 'low' },
  });
  await put(videoRecord('rw/veo3.1', { supported_seconds: [4, 6, 8], max_reference_images: 1, request_types: ['text-to-video', 'image-to-video'] }), 'veo3.1');
  await put(videoRecord('rw/gen4-turbo', { supported_seconds: [5, 10], max_reference_images: 1, requires_reference_image: true, request_types: ['image-to-video'] }), 'gen4_turbo');
  // An owner's template that fixes a duration the model does not take: Runway's 400 names it.
  await put(videoRecord('rw/veo3.1-five', { supported_seconds: [4], max_reference_images: 0, request_types: ['text-to-video'] }), 'veo3.1', 'rw', { promptText: '{{prompt}}', ratio: '{{ratio}}', duration: 5 });
  key = await t.key('balance', { balanceNano: 50 * USD });
});
afterAll(async () => {
  await t?.close();
  await rw?.close();
});

const sdk = () => t.client(key.token);
const auth = () => ({ authorization: `Bearer ${key.token}` });
const holds = async () => (await t.gateway.billing.activeHolds(key.accountId)).length;
const lastCreate = () => JSON.parse(rw.requests.filter((r) => r.method === 'POST').at(-1)!.body.toString()) as Record<string, unknown>;
const lastCreateRoute = () => rw.requests.filter((r) => r.method === 'POST').at(-1)!.route;

const generate = (model: string, extra: Record<string, unknown> = {}) => sdk().images.generate({ model, prompt: 'a red fox in snow', size: '1280x720', ...extra } as never);
const createVideo = (extra: Record<string, unknown>) => sdk().videos.create({ model: 'rw/veo3.1' as never, prompt: 'waves on a pier', seconds: '4' as never, size: '1280x720' as never, ...extra }) as unknown as Promise<VideoTask>;
const getTask = async (id: string) => (await request(`${t.baseUrl}/videos/${id}`, { headers: auth() })).body as VideoTask;
const upstreamOf = (id: string) => waitFor(async () => (await t.gateway.videoTasks.get(id))?.upstream_id ?? null);
const ended = (id: string) =>
  waitFor(async () => {
    const task = await getTask(id);
    return ['completed', 'failed', 'timeout'].includes(task.status) ? task : null;
  }, 20_000, 20);
const money = async (ref: string) => (await t.gateway.billing.ledgerFor(key.accountId)).filter((r) => r.ref === ref).map((r) => r.kind).reverse();

describe('check and discover', () => {
  it('check proves the key with GET /v1/organization: credits and the models of its tier', async () => {
    const check = await t.gateway.providerAdmin.check('rw');
    expect(check).toMatchObject({ ok: true, message: 'Connected: the key works; its Runway organization has 12500 credits.' });
    expect(check.models).toEqual(expect.arrayContaining(['gen4_image', 'gen4_turbo', 'veo3.1']));
    expect(check.facts).toEqual(expect.arrayContaining([{ label: 'Credit balance', value: '12500 credits' }, { label: 'Monthly credit limit', value: '100000 credits' }]));
    const call = rw.requests.at(-1)!;
    expect([call.method, call.path, call.headers['x-runway-version']]).toEqual(['GET', '/v1/organization', '2024-11-06']);
  });

  it('a wrong key: check fails in gateway words (the owner must check the key), never the key; discover says to put models', async () => {
    const check = await t.gateway.providerAdmin.check('rw-wrong');
    expect(check).toMatchObject({ ok: false, models: [], facts: [] });
    expect(check.message).toMatch(/credentials.*provider key/);
    expect(JSON.stringify(check)).not.toContain(SECRET);
    await expect(t.gateway.providerAdmin.discover('rw')).rejects.toThrow(/mgw models put ID --provider rw --upstream-model MODEL/);
  });
});

describe('images', () => {
  it('generate: a text_to_image task polled to its end, the PNG fetched from the output host without the key; billed once by the estimate', async () => {
    const before = rw.requests.length;
    const result = await generate('rw/gen4-image');
    expect((await decodeB64(result.data![0]!.b64_json!)).format).toBe('png');
    const body = lastCreate();
    expect(body).toEqual({ model: 'gen4_image', promptText: 'a red fox in snow', ratio: '1280:720', seed: expect.any(Number) });
    // Every API call carries the key and the version: the creation, then a read per state (PENDING, RUNNING, SUCCEEDED).
    const calls = rw.requests.slice(before);
    expect(calls.map((c) => c.route)).toEqual(['POST text_to_image', 'GET task', 'GET task', 'GET task']);
    for (const call of calls) expect([call.headers.authorization, call.headers['x-runway-version']]).toEqual([`Bearer ${rw.apiKey}`, '2024-11-06']);
    const download = rw.cdnRequests.at(-1)!;
    expect([download.headers.authorization, download.headers['x-runway-version']]).toEqual([undefined, undefined]);
    // Billed by the estimate (Runway reports no usage), at least the model's minimum; the hold settled.
    const entry = (await t.gateway.catalog.find('rw/gen4-image'))!;
    const cost = tokenCostNano(entry.record.pricing, estimateImageUsage({ model: entry.record, upstreamModel: 'gen4_image', prompt: 'a red fox in snow', width: 1280, height: 720, sizeGiven: true, workflow: null }));
    expect(cost).toBeGreaterThanOrEqual(0.02 * USD);
    expect((result.usage as unknown as { cost_usd: string }).cost_usd).toBe(formatUsd(cost));
    expect(await holds()).toBe(0);
  });

  it('a size off the model\u2019s ratios goes as the nearest one (1344x768 -> 1360:768); two requests get two seeds', async () => {
    await generate('rw/gen4-image', { size: '1344x768' });
    const first = lastCreate();
    expect(first.ratio).toBe('1360:768');
    await generate('rw/gen4-image', { size: '1024x1024' });
    expect(lastCreate()).toMatchObject({ ratio: '1024:1024' });
    expect(lastCreate().seed).not.toBe(first.seed);
  });

  it('edit: every reference as a tagged data URI (image_1..image_3); without a size, the first reference\u2019s shape', async () => {
    const files = await Promise.all(
      ([[960, 540, 'png'], [256, 256, 'jpeg'], [320, 192, 'webp']] as const).map(async ([w, h, f], i) => toFile(await makeImage(w, h, f), `ref${i + 1}.${f}`, { type: `image/${f}` })),
    );
    await sdk().images.edit({ model: 'rw/gen4-image', image: files, prompt: 'make it snow' });
    const body = lastCreate();
    const refs = body.referenceImages as { uri: string; tag: string }[];
    expect(refs.map((r) => [r.tag, r.uri.slice(0, 23)])).toEqual([['image_1', 'data:image/png;base64,i'], ['image_2', 'data:image/jpeg;base64,'], ['image_3', 'data:image/webp;base64,']]);
    expect(body).toMatchObject({ model: 'gen4_image', promptText: 'make it snow', ratio: '1280:720' });
    // An edit-only model (its references required) with one reference and a size.
    await sdk().images.edit({ model: 'rw/gen4-image-turbo', image: files[1]!, prompt: 'as a statue', size: '1024x1024' });
    expect(lastCreate()).toMatchObject({ model: 'gen4_image_turbo', ratio: '1024:1024', referenceImages: [{ uri: expect.stringMatching(/^data:image\/jpeg;base64,/), tag: 'image_1' }] });
    expect(await holds()).toBe(0);
  });

  it('the owner\u2019s template is what is sent (its fixed seed and settings), model from the upstream name', async () => {
    await generate('rw/gen4-styled', { size: '1920x1080' });
    expect(lastCreate()).toEqual({ model: 'gen4_image', promptText: 'Watercolor: a red fox in snow', ratio: '1920:1080', seed: 42, contentModeration: { publicFigureThreshold: 'low' } });
    // Refused when put: a template that names its own model, or leaves out the prompt.
    const record = (await t.gateway.catalog.find('rw/gen4-styled'))!.record;
    await expect(t.gateway.catalog.put({ record, providerId: 'rw', upstreamModel: 'gen4_image', workflow: { model: 'gen4_image', promptText: '{{prompt}}' } })).rejects.toMatchObject({ code: 'invalid_request', param: 'template' });
    await expect(t.gateway.catalog.put({ record, providerId: 'rw', upstreamModel: 'gen4_image', workflow: { promptText: 'fixed' } })).rejects.toThrow(/no \{\{prompt\}\}/);
  });

  it.each([
    ['SAFETY.INPUT.TEXT', 400, 'upstream_bad_request', /content moderation refused the prompt/],
    ['SAFETY.OUTPUT.IMAGE', 400, 'upstream_bad_request', /content moderation refused the generated image/],
    ['INTERNAL.BAD_OUTPUT.CODE01', 400, 'upstream_bad_request', /for its quality/],
    ['ASSET.INVALID', 400, 'upstream_bad_request', /could not use a reference image/],
    ['INTERNAL', 503, 'upstream_unavailable', /a failure on its side/],
  ])('a task that FAILED with %s: %s in gateway words, charged nothing', async (failureCode, status, code, message) => {
    const balance = (await t.gateway.billing.view(key.accountId)).balance_usd;
    rw.behaviour.end = { status: 'FAILED', failureCode, failure: `Runway says ${SECRET}` };
    try {
      const refused = await sdkRefusal(generate('rw/gen4-image'));
      expect(refused).toMatchObject({ status, code, message: expect.stringMatching(message) });
      expect(refused.raw).not.toContain(SECRET);
    } finally {
      rw.behaviour.end = { status: 'SUCCEEDED' };
    }
    expect((await t.gateway.billing.view(key.accountId)).balance_usd).toBe(balance);
    expect(await holds()).toBe(0);
  });

  it('Runway\u2019s own validation: a prompt too long, a model it does not have; in gateway words', async () => {
    expect(await sdkRefusal(generate('rw/gen4-image', { prompt: 'x'.repeat(1001) }))).toMatchObject({ status: 400, code: 'upstream_bad_request', message: 'Runway refused the request: the prompt is too large or too long.' });
    expect(await sdkRefusal(generate('rw/no-such-model'))).toMatchObject({ status: 400, message: expect.stringMatching(/no model "gen9_image" for this kind of request \(text_to_image\)/) });
  });

  it.each(runwayImageFaultCases(SECRET))('%s', async (_name, where, route, fault, status, code) => {
    (where === 'api' ? rw.inject : rw.injectCdn)(route, { ...fault, times: 1 });
    try {
      const refused = await sdkRefusal(generate('rw/gen4-image'));
      expect([refused.status, refused.code]).toEqual([status, code]);
      expect(refused.raw).not.toContain(SECRET);
      if (status === 429) expect(refused.retryAfter).toBe('7');
    } finally {
      rw.clearFaults();
    }
    await waitFor(async () => (await holds()) === 0);
  });

  it('a passing fault while polling (429 with Retry-After, a 503, a reset) is polled through', async () => {
    rw.inject('GET task', { status: 503, body: SECRET, times: 1 });
    rw.inject('GET task', { reset: true, times: 1 });
    rw.inject('GET task', { status: 429, headers: { 'retry-after': '1' }, times: 1 });
    const started = Date.now();
    const result = await generate('rw/gen4-image');
    expect(result.data).toHaveLength(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
  });

  it('the client leaving cancels the Runway task (DELETE) and releases the hold', async () => {
    rw.behaviour.hold = true;
    try {
      const abort = new AbortController();
      const left = sdk().images.generate({ model: 'rw/gen4-image', prompt: 'a slow fox', size: '1280x720' }, { signal: abort.signal }).catch((e: unknown) => e);
      const task = await waitFor(async () => [...rw.tasks.values()].find((x) => x.body.promptText === 'a slow fox' && x.reads >= 1) ?? null);
      abort.abort();
      await left;
      await waitFor(async () => rw.cancelCalls.includes(task.id) || null);
      expect(task.state.status).toBe('CANCELLED');
    } finally {
      rw.behaviour.hold = false;
    }
    await waitFor(async () => (await holds()) === 0);
  });

  it('the provider timeout (1 s) ends the wait with a 503 and cancels the task', async () => {
    rw.behaviour.hold = true;
    try {
      const refused = await sdkRefusal(generate('rw-short/gen4-image', { prompt: 'too slow' }));
      expect(refused).toMatchObject({ status: 503, code: 'upstream_unavailable', message: expect.stringMatching(/provider\u2019s timeout; its task was cancelled/) });
    } finally {
      rw.behaviour.hold = false;
    }
    const task = [...rw.tasks.values()].find((x) => x.body.promptText === 'too slow')!;
    await waitFor(async () => rw.cancelCalls.includes(task.id) || null);
    expect(await holds()).toBe(0);
  });
});

describe('videos', () => {
  it('text-to-video: queued, running with Runway\u2019s progress, the MP4 copied into the data dir and served with Range; charged once per second', async () => {
    rw.behaviour.steps = [{ status: 'PENDING' }, { status: 'THROTTLED' }, { status: 'RUNNING', progress: 0.25 }, { status: 'RUNNING', progress: 0.75 }];
    rw.behaviour.hold = true;
    let created: VideoTask;
    try {
      created = await createVideo({});
    } finally {
      rw.behaviour.hold = false;
    }
    expect(created.status).toBe('queued');
    const upstream = await upstreamOf(created.id);
    expect(lastCreateRoute()).toBe('POST text_to_video');
    expect(lastCreate()).toEqual({ model: 'veo3.1', promptText: 'waves on a pier', ratio: '1280:720', duration: 4 });
    expect(await money(created.id)).toEqual(['reserve']);
    // Held at RUNNING 0.75 until released: the gateway reports it in progress at 75.
    await waitFor(async () => {
      const task = await getTask(created.id);
      return task.status === 'in_progress' && task.progress === 75 ? task : null;
    });
    rw.release(upstream);
    const done = await ended(created.id);
    expect(done).toMatchObject({ status: 'completed', progress: 100, cost_usd: '0.20000000' });
    expect(await money(created.id)).toEqual(['reserve', 'consume']);
    rw.behaviour.steps = [{ status: 'PENDING' }, { status: 'RUNNING', progress: 0.5 }];
    // The gateway serves its own copy: the output URL may expire now.
    rw.expire(upstream);
    const content = await fetch(`${t.baseUrl}/videos/${created.id}/content`, { headers: auth() });
    expect(content.headers.get('content-type')).toBe('video/mp4');
    const bytes = Buffer.from(await content.arrayBuffer());
    expect(readMp4(bytes).width).toBeGreaterThan(0);
    const range = await fetch(`${t.baseUrl}/videos/${created.id}/content`, { headers: { ...auth(), range: 'bytes=0-99' } });
    expect(range.status).toBe(206);
    expect(Buffer.from(await range.arrayBuffer())).toEqual(bytes.subarray(0, 100));
    expect(rw.cdnRequests.filter((r) => r.path.includes(upstream)).every((r) => r.headers.authorization === undefined)).toBe(true);
  });

  it('image-to-video on gen4_turbo: image_to_video with promptImage as a data URI, the nearest ratio, a seed', async () => {
    const reference = await toFile(await makeImage(512, 512, 'jpeg'), 'start.jpg', { type: 'image/jpeg' });
    const created = await createVideo({ model: 'rw/gen4-turbo', seconds: '5', size: '1024x1024', input_reference: reference });
    expect(created.request_type).toBe('image-to-video');
    expect((await ended(created.id)).status).toBe('completed');
    expect(lastCreateRoute()).toBe('POST image_to_video');
    expect(lastCreate()).toEqual({ model: 'gen4_turbo', promptImage: expect.stringMatching(/^data:image\/jpeg;base64,\/9j\//), promptText: 'waves on a pier', ratio: '960:960', duration: 5, seed: expect.any(Number) });
  });

  it('cancel: DELETE /v1/tasks/{id}, the hold released', async () => {
    rw.behaviour.hold = true;
    try {
      const created = await createVideo({});
      const upstream = await upstreamOf(created.id);
      const cancelled = (await request(`${t.baseUrl}/videos/${created.id}`, { method: 'DELETE', headers: auth() })).body as VideoTask;
      expect(cancelled).toMatchObject({ status: 'failed', error: { code: 'cancelled' } });
      await waitFor(async () => rw.cancelCalls.includes(upstream) || null);
      expect(rw.tasks.get(upstream)!.state.status).toBe('CANCELLED');
      expect(await money(created.id)).toEqual(['reserve', 'release']);
    } finally {
      rw.behaviour.hold = false;
      rw.release();
    }
  });

  it.each([
    ['FAILED SAFETY.INPUT.TEXT', () => { rw.behaviour.end = { status: 'FAILED', failureCode: 'SAFETY.INPUT.TEXT', failure: SECRET }; }, /content moderation refused the prompt/],
    ['FAILED without a code', () => { rw.behaviour.end = { status: 'FAILED', failure: SECRET }; }, /a failure on its side/],
    ['WebM output', () => { rw.behaviour.videoContainer = 'webm'; }, /^Runway returned a WebM video, not an MP4 video\.$/],
  ])('%s: the task fails with generation_failed in gateway words, its hold released', async (_name, arrange, message) => {
    arrange();
    try {
      const created = await createVideo({});
      const done = await ended(created.id);
      expect(done).toMatchObject({ status: 'failed', error: { code: 'generation_failed', message: expect.stringMatching(message) }, cost_usd: '0.00000000' });
      expect(JSON.stringify(done)).not.toContain(SECRET);
      expect(await money(created.id)).toEqual(['reserve', 'release']);
    } finally {
      rw.behaviour.end = { status: 'SUCCEEDED' };
      rw.behaviour.videoContainer = 'mp4';
    }
  });

  it('cancelled or deleted at Runway: the task fails, its hold released', async () => {
    rw.behaviour.hold = true;
    try {
      const [a, b] = [await createVideo({}), await createVideo({})];
      const [ua, ub] = [await upstreamOf(a.id), await upstreamOf(b.id)];
      rw.tasks.get(ua)!.cancelled = true;
      rw.tasks.delete(ub);
      expect(await ended(a.id)).toMatchObject({ status: 'failed', error: { code: 'generation_failed', message: expect.stringMatching(/cancelled this video task/) } });
      expect(await ended(b.id)).toMatchObject({ status: 'failed', error: { code: 'generation_failed', message: expect.stringMatching(/no longer has this video task/) } });
      expect(await money(b.id)).toEqual(['reserve', 'release']);
    } finally {
      rw.behaviour.hold = false;
    }
  });

  it('an output URL that fails once is fetched fresh at the next poll; one that never works ends the task, its hold released', async () => {
    rw.injectCdn('GET output', { status: 403, times: 2 });
    const once = await createVideo({});
    expect((await ended(once.id)).status).toBe('completed');
    rw.injectCdn('GET output', { status: 403, body: SECRET });
    try {
      const never = await createVideo({});
      const done = await ended(never.id);
      expect(done).toMatchObject({ status: 'failed', error: { code: 'generation_failed', message: 'Runway finished this video, but the gateway could not fetch it from its output URL.' } });
      expect(await money(never.id)).toEqual(['reserve', 'release']);
    } finally {
      rw.clearFaults();
    }
  });

  it('refused at creation: Runway\u2019s 400 names the duration; a 429 keeps Retry-After; no task is left, nothing held', async () => {
    const refused = await sdkRefusal(createVideo({ model: 'rw/veo3.1-five', seconds: '4' }));
    expect(refused).toMatchObject({ status: 400, code: 'upstream_bad_request', message: 'Runway refused the request: the duration (5 seconds) is not one this model takes.' });
    rw.inject('POST text_to_video', { status: 429, body: SECRET, headers: { 'retry-after': '7' }, times: 1 });
    const limited = await sdkRefusal(createVideo({}));
    expect(limited).toMatchObject({ status: 429, code: 'upstream_rate_limited', retryAfter: '7' });
    expect(limited.raw).not.toContain(SECRET);
    expect(await holds()).toBe(0);
  });

  it('no task was ever read sooner than the poll interval after its creation or its previous read', () => {
    expect(rw.fastReads).toEqual([]);
  });
});
