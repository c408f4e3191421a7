// The gemini provider kind through a real gateway and the official OpenAI SDK, against the
// loopback Gemini API emulator (test/emulators/gemini-emulator.ts). Images: Nano Banana by the
// default template (the aspect ratio the API names, an edit's references as inlineData), an
// owner's template on 3 Pro Image (its thought images skipped), every answer without an image
// refused and charged nothing, the usage Google reports billed, the client leaving, every error
// in gateway words. Videos: Veo to an MP4 the gateway serves (the key sent to the API, never to
// storage), image-to-video, references by template, cancel (nothing to call upstream), failed
// and filtered operations, a file that cannot be fetched. Check, discover, templates refused.
// The scheduler's clock runs ahead on demand: a Veo operation is polled every 10 s.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelRecord, VideoTask } from '../../shared/api-types.js';
import { formatUsd } from '../../electron/core/billing/money.js';
import { tokenCostNano } from '../../electron/core/billing/pricing.js';
import { isGatewayError } from '../../electron/core/errors.js';
import { startGeminiEmulator, type GeminiEmulator, type ImageRefusal } from '../emulators/gemini-emulator.js';
import { quotaExhausted } from '../emulators/gemini-errors.js';
import { startTestGateway, USD, type TestGateway } from '../helpers/gateway.js';
import { errorOf, postJson, request, sdkRefusal } from '../helpers/http.js';
import { decodeB64, makeImage } from '../helpers/images.js';
import { ffprobe } from '../helpers/mp4.js';
import { waitFor } from '../helpers/stub-video-provider.js';
import { capturingLogger, type UpstreamSetup } from '../helpers/upstreams.js';

const SECRET = 'goog-PLANTED-LEAKME-5151';
let skew = 0;
let t: TestGateway;
let emu: GeminiEmulator;
let key: { id: string; token: string; accountId: string };
const logs: UpstreamSetup['logs'] = [];
const dir = mkdtempSync(join(tmpdir(), 'provider-gemini-'));

const PRICING = { input: 0.3, output: 30, minimum_request_price_usd: 0.001, currency: 'USD', unit: '1M tokens' };
const image = (id: string, caps: Record<string, unknown>, base: ModelRecord): ModelRecord => ({
  ...base, id, owned_by: id.split('/')[0]!, pricing: PRICING,
  capabilities: { ...base.capabilities, image_generation: true, image_edit: true, max_reference_images: 3, supported_sizes: ['1024x1024', '1344x768', '768x1344', '1536x672'], ...caps },
});
const video = (id: string, caps: Record<string, unknown>, base: ModelRecord): ModelRecord => ({
  ...base, id, owned_by: id.split('/')[0]!, pricing: { price: 0.4, currency: 'USD', unit: 'second' }, modalities: { input: ['text', 'image'], output: ['video'] },
  capabilities: { video_generation: true, video_async: true, supported_seconds: [4, 5, 6, 8], supported_sizes: ['1280x720', '720x1280', '1920x1080'], max_task_seconds: 3600, max_reference_images: 1, max_reference_image_bytes: 8_388_608, requires_reference_image: false, request_types: ['text-to-video', 'image-to-video'], ...caps },
});
/** 3 Pro Image by the owner's template: text and image answers, 2K, a seed, two references. */
const PRO_TEMPLATE = {
  contents: [{ role: 'user', parts: [{ text: '{{prompt}}' }, { inlineData: '{{image_1}}' }, { inlineData: '{{image_2}}' }] }],
  generationConfig: { responseModalities: ['TEXT', 'IMAGE'], seed: '{{seed}}', imageConfig: { aspectRatio: '{{aspect_ratio}}', imageSize: '2K' } },
};
/** Veo 3.1 with subject references (referenceImages) instead of a first frame. */
const VEO_REFS_TEMPLATE = {
  instances: [{ prompt: '{{prompt}}', referenceImages: [{ image: '{{image_1}}', referenceType: 'asset' }, { image: '{{image_2}}', referenceType: 'asset' }] }],
  parameters: { aspectRatio: '{{aspect_ratio}}', durationSeconds: '{{seconds}}', personGeneration: 'allow_adult' },
};

