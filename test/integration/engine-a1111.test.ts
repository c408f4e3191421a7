// The a1111 provider kind (AUTOMATIC1111 and Forge) through a real gateway and the official
// OpenAI SDK, against the loopback emulators of both flavors (test/emulators/a1111-emulator.ts):
// generations and edits, the checkpoint per request, settings from the record, Basic auth, both
// error shapes in gateway words, interrupt when the client leaves, progress, the provider's own
// timeout, check and discover, and billing by the estimate.
import { toFile } from 'openai';
import sharp from 'sharp';
import { sdkRefusal } from '../helpers/http.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelRecord } from '../../shared/api-types.js';
import { formatUsd } from '../../electron/core/billing/money.js';
import { tokenCostNano } from '../../electron/core/billing/pricing.js';
import { estimateImageUsage } from '../../electron/core/providers/image-usage.js';
import { startA1111Emulator, type A1111Emulator } from '../emulators/a1111-emulator.js';
import { startTestGateway, USD, type TestGateway } from '../helpers/gateway.js';
import { decodeB64, makeImage } from '../helpers/images.js';
import { waitFor } from '../helpers/stub-video-provider.js';

const AUTH = 'alice:wonderland';
let t: TestGateway;
let a1: A1111Emulator;
let forge: A1111Emulator;
let key: { id: string; token: string; accountId: string };
const SDXL = 'a1/sd_xl_base_1.0';
const SD15 = 'a1/v1-5-pruned-emaonly';

beforeAll(async () => {
  // The shared upstream client's default whole-call timeout is cut to 300 ms: an engine's
  // generation must be bounded by its provider's timeout, never by that.
  t = await startTestGateway({ upstreamTimeouts: { connectMs: 2_000, totalMs: 300 } });
  a1 = await startA1111Emulator({ flavor: 'a1111', auth: AUTH });
  forge = await startA1111Emulator({ flavor: 'forge' });
  await t.gateway.providerConfigs.add({ id: 'a1', kind: 'a1111', baseUrl: a1.origin, apiKey: AUTH });
  await t.gateway.providerConfigs.add({ id: 'fg', kind: 'a1111', baseUrl: forge.origin });
  await t.gateway.providerConfigs.add({ id: 'a1-wrong', kind: 'a1111', baseUrl: a1.origin, apiKey: 'alice:rabbit' });
  await t.gateway.providerConfigs.add({ id: 'a1-nokey', kind: 'a1111', baseUrl: a1.origin });
  await t.gateway.providerConfigs.add({ id: 'a1-short', kind: 'a1111', baseUrl: a1.origin, apiKey: AUTH, timeoutSeconds: 1 });
  await t.gateway.providerConfigs.add({ id: 'a1-long', kind: 'a1111', baseUrl: a1.origin, apiKey: AUTH, timeoutSeconds: 30 });
  expect((await t.gateway.providerAdmin.discover('a1')).added.sort()).toEqual([SDXL, SD15].sort());
  expect((await t.gateway.providerAdmin.discover('fg')).added).toHaveLength(2);
  key = await t.key('balance', { balanceNano: 50 * USD });
});
afterAll(async () => {
  await t?.close();
  await a1?.close();
  await forge?.close();
});

const sdk = () => t.client(key.token);
const holds = async () => (await t.gateway.billing.activeHolds(key.accountId)).length;
const balance = async () => (await t.gateway.billing.view(key.accountId)).balance_usd;
const authHeader = (k: string) => `Basic ${Buffer.from(k).toString('base64')}`;

/** A copy of a discovered record under another id and provider, with other capabilities. */
async function putVariant(from: string, id: string, providerId: string, capabilities: Record<string, unknown>): Promise<ModelRecord> {
  const entry = (await t.gateway.catalog.find(from))!;
  const record = { ...entry.record, id, owned_by: providerId, capabilities: { ...entry.record.capabilities, ...capabilities } };
  await t.gateway.catalog.put({ record, providerId, upstreamModel: entry.routes[0]!.upstreamModel });
  return record;
}

