// The replicate provider kind through a real gateway and the official OpenAI SDK, against the
// loopback Replicate emulator (test/emulators/replicate-emulator.ts). Images: official models in
// sync mode (Prefer: wait, Cancel-After), a prediction that comes back unfinished and is polled,
// files handed out before "succeeded", edits with references inline and through the Files API
// (deleted afterwards), community models by version, default and owner's templates, the client
// leaving and the provider's timeout (the prediction cancelled), every refusal in gateway words.
// Videos: a task to an MP4 the gateway serves (Range included), image-to-video, cancel, failures,
// an output that is not an MP4, removed, or cannot be fetched. Check, discover, billing.
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelRecord, VideoTask } from '../../shared/api-types.js';
import { formatUsd } from '../../electron/core/billing/money.js';
import { tokenCostNano } from '../../electron/core/billing/pricing.js';
import { estimateImageUsage } from '../../electron/core/providers/image-usage.js';
import { startReplicateEmulator, type ReplicateEmulator } from '../emulators/replicate-emulator.js';
import { startTestGateway, USD, type TestGateway } from '../helpers/gateway.js';
import { errorOf, postJson, request, sdkRefusal } from '../helpers/http.js';
import { decodeB64, makeImage, uncompressedPng } from '../helpers/images.js';
import { ffprobe } from '../helpers/mp4.js';
import { replicateCreateFaultCases } from '../helpers/replicate-fault-cases.js';
import { waitFor } from '../helpers/stub-video-provider.js';
import { capturingLogger, type UpstreamSetup } from '../helpers/upstreams.js';

const SECRET = 'r8-PLANTED-LEAKME-4242';
const VERSION = '7762fd07cf82c948538e41f63f77d685e02b063e37e496e96eefd46c929f9bdc';
let t: TestGateway;
let rep: ReplicateEmulator;
let slow: ReplicateEmulator;
let key: { id: string; token: string; accountId: string };
const logs: UpstreamSetup['logs'] = [];
const dir = mkdtempSync(join(tmpdir(), 'provider-replicate-'));

const image = (id: string, caps: Record<string, unknown>, base: ModelRecord): ModelRecord => ({
  ...base, id, owned_by: id.split('/')[0]!, pricing: { input: 1, output: 10, minimum_request_price_usd: 0.001, currency: 'USD', unit: '1M tokens' },
  capabilities: { ...base.capabilities, supported_sizes: ['1024x1024', '1536x1024', '1000x700'], ...caps },
});
const video = (id: string, caps: Record<string, unknown>, base: ModelRecord): ModelRecord => ({
  ...base, id, owned_by: id.split('/')[0]!, pricing: { price: 0.1, currency: 'USD', unit: 'second' }, modalities: { input: ['text', 'image'], output: ['video'] },
  capabilities: { video_generation: true, video_async: true, supported_seconds: [5, 10], supported_sizes: ['1280x720', '720x1280'], max_task_seconds: 120, max_reference_images: 1, max_reference_image_bytes: 8_388_608, requires_reference_image: false, request_types: ['text-to-video', 'image-to-video'], ...caps },
});