beforeAll(async () => {
  t = await startTestGateway({ logger: capturingLogger(logs), clock: { now: () => Date.now() + skew }, upstreamTimeouts: { connectMs: 2_000, totalMs: 10_000 } });
  emu = await startGeminiEmulator();
  await t.gateway.providerConfigs.add({ id: 'gem', kind: 'gemini', baseUrl: emu.origin, apiKey: emu.apiKey });
  await t.gateway.providerConfigs.add({ id: 'gemv', kind: 'gemini', baseUrl: `${emu.origin}/v1beta`, apiKey: emu.apiKey });
  await t.gateway.providerConfigs.add({ id: 'wrongkey', kind: 'gemini', baseUrl: emu.origin, apiKey: 'AIza-not-the-right-key' });
  const baseImage = (await t.gateway.catalog.find('local-image'))!.record;
  const baseVideo = (await t.gateway.catalog.find('local-video'))!.record;
  const put = (record: ModelRecord, upstreamModel: string, workflow?: unknown) => t.gateway.catalog.put({ record, providerId: record.owned_by, upstreamModel, ...(workflow ? { workflow } : {}) });
  await put(image('gem/nano-banana', {}, baseImage), 'gemini-2.5-flash-image');
  await put(image('gem/nano-banana-pro', { max_reference_images: 2 }, baseImage), 'gemini-3-pro-image-preview', PRO_TEMPLATE);
  await put(image('gem/flash-text', {}, baseImage), 'gemini-2.5-flash');
  await put(image('gem/no-such-model', {}, baseImage), 'gemini-9-image');
  await put(image('wrongkey/nano-banana', {}, baseImage), 'gemini-2.5-flash-image');
  await put(video('gem/veo-3', {}, baseVideo), 'veo-3.0-generate-001');
  await put(video('gemv/veo-3-fast', {}, baseVideo), 'models/veo-3.0-fast-generate-001');
  await put(video('gem/veo-31-refs', { max_reference_images: 2, request_types: ['text-to-video', 'image-to-video'] }, baseVideo), 'veo-3.1-generate-preview', VEO_REFS_TEMPLATE);
  key = await t.key('balance', { balanceNano: 50 * USD });
});
afterAll(async () => {
  await t?.close();
  await emu?.close();
  rmSync(dir, { recursive: true, force: true });
});

const sdk = () => t.client(key.token);
const auth = () => ({ authorization: `Bearer ${key.token}` });
const holds = async () => (await t.gateway.billing.activeHolds(key.accountId)).length;
const balance = async () => (await t.gateway.billing.view(key.accountId)).balance_usd;
const lastContent = () => emu.contents.at(-1)!;
const pricingOf = async (id: string) => (await t.gateway.catalog.find(id))!.record.pricing;

const createVideo = (model: string, extra: Record<string, unknown> = {}) =>
  sdk().videos.create({ model: model as never, prompt: 'waves on a pier', seconds: '4' as never, size: '1280x720' as never, ...extra }) as unknown as Promise<VideoTask>;
const getTask = async (id: string) => (await request(`${t.baseUrl}/videos/${id}`, { headers: auth() })).body as VideoTask;
const row = (id: string) => t.gateway.videoTasks.get(id);
const operationOf = (id: string) => waitFor(async () => (await row(id))?.upstream_id ?? null);
/** Waits for the task to end, moving the scheduler's clock past each 10 s poll interval (and backoff). */
const ended = (id: string) =>
  waitFor(async () => {
    const task = await getTask(id);
    if (['completed', 'failed', 'timeout'].includes(task.status)) return task;
    skew += 11_000;
    return null;
  }, 30_000, 100);
const money = async (taskId: string) => (await t.gateway.billing.ledgerFor(key.accountId)).filter((r) => r.ref === taskId).map((r) => r.kind).reverse();

describe('check and discover', () => {
  it('check proves the key with a free call (models?pageSize=1, the key in x-goog-api-key); a wrong key fails in plain words', async () => {
    const ok = await t.gateway.providerAdmin.check('gem');
    expect(ok).toMatchObject({ ok: true, message: 'Connected: The Gemini API accepted the key.' });
    const asked = emu.requests.filter((r) => r.route === 'GET models').at(-1)!;
    expect(asked.path).toBe('/v1beta/models?pageSize=1');
    expect(asked.headers['x-goog-api-key']).toBe(emu.apiKey);
    expect((await t.gateway.providerAdmin.check('gemv')).ok).toBe(true);
    const wrong = await t.gateway.providerAdmin.check('wrongkey');
    expect(wrong).toMatchObject({ ok: false, facts: [] });
    expect(wrong.message).toMatch(/refused the gateway\u2019s provider key \(API_KEY_INVALID\)/);
  });

  it('discover says to put each model with its price', async () => {
    await expect(t.gateway.providerAdmin.discover('gem')).rejects.toThrow(/mgw models put ID --provider gem --upstream-model/);
  });
});