describe('check and discover', () => {
  it('check reports the engine, its loaded checkpoint and its checkpoints (A1111 with --api-auth, and Forge)', async () => {
    const checked = await t.gateway.providerAdmin.check('a1');
    expect(checked.ok).toBe(true);
    expect(checked.models).toEqual(a1.checkpoints.map((c) => c.title));
    expect(checked.facts).toEqual(
      expect.arrayContaining([
        { label: 'Engine', value: 'AUTOMATIC1111' },
        { label: 'Loaded checkpoint', value: String(a1.options.sd_model_checkpoint) },
        { label: 'Checkpoints', value: '2' },
      ]),
    );
    expect(a1.requests.find((r) => r.path === '/sdapi/v1/options')!.headers.authorization).toBe(authHeader(AUTH));
    expect((await t.gateway.providerAdmin.check('fg')).facts).toContainEqual({ label: 'Engine', value: 'Forge' });
  });

  it("check shows the free VRAM when the engine's /sdapi/v1/memory reports a CUDA GPU", async () => {
    // The emulator serves no /memory (the check tolerates that above); its answer as api.py get_memory builds it.
    const cuda = { system: { free: 8 * 1024 ** 3, used: 16 * 1024 ** 3, total: 24 * 1024 ** 3 }, active: {}, allocated: {}, reserved: {}, inactive: {}, events: {} };
    forge.inject('GET /sdapi/v1/memory', { status: 200, body: JSON.stringify({ ram: { free: 1, used: 1, total: 2 }, cuda }), times: 1 });
    expect((await t.gateway.providerAdmin.check('fg')).facts).toContainEqual({ label: 'Free VRAM', value: '8.0 GiB of 24.0 GiB' });
  });

  it('check fails plainly: wrong credentials, no credentials, no --api, nothing listening', async () => {
    expect(await t.gateway.providerAdmin.check('a1-wrong')).toMatchObject({ ok: false, message: expect.stringMatching(/refused the owner.s credentials.*USER:PASS/) });
    expect(await t.gateway.providerAdmin.check('a1-nokey')).toMatchObject({ ok: false, message: expect.stringMatching(/asks for credentials.*USER:PASS/) });
    forge.inject('GET /sdapi/v1/options', { status: 404, body: '{"detail":"Not Found"}', times: 1 });
    expect(await t.gateway.providerAdmin.check('fg')).toMatchObject({ ok: false, message: expect.stringMatching(/start it with --api/) });
    await t.gateway.providerConfigs.add({ id: 'a1-gone', kind: 'a1111', baseUrl: 'http://127.0.0.1:9' });
    expect(await t.gateway.providerAdmin.check('a1-gone')).toMatchObject({ ok: false, message: expect.stringMatching(/Could not reach the engine at http:\/\/127\.0\.0\.1:9 \(could not connect\)/) });
  });

  it('discover made one image model per checkpoint: the title as upstream model, three references per edit', async () => {
    for (const checkpoint of a1.checkpoints) {
      const entry = (await t.gateway.catalog.find(`a1/${checkpoint.modelName.toLowerCase()}`))!;
      expect(entry.routes[0]!.upstreamModel).toBe(checkpoint.title);
      expect(entry.record.capabilities).toMatchObject({ image_generation: true, image_edit: true, max_reference_images: 3 });
    }
    await expect(t.gateway.providerAdmin.discover('a1-wrong')).rejects.toMatchObject({ code: 'upstream_unavailable', message: expect.stringMatching(/credentials/) });
  });
});