beforeAll(async () => {
  // The gateway's own rate limit would refuse the bursts of fault cases (20 a second for a key).
  t = await startTestGateway({ logger: capturingLogger(logs), upstreamTimeouts: { connectMs: 2_000, totalMs: 10_000 }, limits: { requests: { balance: { perSecond: 1_000, perMinute: 10_000, perHour: 100_000 } } } });
  rep = await startReplicateEmulator({ durationMs: 1 });
  // Predictions that never end by themselves; sync mode gives up on them after a second.
  slow = await startReplicateEmulator({ stuck: true, syncWaitMs: 1_000 });
  await t.gateway.providerConfigs.add({ id: 'rep', kind: 'replicate', baseUrl: rep.origin, apiKey: rep.apiKey });
  await t.gateway.providerConfigs.add({ id: 'slow', kind: 'replicate', baseUrl: slow.origin, apiKey: slow.apiKey, timeoutSeconds: 2 });
  await t.gateway.providerConfigs.add({ id: 'wrongkey', kind: 'replicate', baseUrl: rep.origin, apiKey: 'r8_not-the-right-key' });
  const baseImage = (await t.gateway.catalog.find('local-image'))!.record;
  const baseVideo = (await t.gateway.catalog.find('local-video'))!.record;
  const put = (record: ModelRecord, upstreamModel: string, workflow?: unknown) => t.gateway.catalog.put({ record, providerId: record.owned_by, upstreamModel, ...(workflow ? { workflow } : {}) });
  const generates = { image_generation: true, image_edit: false };
  await put(image('rep/flux-schnell', generates, baseImage), 'black-forest-labs/flux-schnell');
  await put(image('rep/seedream-4', { image_generation: true, image_edit: true, max_reference_images: 3 }, baseImage), 'bytedance/seedream-4');
  await put(image('rep/kontext', { image_generation: false, image_edit: true, max_reference_images: 1 }, baseImage), 'black-forest-labs/flux-kontext-pro',
    { prompt: '{{prompt}}', input_image: '{{image_1}}', aspect_ratio: '{{aspect_ratio}}', seed: '{{seed}}', output_format: 'png' });
  await put(image('rep/redux', { image_generation: false, image_edit: true, max_reference_images: 1 }, baseImage), 'black-forest-labs/flux-1.1-pro',
    { prompt: '{{prompt}}', image_prompt: '{{image_1}}', aspect_ratio: 'custom', width: '{{width}}', height: '{{height}}' });
  const sdxl = { prompt: '{{prompt}}', width: '{{width}}', height: '{{height}}', seed: '{{seed}}' };
  await put(image('rep/sdxl', generates, baseImage), `stability-ai/sdxl:${VERSION}`, sdxl);
  await put(image('rep/sdxl-id', generates, baseImage), VERSION, sdxl);
  await put(image('slow/flux', generates, baseImage), 'black-forest-labs/flux-schnell');
  await put(image('wrongkey/flux', generates, baseImage), 'black-forest-labs/flux-schnell');
  await put(video('rep/seedance', {}, baseVideo), 'bytedance/seedance-1-pro');
  await put(video('rep/kling', { requires_reference_image: true, request_types: ['image-to-video'] }, baseVideo), 'kwaivgi/kling-v2.1', { prompt: '{{prompt}}', start_image: '{{image_1}}', duration: '{{seconds}}' });
  await put(video('rep/veo', { max_reference_images: 0, request_types: ['text-to-video'] }, baseVideo), 'google/veo-3');
  await put(video('slow/seedance', {}, baseVideo), 'bytedance/seedance-1-pro');
  key = await t.key('balance', { balanceNano: 50 * USD });
});
afterAll(async () => {
  await t?.close();
  await rep?.close();
  await slow?.close();
  rmSync(dir, { recursive: true, force: true });
});

const sdk = () => t.client(key.token);
const auth = () => ({ authorization: `Bearer ${key.token}` });
const holds = async () => (await t.gateway.billing.activeHolds(key.accountId)).length;
const creations = (em: ReplicateEmulator) => em.requests.filter((r) => r.route === 'POST model predictions' || r.route === 'POST predictions');
const lastCreation = (em: ReplicateEmulator) => {
  const r = creations(em).at(-1)!;
  return { path: r.path, headers: r.headers, body: JSON.parse(r.body.toString()) as { input: Record<string, unknown>; version?: string } };
};

const createVideo = (model: string, extra: Record<string, unknown> = {}) =>
  sdk().videos.create({ model: model as never, prompt: 'waves on a pier', seconds: '5' as never, size: '1280x720' as never, ...extra }) as unknown as Promise<VideoTask>;
const getTask = async (id: string) => (await request(`${t.baseUrl}/videos/${id}`, { headers: auth() })).body as VideoTask;
const row = (id: string) => t.gateway.videoTasks.get(id);
const predictionOf = (id: string) => waitFor(async () => (await row(id))?.upstream_id ?? null);
const ended = (id: string) => waitFor(async () => {
  const task = await getTask(id);
  return ['completed', 'failed', 'timeout'].includes(task.status) ? task : null;
}, 30_000);
const money = async (taskId: string) => (await t.gateway.billing.ledgerFor(key.accountId)).filter((r) => r.ref === taskId).map((r) => r.kind).reverse();