describe('images', () => {
  it('generate: the default body, the ratio the API names, the key in its header; billed by the usage Google reports', async () => {
    const before = await balance();
    const result = await sdk().images.generate({ model: 'gem/nano-banana', prompt: 'a lighthouse at dusk', size: '1344x768' });
    expect(await decodeB64(result.data![0]!.b64_json!)).toEqual({ format: 'png', width: 1344, height: 768 });
    expect(lastContent().body).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'a lighthouse at dusk' }] }],
      generationConfig: { responseModalities: ['IMAGE'], imageConfig: { aspectRatio: '16:9' } },
    });
    const sent = emu.requests.filter((r) => r.route === 'POST generateContent').at(-1)!;
    expect(sent.path).toBe('/v1beta/models/gemini-2.5-flash-image:generateContent');
    expect(sent.headers['x-goog-api-key']).toBe(emu.apiKey);
    expect(sent.headers.authorization).toBeUndefined();
    // 1536x672 is 16:7 reduced: the API's name for it is 21:9.
    await sdk().images.generate({ model: 'gem/nano-banana', prompt: 'wide', size: '1536x672' });
    expect(lastContent().body.generationConfig).toEqual({ responseModalities: ['IMAGE'], imageConfig: { aspectRatio: '21:9' } });
    // promptTokenCount 5 (20 characters), candidatesTokenCount 1290: the emulator's usageMetadata.
    const cost = tokenCostNano(await pricingOf('gem/nano-banana'), { input_tokens: 5, output_tokens: 1290 });
    expect((result.usage as unknown as { cost_usd: string }).cost_usd).toBe(formatUsd(cost));
    expect(Math.round((Number(before) - Number(await balance())) * 1e9)).toBe(cost + tokenCostNano(await pricingOf('gem/nano-banana'), { input_tokens: 1, output_tokens: 1290 }));
    expect(await holds()).toBe(0);
  });

  it('edit: every reference as an inlineData part after the prompt; without a size the model keeps the first one\u2019s shape', async () => {
    const refs = [await makeImage(600, 800), await makeImage(256, 256, 'jpeg')];
    const files = await Promise.all(refs.map((bytes, i) => toFile(bytes, `ref${i}`, { type: i ? 'image/jpeg' : 'image/png' })));
    const result = await sdk().images.edit({ model: 'gem/nano-banana', image: files, prompt: 'make it snow' });
    // 600x800 is 3:4, which Nano Banana renders at 864x1184.
    expect(await decodeB64(result.data![0]!.b64_json!)).toEqual({ format: 'png', width: 864, height: 1184 });
    const { body, images } = lastContent();
    expect(body.generationConfig).toEqual({ responseModalities: ['IMAGE'] });
    expect(images.map((i) => i.mime)).toEqual(['image/png', 'image/jpeg']);
    expect(images.map((i) => i.bytes.equals(refs[images.indexOf(i)]!))).toEqual([true, true]);
    // With a size, the ratio is asked.
    await sdk().images.edit({ model: 'gem/nano-banana', image: files, prompt: 'make it rain', size: '768x1344' });
    expect(lastContent().body.generationConfig).toEqual({ responseModalities: ['IMAGE'], imageConfig: { aspectRatio: '9:16' } });
  });

  it('an owner\u2019s template (3 Pro Image at 2K): filled, the missing reference left out, the final image (not a thought one) billed with its thinking', async () => {
    const before = await balance();
    const file = await toFile(await makeImage(512, 512), 'ref.png', { type: 'image/png' });
    const result = await sdk().images.edit({ model: 'gem/nano-banana-pro', image: file, prompt: 'in ink', size: '1024x1024' });
    expect(await decodeB64(result.data![0]!.b64_json!)).toEqual({ format: 'png', width: 2048, height: 2048 });
    const { body, images } = lastContent();
    const parts = (body.contents as { parts: Record<string, unknown>[] }[])[0]!.parts;
    expect(parts).toHaveLength(2);
    expect(parts[0]).toEqual({ text: 'in ink' });
    expect(images).toHaveLength(1);
    const config = body.generationConfig as Record<string, unknown>;
    expect(config).toMatchObject({ responseModalities: ['TEXT', 'IMAGE'], imageConfig: { aspectRatio: '1:1', imageSize: '2K' } });
    expect(Number.isInteger(config.seed)).toBe(true);
    // The reference counts 258 tokens in; 1120 + 8 text + 180 thinking tokens out.
    const cost = tokenCostNano(await pricingOf('gem/nano-banana-pro'), { input_tokens: 2 + 258, output_tokens: 1308 });
    expect((result.usage as unknown as { cost_usd: string }).cost_usd).toBe(formatUsd(cost));
    expect(Math.round((Number(before) - Number(await balance())) * 1e9)).toBe(cost);
  });

  it.each([
    ['prompt-blocked', /^The Gemini API blocked the prompt \(PROHIBITED_CONTENT\); nothing was charged\.$/],
    ['image-safety', /blocked the image \(IMAGE_SAFETY\)/],
    ['prohibited', /blocked the image \(IMAGE_PROHIBITED_CONTENT\)/],
    ['text-only', /answered with text and no image/],
    ['no-image', /gave no image \(NO_IMAGE\)/],
  ] as [ImageRefusal, RegExp][])('an answer without an image (%s): 400 upstream_bad_request, nothing charged', async (kind, message) => {
    const before = await balance();
    emu.refuseNextImage(kind);
    const refused = await sdkRefusal(sdk().images.generate({ model: 'gem/nano-banana', prompt: 'x', size: '1024x1024' }));
    expect(refused).toMatchObject({ status: 400, code: 'upstream_bad_request' });
    expect(refused.message).toMatch(message);
    expect(refused.raw).not.toMatch(/describe it in words/);
    expect(await balance()).toBe(before);
    expect(await holds()).toBe(0);
  });

  it('a text model asked for an image, a model the API lacks, the wrong key: in gateway words', async () => {
    expect(await sdkRefusal(sdk().images.generate({ model: 'gem/flash-text', prompt: 'x', size: '1024x1024' }))).toMatchObject({ status: 400, code: 'upstream_bad_request', message: 'The Gemini API refused the request.' });
    expect(await sdkRefusal(sdk().images.generate({ model: 'gem/no-such-model', prompt: 'x', size: '1024x1024' }))).toMatchObject({ status: 400, message: expect.stringMatching(/no such model/) });
    const wrong = await sdkRefusal(sdk().images.generate({ model: 'wrongkey/nano-banana', prompt: 'x', size: '1024x1024' }));
    expect(wrong).toMatchObject({ status: 503, code: 'upstream_unavailable', message: expect.stringMatching(/provider key \(API_KEY_INVALID\)/) });
    expect(await holds()).toBe(0);
  });

  it.each([
    ['429 with RetryInfo', { status: 429, body: quotaExhausted(SECRET, '12s').body.toString() }, 429, 'upstream_rate_limited', '12'],
    ['429 with Retry-After and RetryInfo', { status: 429, headers: { 'retry-after': '3' } }, 429, 'upstream_rate_limited', '3'],
    ['400 FAILED_PRECONDITION', { status: 400, body: JSON.stringify({ error: { code: 400, status: 'FAILED_PRECONDITION', message: `User location is not supported ${SECRET}` } }) }, 503, 'upstream_unavailable', null],
    ['403', { status: 403, body: JSON.stringify({ error: { code: 403, status: 'PERMISSION_DENIED', message: SECRET } }) }, 503, 'upstream_unavailable', null],
    ['400 with a secret', { status: 400, body: JSON.stringify({ error: { code: 400, status: 'INVALID_ARGUMENT', message: `bad ${SECRET}` } }) }, 400, 'upstream_bad_request', null],
    ['500', { status: 500, body: `{"error": {"message": "${SECRET}"}}` }, 503, 'upstream_unavailable', null],
    ['503 overloaded', { status: 503 }, 503, 'upstream_unavailable', null],
    ['connection reset', { reset: true }, 503, 'upstream_unavailable', null],
    ['malformed JSON', { body: `{"candidates": [ ${SECRET}` }, 502, 'upstream_invalid_response', null],
    ['no candidates', { body: JSON.stringify({ candidates: [], secret: SECRET }) }, 502, 'upstream_invalid_response', null],
  ] as const)('%s: in gateway words, the secret never reaches the client', async (_name, fault, status, code, retryAfter) => {
    emu.inject('POST generateContent', { ...fault, times: 1 });
    const raw = await postJson(`${t.baseUrl}/images/generations`, { model: 'gem/nano-banana', prompt: 'x', size: '1024x1024' }, key.token);
    expect(raw.status).toBe(status);
    expect(errorOf(raw).code).toBe(code);
    expect(raw.headers.get('retry-after')).toBe(retryAfter);
    expect(JSON.stringify(raw.body)).not.toContain(SECRET);
    expect(await holds()).toBe(0);
  });

  it('the client leaving ends the call and releases the hold', async () => {
    const gate = emu.holdImages();
    const abort = new AbortController();
    const call = sdk().images.generate({ model: 'gem/nano-banana', prompt: 'a slow one', size: '1024x1024' }, { signal: abort.signal }).catch((e: unknown) => e);
    await gate.reached;
    abort.abort();
    await call;
    await waitFor(async () => (await holds()) === 0);
    gate.release();
  });
});