describe('generations', () => {
  it('txt2img with the checkpoint chosen per request, Basic auth, the defaults; the engine keeps its loaded checkpoint', async () => {
    const loaded = a1.options.sd_model_checkpoint;
    const sdxl = a1.checkpoints.find((c) => c.name.startsWith('sd_xl'))!;
    const sd15 = a1.checkpoints.find((c) => c.name.startsWith('v1-5'))!;
    const result = await sdk().images.generate({ model: SDXL, prompt: 'a lighthouse at dusk', size: '1024x1024' });
    expect(await decodeB64(result.data![0]!.b64_json!)).toMatchObject({ format: 'png', width: 1024, height: 1024 });
    expect(a1.txt2img.at(-1)).toMatchObject({ checkpoint: sdxl.title, sampler: 'Euler a', width: 1024, height: 1024, samplingSteps: 20, status: 'done' });
    expect(a1.txt2img.at(-1)!.body).toMatchObject({ steps: 20, cfg_scale: 7, seed: -1, batch_size: 1, n_iter: 1, override_settings: { sd_model_checkpoint: sdxl.title }, override_settings_restore_afterwards: true });
    expect(a1.requests.filter((r) => r.path === '/sdapi/v1/txt2img').at(-1)!.headers.authorization).toBe(authHeader(AUTH));
    await sdk().images.generate({ model: SD15, prompt: 'the same lighthouse', size: '512x512' });
    expect(a1.txt2img.at(-1)!.checkpoint).toBe(sd15.title);
    expect(a1.options.sd_model_checkpoint).toBe(loaded);
  });

  it("steps, cfg scale and sampler come from the model's record", async () => {
    await putVariant(SD15, 'a1/sd15-tuned', 'a1', { steps: 8, cfg_scale: 4.5, sampler: 'DPM++ 2M' });
    await sdk().images.generate({ model: 'a1/sd15-tuned', prompt: 'x', size: '512x512' });
    expect(a1.txt2img.at(-1)).toMatchObject({ sampler: 'DPM++ 2M', samplingSteps: 8 });
    expect(a1.txt2img.at(-1)!.body).toMatchObject({ steps: 8, cfg_scale: 4.5, sampler_name: 'DPM++ 2M' });
  });

  it('Forge: the same request, no key, answered the same way', async () => {
    const result = await sdk().images.generate({ model: 'fg/sd_xl_base_1.0', prompt: 'a harbour', size: '832x1216' });
    expect(await decodeB64(result.data![0]!.b64_json!)).toMatchObject({ width: 832, height: 1216 });
    expect(forge.requests.at(-1)!.headers.authorization).toBeUndefined();
  });

  it('an empty info ("") is tolerated', async () => {
    const empty = await startA1111Emulator({ emptyInfo: true });
    try {
      await t.gateway.providerConfigs.add({ id: 'a1-empty', kind: 'a1111', baseUrl: empty.origin });
      await t.gateway.providerAdmin.discover('a1-empty');
      const result = await sdk().images.generate({ model: 'a1-empty/sd_xl_base_1.0', prompt: 'x', size: '512x512' });
      expect(await decodeB64(result.data![0]!.b64_json!)).toMatchObject({ format: 'png', width: 512, height: 512 });
    } finally {
      await empty.close();
    }
  });

  it('billed once, by the estimate (the engine reports no usage)', async () => {
    const before = await t.gateway.billing.view(key.accountId);
    const entry = (await t.gateway.catalog.find(SDXL))!;
    const prompt = 'a castle on a hill, oil painting';
    const result = await sdk().images.generate({ model: SDXL, prompt, size: '1024x1024' });
    const estimate = estimateImageUsage({ model: entry.record, upstreamModel: entry.routes[0]!.upstreamModel, prompt, width: 1024, height: 1024, sizeGiven: true, workflow: null });
    const cost = tokenCostNano(entry.record.pricing, estimate);
    expect((result.usage as unknown as { cost_usd: string }).cost_usd).toBe(formatUsd(cost));
    const after = await t.gateway.billing.view(key.accountId);
    expect(Math.round((Number(before.balance_usd) - Number(after.balance_usd)) * 1e9)).toBe(cost);
    expect(await holds()).toBe(0);
  });
});