describe('check and discover', () => {
  it('check proves the key with GET /v1/account; a wrong key fails in plain words; discover says to put models', async () => {
    expect(await t.gateway.providerAdmin.check('rep')).toMatchObject({ ok: true, message: expect.stringMatching(/account emulator/), facts: expect.arrayContaining([{ label: 'Account', value: 'emulator' }, { label: 'Account type', value: 'user' }]) });
    expect(rep.requests.at(-1)).toMatchObject({ route: 'GET account', headers: expect.objectContaining({ authorization: `Bearer ${rep.apiKey}` }) });
    const wrong = await t.gateway.providerAdmin.check('wrongkey');
    expect(wrong).toMatchObject({ ok: false, message: expect.stringMatching(/refused the gateway.s credentials/) });
    await expect(t.gateway.providerAdmin.discover('rep')).rejects.toThrow(/mgw models put ID --provider rep --upstream-model OWNER\/NAME/);
  });
});

describe('images', () => {
  it('generate on an official model: sync mode with the default template, the output fetched with the key, billed by the estimate', async () => {
    const before = await t.gateway.billing.view(key.accountId);
    const entry = (await t.gateway.catalog.find('rep/flux-schnell'))!;
    const result = await sdk().images.generate({ model: 'rep/flux-schnell', prompt: 'a lighthouse at dusk', size: '1536x1024' });
    expect(await decodeB64(result.data![0]!.b64_json!)).toMatchObject({ format: 'png' });
    const sent = lastCreation(rep);
    expect(sent.path).toBe('/v1/models/black-forest-labs/flux-schnell/predictions');
    expect(sent.headers).toMatchObject({ prefer: 'wait=60', 'cancel-after': '300s', authorization: `Bearer ${rep.apiKey}` });
    expect(sent.body).toEqual({ input: { prompt: 'a lighthouse at dusk', aspect_ratio: '3:2', seed: expect.any(Number) } });
    expect(rep.requests.at(-1)).toMatchObject({ route: 'GET output', headers: expect.objectContaining({ authorization: `Bearer ${rep.apiKey}` }) });
    // No poll: the sync answer carried the output.
    expect(rep.requests.filter((r) => r.route === 'GET prediction')).toHaveLength(0);
    await sdk().images.generate({ model: 'rep/flux-schnell', prompt: 'a lighthouse at dusk', size: '1536x1024' });
    expect(lastCreation(rep).body.input.seed).not.toBe(sent.body.input.seed);
    const cost = tokenCostNano(entry.record.pricing, estimateImageUsage({ model: entry.record, upstreamModel: entry.routes[0]!.upstreamModel, prompt: 'a lighthouse at dusk', width: 1536, height: 1024, sizeGiven: true, workflow: null }));
    expect((result.usage as unknown as { cost_usd: string }).cost_usd).toBe(formatUsd(cost));
    const after = await t.gateway.billing.view(key.accountId);
    expect(Math.round((Number(before.balance_usd) - Number(after.balance_usd)) * 1e9)).toBe(2 * cost);
    expect(await holds()).toBe(0);
  });

  it('a prediction sync mode hands back unfinished (202) is polled to its end, a passing 503 of a poll retried', async () => {
    Object.assign(rep.behaviour, { durationMs: 600, syncWaitMs: 20 });
    rep.inject('GET prediction', { status: 503, times: 1 });
    try {
      const result = await sdk().images.generate({ model: 'rep/flux-schnell', prompt: 'slow', size: '1024x1024' });
      expect(result.data).toHaveLength(1);
      const id = rep.last()!.id;
      expect(rep.requests.filter((r) => r.route === 'GET prediction' && r.path.endsWith(id)).length).toBeGreaterThanOrEqual(2);
    } finally {
      Object.assign(rep.behaviour, { durationMs: 1, syncWaitMs: null });
    }
  });

  it('files handed out before the status says succeeded (201, processing) are taken without polling', async () => {
    Object.assign(rep.behaviour, { durationMs: 400, filesBeforeSucceeded: true });
    try {
      const polls = rep.requests.filter((r) => r.route === 'GET prediction').length;
      const result = await sdk().images.generate({ model: 'rep/flux-schnell', prompt: 'early files', size: '1024x1024' });
      expect(result.data).toHaveLength(1);
      expect(rep.requests.filter((r) => r.route === 'GET prediction')).toHaveLength(polls);
    } finally {
      Object.assign(rep.behaviour, { durationMs: 1, filesBeforeSucceeded: false });
    }
  });

  it('edit with three references: small ones inline as data: URLs, a large one through the Files API (deleted after), the first one\u2019s shape kept', async () => {
    const files = [await toFile(await makeImage(64, 48), 'a.png', { type: 'image/png' }), await toFile(await makeImage(32, 32, 'jpeg'), 'b.jpg', { type: 'image/jpeg' }), await toFile(await uncompressedPng(400, 300), 'c.png', { type: 'image/png' })];
    const result = await sdk().images.edit({ model: 'rep/seedream-4', image: files, prompt: 'make it snow' });
    expect(await decodeB64(result.data![0]!.b64_json!)).toEqual({ format: 'png', width: 64, height: 48 });
    const upload = rep.requests.filter((r) => r.route === 'POST files').at(-1)!;
    expect(upload.files!.find((f) => f.field === 'content')).toMatchObject({ name: 'c.png', type: 'image/png' });
    const fileId = [...rep.deletedFiles].at(-1);
    const { input } = lastCreation(rep).body;
    expect(input).toMatchObject({ prompt: 'make it snow', aspect_ratio: 'match_input_image', seed: expect.any(Number) });
    const refs = input.image_input as string[];
    expect(refs[0]).toMatch(/^data:image\/png;base64,iVBOR/);
    expect(refs[1]).toMatch(/^data:image\/jpeg;base64,\/9j\//);
    expect(refs[2]).toBe(`${rep.origin}/v1/files/${fileId}`);
    await waitFor(async () => rep.files.size === 0 || null);
    // With a size, its ratio.
    await sdk().images.edit({ model: 'rep/seedream-4', image: files[0]!, prompt: 'make it rain', size: '1536x1024' });
    expect(lastCreation(rep).body.input).toMatchObject({ aspect_ratio: '3:2', image_input: [expect.stringMatching(/^data:image\/png/)] });
    expect(await holds()).toBe(0);
  });

  it('an owner\u2019s template (Flux Kontext): its inputs as written, placeholders filled', async () => {
    await sdk().images.edit({ model: 'rep/kontext', image: await toFile(await makeImage(64, 64), 'k.png', { type: 'image/png' }), prompt: 'ink drawing', size: '1024x1024' });
    expect(lastCreation(rep).body).toEqual({ input: { prompt: 'ink drawing', input_image: expect.stringMatching(/^data:image\/png;base64,/), aspect_ratio: '1:1', seed: expect.any(Number), output_format: 'png' } });
  });

  it('an edit without a size keeps the first reference\u2019s: an owner\u2019s template gets its {{aspect_ratio}}, {{width}} and {{height}}, not the model\u2019s default size', async () => {
    const reference = await toFile(await makeImage(384, 256), 'r.png', { type: 'image/png' });
    await sdk().images.edit({ model: 'rep/kontext', image: reference, prompt: 'ink drawing' });
    expect(lastCreation(rep).body.input).toMatchObject({ aspect_ratio: '3:2' });
    await sdk().images.edit({ model: 'rep/redux', image: reference, prompt: 'ink drawing' });
    expect(lastCreation(rep).body.input).toMatchObject({ image_prompt: expect.stringMatching(/^data:image\/png;base64,/), aspect_ratio: 'custom', width: 384, height: 256 });
    // With a size, the size asked.
    await sdk().images.edit({ model: 'rep/redux', image: reference, prompt: 'ink drawing', size: '1024x1024' });
    expect(lastCreation(rep).body.input).toMatchObject({ width: 1024, height: 1024 });
  });

  it('a community model by owner/name:version and by its bare version id: POST /v1/predictions with the version', async () => {
    for (const model of ['rep/sdxl', 'rep/sdxl-id']) {
      await sdk().images.generate({ model, prompt: 'a red boat', size: '1024x1024' });
      expect(lastCreation(rep)).toMatchObject({ path: '/v1/predictions', body: { version: VERSION, input: { prompt: 'a red boat', width: 1024, height: 1024, seed: expect.any(Number) } } });
    }
  });

  it('a template that does not fit is refused when the model is put, naming the template', async () => {
    const record = (await t.gateway.catalog.find('rep/flux-schnell'))!.record;
    const put = (workflow: unknown) => t.gateway.catalog.put({ record, providerId: 'rep', upstreamModel: 'black-forest-labs/flux-schnell', workflow });
    await expect(put({ input: { prompt: '{{prompt}}' } })).rejects.toMatchObject({ param: 'template', message: expect.stringMatching(/inside "input"/) });
    await expect(put({ prompt: '{{prompt}}', image: '{{image_1}}' })).rejects.toMatchObject({ param: 'template', message: expect.stringMatching(/allows none/) });
    await expect(put({ prompt: '{{promt}}' })).rejects.toMatchObject({ param: 'template' });
  });

  const faults = replicateCreateFaultCases(SECRET).map(([name, fault, status, code]) => ({ name, fault, status, code }));
  it.each(faults)('creation answered with $name: $status $code in gateway words, nothing of Replicate\u2019s body', async ({ name, fault, status, code }) => {
    rep.inject('POST model predictions', { ...fault, times: 1 });
    const raw = await postJson(`${t.baseUrl}/images/generations`, { model: 'rep/flux-schnell', prompt: 'x', size: '1024x1024' }, key.token);
    expect(raw.status).toBe(status);
    expect(errorOf(raw).code).toBe(code);
    expect(JSON.stringify(raw.body)).not.toContain(SECRET);
    if (status === 429) expect(raw.headers.get('retry-after')).toBe('7');
    if (name === '422 with invalid_fields') expect(errorOf(raw).message).toBe('Replicate refused the model\u2019s input: aspect_ratio (not one of the values it takes), an input the model requires is missing.');
    expect(await holds()).toBe(0);
  });

  it('an input the model refuses (a template\u2019s exact ratio Kontext does not take), a failed prediction, a wrong owner key, a reference too large to upload, an output that is gone: in gateway words', async () => {
    const reference = await toFile(await makeImage(64, 64), 'k.png', { type: 'image/png' });
    const ratio = await sdkRefusal(sdk().images.edit({ model: 'rep/kontext', image: reference, prompt: 'x', size: '1000x700' as never }));
    expect(ratio).toMatchObject({ status: 400, code: 'upstream_bad_request', message: 'Replicate refused the model\u2019s input: aspect_ratio (not one of the values it takes).' });
    // The default input sends the nearest common ratio instead.
    await sdk().images.generate({ model: 'rep/flux-schnell', prompt: 'x', size: '1000x700' as never });
    expect(lastCreation(rep).body.input.aspect_ratio).toBe('3:2');
    rep.behaviour.fail = `NSFW content detected ${SECRET}`;
    try {
      const failed = await sdkRefusal(sdk().images.generate({ model: 'rep/flux-schnell', prompt: 'x', size: '1024x1024' }));
      expect(failed).toMatchObject({ status: 400, code: 'upstream_bad_request', message: 'Replicate could not generate this image (the model failed).' });
      expect(failed.raw).not.toContain(SECRET);
    } finally {
      rep.behaviour.fail = false;
    }
    expect(await sdkRefusal(sdk().images.generate({ model: 'wrongkey/flux', prompt: 'x', size: '1024x1024' }))).toMatchObject({ status: 503, code: 'upstream_unavailable' });
    for (const [status, message] of [['canceled', /cancelled the prediction/], ['aborted', /aborted the prediction before it ran/]] as const) {
      rep.inject('POST model predictions', { status: 201, body: JSON.stringify({ id: 'p-ended', status, output: null, error: SECRET }), times: 1 });
      expect(await sdkRefusal(sdk().images.generate({ model: 'rep/flux-schnell', prompt: 'x', size: '1024x1024' }))).toMatchObject({ status: 503, code: 'upstream_unavailable', message: expect.stringMatching(message) });
    }
    rep.inject('POST files', { status: 413, body: SECRET, times: 1 });
    const large = await toFile(await uncompressedPng(400, 300), 'big.png', { type: 'image/png' });
    expect(await sdkRefusal(sdk().images.edit({ model: 'rep/seedream-4', image: large, prompt: 'x' }))).toMatchObject({ status: 400, code: 'upstream_bad_request', message: 'Replicate refused a reference image as too large.' });
    rep.inject('GET output', { status: 404, body: SECRET, times: 1 });
    expect(await sdkRefusal(sdk().images.generate({ model: 'rep/flux-schnell', prompt: 'x', size: '1024x1024' }))).toMatchObject({ status: 502, code: 'upstream_invalid_response' });
    rep.inject('GET output', { status: 503, times: 1 });
    expect(await sdkRefusal(sdk().images.generate({ model: 'rep/flux-schnell', prompt: 'x', size: '1024x1024' }))).toMatchObject({ status: 503, code: 'upstream_unavailable' });
    expect(await holds()).toBe(0);
  });

  it('the client leaving during the sync wait: the prediction is cancelled once its id is known, the hold released', async () => {
    const abort = new AbortController();
    const before = slow.predictions.size;
    const call = sdk().images.generate({ model: 'slow/flux', prompt: 'never mind', size: '1024x1024' }, { signal: abort.signal }).catch((e: unknown) => e);
    const prediction = await waitFor(async () => (slow.predictions.size > before ? slow.last()! : null));
    abort.abort();
    await call;
    await waitFor(async () => slow.cancelCalls.includes(prediction.id) || null);
    expect(prediction.status).toBe('canceled');
    expect(logs.some((l) => l.message?.includes('ended during its sync wait'))).toBe(true);
    await waitFor(async () => (await holds()) === 0 || null);
  });

  it('the provider\u2019s timeout (2 s): 503 in plain words, the prediction cancelled, Cancel-After as its backstop', async () => {
    const refused = await sdkRefusal(sdk().images.generate({ model: 'slow/flux', prompt: 'too slow', size: '1024x1024' }));
    expect(refused).toMatchObject({ status: 503, code: 'upstream_unavailable', message: 'Replicate did not finish the image within the provider\u2019s timeout.' });
    const prediction = slow.last()!;
    expect(prediction.created.prefer).toBe('wait=2');
    expect(prediction.cancelAfterMs).toBe(5_000);
    expect(slow.cancelCalls).toContain(prediction.id);
    expect(prediction.status).toBe('canceled');
    expect(await holds()).toBe(0);
  });
});

describe('videos', () => {
  it('text-to-video: a task with the default template, its MP4 copied at completion and served by the gateway (Range too); held, then charged once', async () => {
    const created = await createVideo('rep/seedance');
    const id = await predictionOf(created.id);
    const sent = rep.requests.find((r) => r.route === 'POST model predictions' && JSON.parse(r.body.toString()).input.prompt === 'waves on a pier')!;
    expect(sent.path).toBe('/v1/models/bytedance/seedance-1-pro/predictions');
    expect(sent.headers.prefer).toBeUndefined();
    expect(JSON.parse(sent.body.toString())).toEqual({ input: { prompt: 'waves on a pier', duration: 5, aspect_ratio: '16:9' } });
    const done = await ended(created.id);
    expect(done).toMatchObject({ status: 'completed', progress: 100, cost_usd: '0.50000000' });
    expect(await money(created.id)).toEqual(['reserve', 'consume']);
    expect(rep.requests.find((r) => r.route === 'GET output' && r.path.includes(id))!.headers.authorization).toBe(`Bearer ${rep.apiKey}`);
    const content = await sdk().videos.downloadContent(created.id);
    expect(content.headers.get('content-type')).toBe('video/mp4');
    const file = join(dir, `${created.id}.mp4`);
    writeFileSync(file, Buffer.from(await content.arrayBuffer()));
    expect(ffprobe(file)).toMatchObject({ codec: 'h264', width: 1280, height: 720 });
    const range = await fetch(`${t.baseUrl}/videos/${created.id}/content`, { headers: { ...auth(), range: 'bytes=0-99' } });
    expect(range.status).toBe(206);
    expect((await range.arrayBuffer()).byteLength).toBe(100);
  });

  it('image-to-video: a small reference inline (an owner\u2019s Kling template), a large one through the Files API (the default template\u2019s image)', async () => {
    const small = await toFile(await makeImage(128, 72, 'jpeg'), 'start.jpg', { type: 'image/jpeg' });
    const large = await toFile(await uncompressedPng(400, 225), 'start.png', { type: 'image/png' });
    const [kling, seedance] = await Promise.all([createVideo('rep/kling', { input_reference: small }), createVideo('rep/seedance', { input_reference: large, seconds: '10' })]);
    const [klingId, seedanceId] = await Promise.all([predictionOf(kling.id), predictionOf(seedance.id)]);
    expect(rep.predictions.get(klingId)!.input).toEqual({ prompt: 'waves on a pier', start_image: expect.stringMatching(/^data:image\/jpeg;base64,\/9j\//), duration: 5 });
    expect(rep.predictions.get(seedanceId)!.input).toEqual({ prompt: 'waves on a pier', duration: 10, aspect_ratio: '16:9', image: expect.stringMatching(new RegExp(`^${rep.origin}/v1/files/`)) });
    expect(rep.predictions.get(seedanceId)!.inputFiles[0]!.bytes.length).toBe(large.size);
    expect((await ended(kling.id)).status).toBe('completed');
    expect((await ended(seedance.id)).status).toBe('completed');
  });

  it('cancel: the prediction is cancelled upstream (POST .../cancel), the hold released; its progress came from the model\u2019s logs', async () => {
    const created = await createVideo('slow/seedance');
    const id = await predictionOf(created.id);
    await waitFor(async () => {
      const task = await getTask(created.id);
      return task.status === 'in_progress' && task.progress > 0 ? task : null;
    });
    expect((await request(`${t.baseUrl}/videos/${created.id}`, { method: 'DELETE', headers: auth() })).status).toBe(200);
    await waitFor(async () => slow.cancelCalls.includes(id) || null);
    await waitFor(async () => ((await row(created.id))!.upstream_cancel_until === null) || null);
    expect(slow.predictions.get(id)!.status).toBe('canceled');
    expect(await money(created.id)).toEqual(['reserve', 'release']);
  });

  it('an input the model refuses is refused at creation (400, naming the input); no task, no hold', async () => {
    const before = await holds();
    const refused = await sdkRefusal(createVideo('rep/veo'));
    expect(refused).toMatchObject({ status: 400, code: 'upstream_bad_request', message: 'Replicate refused the model\u2019s input: duration (not one of the values it takes).' });
    expect(await holds()).toBe(before);
  });

  it('a failed prediction, an output that is not an MP4, and one already removed: the task fails in plain words, the hold released', async () => {
    const run = async (behaviour: Partial<ReplicateEmulator['behaviour']>) => {
      const saved = { ...rep.behaviour };
      Object.assign(rep.behaviour, behaviour);
      try {
        const created = await createVideo('rep/seedance');
        await predictionOf(created.id);
        return created.id;
      } finally {
        Object.assign(rep.behaviour, saved);
      }
    };
    // One after the other: each prediction takes the emulator's behaviour as it was at its creation.
    const failed = await run({ fail: `model crashed ${SECRET}` });
    const webm = await run({ videoContainer: 'webm' });
    const removed = await run({ outputTtlMs: 0 });
    expect(await ended(failed)).toMatchObject({ status: 'failed', error: { code: 'generation_failed', message: 'Replicate could not generate this video (the model failed).' } });
    expect(await ended(webm)).toMatchObject({ status: 'failed', error: { message: expect.stringMatching(/produced a WebM video, not an MP4/) } });
    expect(await ended(removed)).toMatchObject({ status: 'failed', error: { message: 'Replicate removed the prediction\u2019s output before the gateway fetched it.' } });
    for (const id of [failed, webm, removed]) {
      expect(await money(id)).toEqual(['reserve', 'release']);
      expect((await row(id))!.output_path).toBeNull();
    }
    expect(JSON.stringify(await getTask(failed))).not.toContain(SECRET);
  });

  it('a prediction cancelled or aborted at Replicate (not by the gateway) fails the task', async () => {
    for (const [status, message] of [['canceled', /cancelled the prediction/], ['aborted', /aborted the prediction before it ran/]] as const) {
      rep.inject('GET prediction', { body: JSON.stringify({ id: 'x', status, output: null, error: null }), times: 1 });
      const created = await createVideo('rep/seedance');
      expect(await ended(created.id)).toMatchObject({ status: 'failed', error: { code: 'generation_failed', message: expect.stringMatching(message) } });
      expect(await money(created.id)).toEqual(['reserve', 'release']);
    }
  });

  it('an output that cannot be fetched: retried with backoff (a passing refusal is survived), then the task fails with its hold released', async () => {
    rep.inject('GET output', { status: 503, times: 2 });
    const survived = await createVideo('rep/seedance');
    expect((await ended(survived.id)).status).toBe('completed');
    rep.inject('GET output', { status: 404, body: SECRET });
    try {
      const lost = await createVideo('rep/seedance');
      expect(await ended(lost.id)).toMatchObject({ status: 'failed', error: { code: 'generation_failed', message: 'The finished video could not be fetched from Replicate.' } });
      expect(await money(lost.id)).toEqual(['reserve', 'release']);
    } finally {
      rep.clearFaults();
    }
  });
});

describe('secrets', () => {
  it('the provider keys never reach a log line', () => {
    const text = JSON.stringify(logs);
    for (const secret of [rep.apiKey, slow.apiKey, 'r8_not-the-right-key']) expect(text).not.toContain(secret);
  });
});