describe('videos', () => {
  it('text-to-video: the default body, done at its first poll, the MP4 fetched with the key from the API and without it from storage, served by the gateway, charged per second', async () => {
    const created = await createVideo('gem/veo-3');
    const name = await operationOf(created.id);
    expect(name).toMatch(/^models\/veo-3\.0-generate-001\/operations\//);
    expect(emu.operations.get(name)!.body).toEqual({ instances: [{ prompt: 'waves on a pier' }], parameters: { aspectRatio: '16:9', durationSeconds: 4 } });
    const done = await ended(created.id);
    expect(done).toMatchObject({ status: 'completed', cost_usd: '1.60000000' });
    expect(await money(created.id)).toEqual(['reserve', 'consume']);
    const fileId = emu.operations.get(name)!.fileId;
    const fromApi = emu.requests.find((r) => r.route === 'GET file' && r.path.includes(fileId))!;
    expect(fromApi.headers['x-goog-api-key']).toBe(emu.apiKey);
    const fromStorage = emu.storageRequests.find((r) => r.path.includes(fileId))!;
    expect(fromStorage.headers['x-goog-api-key']).toBeUndefined();
    const content = await sdk().videos.downloadContent(created.id);
    expect(content.headers.get('content-type')).toBe('video/mp4');
    const file = join(dir, `${created.id}.mp4`);
    writeFileSync(file, Buffer.from(await content.arrayBuffer()));
    expect(ffprobe(file)).toMatchObject({ codec: 'h264', width: 1280, height: 720 });
    const range = await fetch(`${t.baseUrl}/videos/${created.id}/content`, { headers: { ...auth(), range: 'bytes=0-99' } });
    expect(range.status).toBe(206);
  });

  it('the operation names its file on Google\u2019s host while the base URL is the emulator (a proxy): the file id is asked of the configured API, with the key, as the SDK does', async () => {
    emu.nameFilesAt('https://generativelanguage.googleapis.com');
    try {
      const created = await createVideo('gem/veo-3');
      const name = await operationOf(created.id);
      expect(await ended(created.id)).toMatchObject({ status: 'completed' });
      const fileId = emu.operations.get(name)!.fileId;
      const fromApi = emu.requests.filter((r) => r.route === 'GET file' && r.path.includes(fileId));
      expect(fromApi.map((r) => r.path)).toEqual([`/v1beta/files/${fileId}:download?alt=media`]);
      expect(fromApi[0]!.headers['x-goog-api-key']).toBe(emu.apiKey);
      expect((await sdk().videos.downloadContent(created.id)).headers.get('content-type')).toBe('video/mp4');
    } finally {
      emu.nameFilesAt(null);
    }
  });

  it('image-to-video at 1080p (a base URL with its /v1beta, a model named models/...): the reference as Veo\u2019s image', async () => {
    const reference = await toFile(await makeImage(1920, 1080, 'jpeg'), 'start.jpg', { type: 'image/jpeg' });
    const created = await createVideo('gemv/veo-3-fast', { input_reference: reference, seconds: '8', size: '1920x1080' });
    const name = await operationOf(created.id);
    const body = emu.operations.get(name)!.body as { instances: { image: { bytesBase64Encoded: string; mimeType: string } }[]; parameters: unknown };
    expect(body.instances[0]!.image.mimeType).toBe('image/jpeg');
    expect(body.instances[0]!.image.bytesBase64Encoded).toMatch(/^\/9j\//);
    expect(body.parameters).toEqual({ aspectRatio: '16:9', durationSeconds: 8, resolution: '1080p' });
    expect((await ended(created.id)).status).toBe('completed');
  });

  it('references by an owner\u2019s template (Veo 3.1 referenceImages): two, then one (the other item left out)', async () => {
    const refs = await Promise.all([1, 2].map(async (i) => toFile(await makeImage(640, 360), `ref${i}.png`, { type: 'image/png' })));
    const created = await postJson(`${t.baseUrl}/videos`, { model: 'gem/veo-31-refs', prompt: 'a cat', seconds: 8, size: '1280x720' }, key.token);
    expect(created.status).toBe(200);
    const text = emu.operations.get(await operationOf((created.body as VideoTask).id))!.body;
    expect(text).toEqual({ instances: [{ prompt: 'a cat', referenceImages: [] }], parameters: { aspectRatio: '16:9', durationSeconds: 8, personGeneration: 'allow_adult' } });
    const withRefs = await sdk().videos.create({ model: 'gem/veo-31-refs' as never, prompt: 'a cat', seconds: '8' as never, size: '1280x720' as never, input_reference: refs[0]! }) as unknown as VideoTask;
    const one = emu.operations.get(await operationOf(withRefs.id))!.instance;
    expect(one.referenceImages).toEqual([{ image: { bytesBase64Encoded: expect.any(String), mimeType: 'image/png' }, referenceType: 'asset' }]);
  });

  it('running (not done): in_progress at 50; cancel calls nothing upstream (the API has none), releases the hold, stops the polls', async () => {
    const gate = emu.holdOperations();
    const created = await createVideo('gem/veo-3');
    const name = await operationOf(created.id);
    await waitFor(async () => emu.operations.get(name)!.polls > 0 || null);
    expect(await waitFor(async () => ((await getTask(created.id)).status === 'in_progress' ? getTask(created.id) : null))).toMatchObject({ progress: 50 });
    const cancelled = await request(`${t.baseUrl}/videos/${created.id}`, { method: 'DELETE', headers: auth() });
    expect(cancelled.body).toMatchObject({ status: 'failed', error: { code: 'cancelled' } });
    await waitFor(async () => ((await row(created.id))!.upstream_cancel_until === null) || null);
    expect(await money(created.id)).toEqual(['reserve', 'release']);
    const polls = emu.operations.get(name)!.polls;
    skew += 30_000;
    // A later task polled past this one's next turn: the cancelled one was not polled again.
    gate.release();
    const after = await createVideo('gem/veo-3');
    expect((await ended(after.id)).status).toBe('completed');
    expect(emu.operations.get(name)!.polls).toBe(polls);
    expect(emu.requests.some((r) => r.path.includes(':cancel') || r.method === 'DELETE')).toBe(false);
  });

  it.each([
    ['error', /^The Gemini API could not generate this video/],
    ['filtered', /safety filters blocked/],
    ['empty', /without a video/],
  ] as const)('an operation that ends %s fails the task, the hold released', async (outcome, message) => {
    emu.nextOperationEnds(outcome);
    const created = await createVideo('gem/veo-3');
    expect(await ended(created.id)).toMatchObject({ status: 'failed', error: { code: 'generation_failed', message: expect.stringMatching(message) } });
    expect(await money(created.id)).toEqual(['reserve', 'release']);
  });

  it('a video file that cannot be fetched (gone at the API): retried with backoff, then the task fails, nothing kept', async () => {
    const gate = emu.holdOperations();
    const created = await createVideo('gem/veo-3');
    const name = await operationOf(created.id);
    emu.expireFile(name);
    gate.release();
    expect(await ended(created.id)).toMatchObject({ status: 'failed', error: { message: 'The finished video could not be fetched from The Gemini API.' } });
    expect(emu.requests.filter((r) => r.route === 'GET file' && r.path.includes(emu.operations.get(name)!.fileId)).length).toBe(5);
    expect(await money(created.id)).toEqual(['reserve', 'release']);
    expect((await row(created.id))!.output_path).toBeNull();
  });

  it('a poll rate limited is waited out (its RetryInfo); an operation the API no longer knows (404) fails the task', async () => {
    const gate = emu.holdOperations();
    const created = await createVideo('gem/veo-3');
    const name = await operationOf(created.id);
    await waitFor(async () => emu.operations.get(name)!.polls > 0 || null);
    emu.inject('GET operation', { status: 429, times: 1 });
    emu.inject('GET operation', { status: 404, times: 1 });
    expect(await ended(created.id)).toMatchObject({ status: 'failed', error: { code: 'generation_failed', message: 'The Gemini API no longer knows this video\u2019s operation.' } });
    expect(emu.requests.filter((r) => r.route === 'GET operation' && r.path.endsWith(name)).length).toBe(3);
    expect(await money(created.id)).toEqual(['reserve', 'release']);
    gate.release();
  });

  it('storage answering an HTML page: not an MP4, the task fails in plain words', async () => {
    emu.inject('GET download', { status: 200, body: '<html>login</html>', times: 1 });
    const created = await createVideo('gem/veo-3');
    expect(await ended(created.id)).toMatchObject({ status: 'failed', error: { message: expect.stringMatching(/^The Gemini API returned a file that is not a video the gateway recognizes, not an MP4 video\.$/) } });
  });

  it('refused at creation (a duration the model lacks; a 429): in gateway words, no task, no hold', async () => {
    const before = await holds();
    const refused = await sdkRefusal(createVideo('gem/veo-3', { seconds: '5' }));
    expect(refused).toMatchObject({ status: 400, code: 'upstream_bad_request', message: 'The Gemini API refused the request: it found fault with durationSeconds.' });
    emu.inject('POST predictLongRunning', { status: 429, times: 1 });
    const raw = await postJson(`${t.baseUrl}/videos`, { model: 'gem/veo-3', prompt: 'x', seconds: 4, size: '1280x720' }, key.token);
    expect(raw.status).toBe(429);
    expect(raw.headers.get('retry-after')).toBe('7');
    expect(await holds()).toBe(before);
  });
});

describe('templates when a model is put, and the key in the logs', () => {
  it('refuses a template the kind cannot use, naming the template', async () => {
    const base = (await t.gateway.catalog.find('gem/nano-banana'))!.record;
    const put = (workflow: unknown, caps: Record<string, unknown> = {}) =>
      t.gateway.catalog.put({ record: { ...base, id: 'gem/x', capabilities: { ...base.capabilities, ...caps } }, providerId: 'gem', upstreamModel: 'imagen-4.0-generate-001', workflow }).catch((e: unknown) => e);
    const imagen = await put({ instances: [{ prompt: '{{prompt}}' }], parameters: { sampleCount: 1 } });
    expect(isGatewayError(imagen) && imagen.param).toBe('template');
    expect((imagen as Error).message).toMatch(/Imagen/);
    expect(await put({ contents: [{ parts: [{ text: '{{prompt}} {{image_1}}' }] }] })).toMatchObject({ param: 'template', message: expect.stringMatching(/must be the whole value/) });
    expect(await put({ contents: [{ parts: [{ text: '{{prompt}}' }, { inlineData: '{{image_1}}' }] }] })).toMatchObject({ message: expect.stringMatching(/allows 3 reference images, but the template places only 1/) });
  });

  it('the provider key never reaches a log line, nor a client, even when the upstream echoes it', async () => {
    emu.inject('POST generateContent', { status: 400, body: JSON.stringify({ error: { code: 400, status: 'INVALID_ARGUMENT', message: `key ${emu.apiKey} refused` } }), times: 1 });
    const before = logs.length;
    const raw = await postJson(`${t.baseUrl}/images/generations`, { model: 'gem/nano-banana', prompt: 'x', size: '1024x1024' }, key.token);
    expect(raw.status).toBe(400);
    expect(JSON.stringify(raw.body)).not.toContain(emu.apiKey);
    expect(logs.slice(before).some((l) => String(l.fields.body).includes('key [REDACTED] refused'))).toBe(true);
    expect(JSON.stringify(logs)).not.toContain(emu.apiKey);
  });
});