describe('edits', () => {
  const RED = { r: 220, g: 30, b: 30 };
  const GREEN = { r: 30, g: 200, b: 60 };
  const BLUE = { r: 30, g: 60, b: 220 };
  type Colour = typeof RED;
  const solid = (width: number, height: number, background: Colour) => sharp({ create: { width, height, channels: 3, background } });
  /** The mean colour of a region, so a JPEG's ringing at the edges does not decide. */
  const colourOf = async (bytes: Buffer, left: number, width: number, height: number): Promise<Colour> => {
    const { data, info } = await sharp(bytes).extract({ left, top: 0, width, height }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const sum = [0, 0, 0];
    for (let i = 0; i < data.length; i += info.channels) for (let c = 0; c < 3; c++) sum[c]! += data[i + c]!;
    const pixels = info.width * info.height;
    return { r: Math.round(sum[0]! / pixels), g: Math.round(sum[1]! / pixels), b: Math.round(sum[2]! / pixels) };
  };
  const near = (colour: Colour) => ({ r: expect.closeTo(colour.r, -1.5), g: expect.closeTo(colour.g, -1.5), b: expect.closeTo(colour.b, -1.5) });

  it('three references to a discovered model: the engine gets one init image, the three side by side; the answer takes its shape; billed by the estimate', async () => {
    // Three colours, three sizes; the blue one a 300x150 JPEG stored with EXIF orientation 6, a 150x300 portrait.
    const refs = [
      { bytes: await solid(320, 200, RED).png().toBuffer(), name: 'red.png', type: 'image/png' },
      { bytes: await solid(64, 64, GREEN).png().toBuffer(), name: 'green.png', type: 'image/png' },
      { bytes: await solid(300, 150, BLUE).jpeg({ quality: 95 }).withMetadata({ orientation: 6 }).toBuffer(), name: 'blue.jpg', type: 'image/jpeg' },
    ];
    const files = await Promise.all(refs.map((r) => toFile(r.bytes, r.name, { type: r.type })));
    const before = await t.gateway.billing.view(key.accountId);
    const prompt = 'the three of them in one room';
    const count = a1.img2img.length;
    const result = await sdk().images.edit({ model: SD15, prompt, image: files });

    expect(a1.img2img.length).toBe(count + 1);
    const sent = a1.img2img.at(-1)!;
    // Each scaled to the first one's height (200): 320 + 64 * 200/64 + 150 * 200/300.
    const widths = [320, 200, 100];
    expect(sent.body.init_images).toHaveLength(1);
    expect(sent.initImages).toEqual([expect.objectContaining({ width: 620, height: 200 })]);
    const init = Buffer.from(String((sent.body.init_images as unknown[])[0]), 'base64');
    expect(await sharp(init).metadata()).toMatchObject({ format: 'png', width: widths.reduce((a, b) => a + b), height: 200 });
    // Left, middle, right: each reference's colour over its own width (a margin off the seams).
    expect(await colourOf(init, 4, widths[0]! - 8, 200)).toEqual(near(RED));
    expect(await colourOf(init, widths[0]! + 4, widths[1]! - 8, 200)).toEqual(near(GREEN));
    expect(await colourOf(init, widths[0]! + widths[1]! + 4, widths[2]! - 8, 200)).toEqual(near(BLUE));
    // Without a size the edit keeps the collage's shape, in multiples of 8 (620 -> 624).
    expect(sent.body).toMatchObject({ width: 624, height: 200, resize_mode: 1, override_settings: { sd_model_checkpoint: a1.checkpoints.find((c) => c.name.startsWith('v1-5'))!.title } });
    expect(await decodeB64(result.data![0]!.b64_json!)).toMatchObject({ format: 'png', width: 624, height: 200 });

    // Billed once, by the estimate, as every edit on an engine that reports no usage.
    const entry = (await t.gateway.catalog.find(SD15))!;
    const images = refs.map((r) => ({ field: 'image[]', filename: r.name, mime: r.type as 'image/png' | 'image/jpeg', bytes: r.bytes }));
    const estimate = estimateImageUsage({ model: entry.record, upstreamModel: entry.routes[0]!.upstreamModel, prompt, width: 1024, height: 1024, sizeGiven: false, workflow: null, images });
    const cost = tokenCostNano(entry.record.pricing, estimate);
    expect((result.usage as unknown as { cost_usd: string }).cost_usd).toBe(formatUsd(cost));
    const after = await t.gateway.billing.view(key.accountId);
    expect(Math.round((Number(before.balance_usd) - Number(after.balance_usd)) * 1e9)).toBe(cost);
    expect(await holds()).toBe(0);
  });

  it('a fourth reference is refused before the engine, nothing charged', async () => {
    const files = await Promise.all([1, 2, 3, 4].map(async (i) => toFile(await makeImage(64, 64), `r${i}.png`, { type: 'image/png' })));
    const count = a1.img2img.length;
    const before = await balance();
    const refused = await sdkRefusal(sdk().images.edit({ model: SD15, prompt: 'merge', image: files }));
    expect(refused).toMatchObject({ status: 400, code: 'invalid_request', message: expect.stringMatching(/at most 3/i) });
    expect(a1.img2img.length).toBe(count);
    expect(await balance()).toBe(before);
  });

  it("one reference is sent as it came; the output keeps its size unless one is asked; the record's edit strength", async () => {
    await putVariant(SD15, 'a1/sd15-soft', 'a1', { denoising_strength: 0.5 });
    const ref = await makeImage(320, 200);
    const kept = await sdk().images.edit({ model: 'a1/sd15-soft', prompt: 'make it blue', image: await toFile(ref, 'r.png', { type: 'image/png' }) });
    expect(await decodeB64(kept.data![0]!.b64_json!)).toMatchObject({ width: 320, height: 200 });
    const sent = a1.img2img.at(-1)!;
    expect(sent.body.init_images).toEqual([ref.toString('base64')]);
    expect(sent.body).toMatchObject({ denoising_strength: 0.5, width: 320, height: 200 });
    const sized = await sdk().images.edit({ model: 'a1/sd15-soft', prompt: 'make it blue', image: await toFile(ref, 'r.png', { type: 'image/png' }), size: '512x512' });
    expect(await decodeB64(sized.data![0]!.b64_json!)).toMatchObject({ width: 512, height: 512 });
  });
});

describe('refusals in gateway words', () => {
  it('wrong credentials: 503 saying the owner must fix them; nothing charged', async () => {
    await putVariant(SD15, 'a1-wrong/sd15', 'a1-wrong', {});
    const before = await balance();
    const refused = await sdkRefusal(sdk().images.generate({ model: 'a1-wrong/sd15', prompt: 'x', size: '512x512' }));
    expect(refused).toMatchObject({ status: 503, code: 'upstream_unavailable', message: expect.stringMatching(/credentials.*--api-auth/) });
    expect(refused.raw).not.toMatch(/Incorrect username|HTTPException/);
    expect(await balance()).toBe(before);
  });

  it.each([
    ['a1111', 500, 'exception', { exceptionType: 'OutOfMemoryError' }, 503, 'upstream_unavailable', /ran out of GPU memory/],
    ['forge', 500, 'exception', { exceptionType: 'RuntimeError', detail: 'Expected all tensors to be on the same device' }, 503, 'upstream_unavailable', /failed while generating/],
    ['a1111', 422, 'validation', {}, 400, 'upstream_bad_request', /the field "steps" is invalid \(type_error\.integer\)/],
    ['forge', 422, 'validation', {}, 400, 'upstream_bad_request', /the field "steps" is invalid \(int_parsing\)/],
    ['a1111', 404, 'http', { detail: 'Not Found' }, 503, 'upstream_unavailable', /start it with --api/],
    ['forge', 404, 'http', { detail: 'Not Found' }, 503, 'upstream_unavailable', /start it with --api/],
    ['forge', 400, 'http', { detail: 'Sampler not found' }, 400, 'upstream_bad_request', /no sampler "Euler a".*capabilities\.sampler/],
  ] as const)('%s %i (%s) -> %i %s', async (flavor, status, kind, options, wantStatus, wantCode, wantMessage) => {
    const engine = flavor === 'forge' ? forge : a1;
    engine.failNext(status, kind, options);
    const refused = await sdkRefusal(sdk().images.generate({ model: flavor === 'forge' ? 'fg/v1-5-pruned-emaonly' : SD15, prompt: 'x', size: '512x512' }));
    expect(refused).toMatchObject({ status: wantStatus, code: wantCode, message: expect.stringMatching(wantMessage) });
    // None of the engine's own text reaches the client.
    expect(refused.raw).not.toMatch(/HTTPException|CUDA|tensors|Input should|value is not|twenty|"detail"|"loc"/);
    expect(await holds()).toBe(0);
  });

  it('an engine that is down: 503 upstream_unavailable', async () => {
    await forge.down();
    try {
      const refused = await sdkRefusal(sdk().images.generate({ model: 'fg/v1-5-pruned-emaonly', prompt: 'x', size: '512x512' }));
      expect(refused).toMatchObject({ status: 503, code: 'upstream_unavailable', message: expect.stringMatching(/could not connect/) });
    } finally {
      await forge.up();
    }
  });
});

describe('long runs', () => {
  it('the client going away interrupts the engine, and the hold is released uncharged', async () => {
    const before = await balance();
    const interrupts = a1.interrupts;
    const gate = a1.holdAt(3);
    const controller = new AbortController();
    const call = sdk().images.generate({ model: SD15, prompt: 'a slow one', size: '512x512' }, { signal: controller.signal });
    call.catch(() => undefined);
    await gate.reached;
    expect(await holds()).toBe(1);
    controller.abort();
    await expect(call).rejects.toThrow();
    await waitFor(async () => a1.interrupts > interrupts);
    gate.release();
    await waitFor(async () => (await holds()) === 0);
    await waitFor(async () => a1.txt2img.at(-1)!.status === 'done');
    expect(a1.txt2img.at(-1)).toMatchObject({ interrupted: true });
    expect(a1.requests.filter((r) => r.path === '/sdapi/v1/interrupt').at(-1)!.headers.authorization).toBe(authHeader(AUTH));
    expect(await balance()).toBe(before);
  });

  it('progress is reported while the engine samples, never backwards, 100 at the end', async () => {
    const principal = await t.gateway.keys.authenticate(key.token);
    const seen: number[] = [];
    const gate = a1.holdAt(10);
    const run = t.gateway.images.generate(principal, { model: SD15, prompt: 'watch me', size: '512x512', onProgress: (p) => seen.push(p) });
    await gate.reached;
    // Held at step 10 of 20: the engine says 0.01 + 10/20.
    await waitFor(async () => seen.some((p) => p >= 50));
    gate.release();
    await run;
    expect(seen.at(-1)).toBe(100);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(a1.requests.some((r) => r.path === '/sdapi/v1/progress?skip_current_image=true')).toBe(true);
  });

  it("a generation longer than the client's default timeout runs to its end under the provider's timeout; a shorter provider timeout cuts it and interrupts", async () => {
    // 20 steps of 50 ms: a second of engine time, against the 300 ms default of the shared client.
    a1.setStepDelay(50);
    try {
      await putVariant(SD15, 'a1-long/sd15', 'a1-long', {});
      const long = await sdk().images.generate({ model: 'a1-long/sd15', prompt: 'a slow one', size: '512x512' });
      expect(await decodeB64(long.data![0]!.b64_json!)).toMatchObject({ width: 512, height: 512 });
      // No owner timeout: the kind's default (600 s) bounds it.
      const standard = await sdk().images.generate({ model: SD15, prompt: 'a slow one', size: '512x512' });
      expect(standard.data).toHaveLength(1);
    } finally {
      a1.setStepDelay(0);
    }
    // Held past its 1 s timeout: cut, the engine interrupted, nothing charged.
    await putVariant(SD15, 'a1-short/sd15', 'a1-short', {});
    const before = await balance();
    const interrupts = a1.interrupts;
    const gate = a1.holdAt(2);
    const refused = await sdkRefusal(sdk().images.generate({ model: 'a1-short/sd15', prompt: 'too slow', size: '512x512' }));
    expect(refused).toMatchObject({ status: 503, code: 'upstream_unavailable', message: expect.stringMatching(/within the provider.s timeout \(1 s\)/) });
    expect(gate.wasReached).toBe(true);
    expect(a1.interrupts).toBe(interrupts + 1);
    gate.release();
    await waitFor(async () => a1.txt2img.at(-1)!.status === 'done');
    expect(await balance()).toBe(before);
  });
});
