// ComfyUI behind the gateway, end to end: a real gateway on a temp data dir, the ComfyUI emulator
// on loopback (its websocket, queue, history and faults), and the official openai SDK. Images
// from discovered checkpoints and from an owner's workflow, video workflows to a playable MP4,
// every error mapping, cancel, a gateway restart and an engine restart mid-task, the websocket
// dropping mid-run, and billing. Waits are on states and emulator gates, never on the clock.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { APIError, toFile } from 'openai';
import type { ModelRecord, VideoTask } from '../../shared/api-types.js';
import { tokenCostNano } from '../../electron/core/billing/pricing.js';
import { estimateImageUsage } from '../../electron/core/providers/image-usage.js';
import { ComfyUIProvider } from '../../electron/core/providers/comfyui/comfyui-provider.js';
import { UpstreamClient } from '../../electron/core/providers/upstream/upstream-client.js';
import { silentLogger } from '../../electron/core/logger.js';
import { engineImageRecord } from '../../electron/core/providers/engine-records.js';
import { startComfyUIEmulator, type ComfyUIEmulator } from '../emulators/comfyui-emulator.js';
import { portraitWorkflow } from '../helpers/comfy-workflows.js';
import { probeMp4 } from '../helpers/emulator-checks.js';
import { startTestGateway, USD, type TestGateway } from '../helpers/gateway.js';
import { decodeB64, makeImage } from '../helpers/images.js';
import { waitFor } from '../helpers/stub-video-provider.js';

const SD15 = 'comfy/v1-5-pruned-emaonly-fp16';
const LTX = 'ltx-video-2b-v0.9.5.safetensors';

let comfy: ComfyUIEmulator;
let t: TestGateway;
let key: { id: string; token: string; accountId: string };
/** What the first discovery added (every test can then use the discovered models on its own). */
let discovered: { added: string[] };

beforeAll(async () => {
  comfy = await startComfyUIEmulator({ stepDelayMs: 1, previews: true });
  t = await startTestGateway();
  await t.gateway.providerConfigs.add({ id: 'comfy', kind: 'comfyui', baseUrl: comfy.origin });
  discovered = await t.gateway.providerAdmin.discover('comfy');
  key = await t.key('balance', { balanceNano: 100 * USD });
});
afterAll(async () => {
  await t?.close();
  await comfy?.close();
});
afterEach(() => comfy.clearFaults());

type Node = { class_type: string; inputs: Record<string, unknown> };
const promptNodes = (index = -1) => {
  const recorded = comfy.prompts.at(index)!;
  return { prompt: recorded.prompt as Record<string, Node>, client_id: recorded.client_id ?? '', prompt_id: recorded.prompt_id };
};
const ofClass = (prompt: Record<string, Node>, classType: string) => Object.values(prompt).filter((node) => node.class_type === classType);
const balanceNano = async () => Math.round(Number((await t.gateway.billing.view(key.accountId)).balance_usd) * USD);
const activeHolds = async () => (await t.gateway.store.db.selectFrom('holds').select('status').where('status', '=', 'active').execute()).length;
/** The gateway's own error message (the SDK's message puts the status in front). */
const messageOf = (error: APIError): string => (error.error as { message: string }).message;
const refusal = async (work: Promise<unknown>): Promise<APIError> => {
  try {
    await work;
  } catch (error) {
    if (error instanceof APIError) return error;
    throw error;
  }
  throw new Error('the request succeeded');
};

function baseRecord(id: string, capabilities: ModelRecord['capabilities']): ModelRecord {
  return {
    id, object: 'model', created: 0, owned_by: 'comfy', tier: 'turbo', model_type: 'image', pricing_mode: 'token',
    pricing: { input: 0.5, output: 4, currency: 'USD', unit: '1M tokens' },
    modalities: { input: ['text', 'image'], output: ['image'] }, context_window: { tokens: 32_768, chars: 32_000 },
    usage_based_only: false, stream: false, json_mode: false, reasoning: false, tools_calling: false, capabilities,
  };
}

function videoRecord(id: string): ModelRecord {
  return {
    ...baseRecord(id, { video_generation: true, video_async: true, supported_seconds: [2], supported_sizes: ['512x512'], max_reference_images: 0, max_task_seconds: 300, fps: 16 }),
    tier: 'pro', model_type: 'video', pricing_mode: 'second', pricing: { price: 0.05, currency: 'USD', unit: 'second' },
    modalities: { input: ['text'], output: ['video'] }, context_window: { tokens: null, chars: 32_000 }, usage_based_only: true,
  };
}

/** Prompt, video latent of {{frames}}, sampler and decode; `output` saves the decoded frames. */
function videoWorkflow(output: Record<string, Node>): Record<string, Node> {
  return {
    '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: LTX } },
    '6': { class_type: 'CLIPTextEncode', inputs: { text: '{{prompt}}', clip: ['4', 1] } },
    '7': { class_type: 'CLIPTextEncode', inputs: { text: '', clip: ['4', 1] } },
    '5': { class_type: 'EmptyHunyuanLatentVideo', inputs: { width: '{{width}}', height: '{{height}}', length: '{{frames}}', batch_size: 1 } },
    '3': { class_type: 'KSampler', inputs: { seed: '{{seed}}', steps: 10, cfg: 6, sampler_name: 'euler', scheduler: 'normal', denoise: 1, model: ['4', 0], positive: ['6', 0], negative: ['7', 0], latent_image: ['5', 0] } },
    '8': { class_type: 'VAEDecode', inputs: { samples: ['3', 0], vae: ['4', 2] } },
    ...output,
  };
}

const VIDEO_OUTPUTS: Record<string, Record<string, Node>> = {
  SaveVideo: {
    '10': { class_type: 'CreateVideo', inputs: { images: ['8', 0], fps: '{{fps}}' } },
    '9': { class_type: 'SaveVideo', inputs: { video: ['10', 0], filename_prefix: 'video/mgw', format: 'mp4', codec: 'h264' } },
  },
  VHS_VideoCombine: {
    '9': { class_type: 'VHS_VideoCombine', inputs: { images: ['8', 0], frame_rate: '{{fps}}', loop_count: 0, filename_prefix: 'mgw', format: 'video/h264-mp4', pingpong: false, save_output: true } },
  },
  SaveWEBM: {
    '9': { class_type: 'SaveWEBM', inputs: { images: ['8', 0], filename_prefix: 'mgw', codec: 'vp9', fps: '{{fps}}', crf: 32 } },
  },
};

async function putVideoModel(id: string, output: keyof typeof VIDEO_OUTPUTS): Promise<void> {
  await t.gateway.catalog.put({ record: videoRecord(id), providerId: 'comfy', upstreamModel: id.split('/')[1]!, workflow: videoWorkflow(VIDEO_OUTPUTS[output]!) });
}

const createVideo = (model: string) => t.client(key.token).videos.create({ model: model as never, prompt: 'waves at dusk', seconds: '2' as never, size: '512x512' as never });
const untilEnded = (id: string) =>
  waitFor(async () => {
    const row = await t.gateway.videoTasks.get(id);
    return row && !['queued', 'in_progress'].includes(row.status) ? row : null;
  }, 25_000);
const holdOf = async (holdId: string) => t.gateway.store.db.selectFrom('holds').select(['status', 'amount_nano']).where('id', '=', holdId).executeTakeFirstOrThrow();

describe('owner operations', () => {
  it('check reports what ComfyUI says about itself; discover adds one model per checkpoint', async () => {
    const check = await t.gateway.providerAdmin.check('comfy');
    expect(check.ok).toBe(true);
    expect(check.message).toMatch(/^Connected: ComfyUI \d+\.\d+\.\d+ on .+\.$/);
    const labels = check.facts.map((fact) => fact.label);
    expect(labels).toEqual(expect.arrayContaining(['ComfyUI', 'Python', 'GPU', 'VRAM', 'Checkpoints']));
    expect(check.facts.find((f) => f.label === 'VRAM')!.value).toMatch(/^[\d.]+ [KMGT]?B free of [\d.]+ [KMGT]?B$/);
    expect(check.facts.find((f) => f.label === 'GPU')!.value).not.toMatch(/cuda:\d|cudaMallocAsync/);
    expect(check.models).toContain('v1-5-pruned-emaonly-fp16.safetensors');

    expect(discovered.added.sort()).toEqual(['comfy/ltx-video-2b-v0.9.5', 'comfy/sd_xl_base_1.0', SD15]);
    expect((await t.gateway.providerAdmin.discover('comfy')).added).toEqual([]);
    const entry = (await t.gateway.catalog.find(SD15))!;
    expect(entry.routes[0]!.upstreamModel).toBe('v1-5-pruned-emaonly-fp16.safetensors');
    expect(entry.record.capabilities).toMatchObject({ image_generation: true, image_edit: true, max_reference_images: 3 });
  });

  it.each(['list', 'combo'] as const)('discovers from /object_info in the %s combo form when /models/checkpoints is not there', async (comboForm) => {
    const old = await startComfyUIEmulator({ modelsRoute: false, comboForm, checkpoints: ['SDXL/Juggernaut XL.safetensors', 'dream.ckpt'] });
    try {
      const id = `old-${comboForm}`;
      await t.gateway.providerConfigs.add({ id, kind: 'comfyui', baseUrl: old.origin });
      const found = await t.gateway.providerAdmin.discover(id);
      expect(found.added.sort()).toEqual([`${id}/dream`, `${id}/sdxl-juggernaut-xl`]);
      expect(old.requests.map((r) => r.path)).toEqual(expect.arrayContaining(['/models/checkpoints', '/object_info/CheckpointLoaderSimple']));
      expect((await t.gateway.catalog.find(`${id}/sdxl-juggernaut-xl`))!.routes[0]!.upstreamModel).toBe('SDXL/Juggernaut XL.safetensors');
    } finally {
      await old.close();
    }
  });

  it('an engine that is down fails the check in plain words', async () => {
    const gone = await startComfyUIEmulator();
    await t.gateway.providerConfigs.add({ id: 'gone', kind: 'comfyui', baseUrl: gone.origin });
    await gone.close();
    const check = await t.gateway.providerAdmin.check('gone');
    expect(check).toMatchObject({ ok: false, message: expect.stringMatching(/temporarily unavailable \(could not connect\)/) });
  });
});

describe('images from a discovered checkpoint (built-in workflows)', () => {
  it('generates: the built-in text-to-image workflow, a PNG of the size asked, charged once by the estimate', async () => {
    const before = await balanceNano();
    const result = await t.client(key.token).images.generate({ model: SD15, prompt: 'a red fox in snow', size: '512x512' });
    const decoded = await decodeB64(result.data![0]!.b64_json!);
    expect(decoded).toMatchObject({ format: 'png', width: 512, height: 512 });
    const sent = promptNodes();
    expect(sent.client_id).toMatch(/^[0-9a-f]{32}$/);
    expect(comfy.wsConnections.some((c) => c.clientId === sent.client_id)).toBe(true);
    expect(ofClass(sent.prompt, 'CheckpointLoaderSimple')[0]!.inputs.ckpt_name).toBe('v1-5-pruned-emaonly-fp16.safetensors');
    expect(ofClass(sent.prompt, 'CLIPTextEncode').map((n) => n.inputs.text)).toContain('a red fox in snow');
    expect(ofClass(sent.prompt, 'EmptyLatentImage')[0]!.inputs).toMatchObject({ width: 512, height: 512 });
    expect(typeof ofClass(sent.prompt, 'KSampler')[0]!.inputs.seed).toBe('number');
    const record = (await t.gateway.catalog.find(SD15))!.record;
    const expected = tokenCostNano(record.pricing, estimateImageUsage({ model: record, upstreamModel: '', prompt: 'a red fox in snow', width: 512, height: 512, sizeGiven: true, workflow: null }));
    expect(before - (await balanceNano())).toBe(expected);
    expect(await activeHolds()).toBe(0);
  });

  it('edits with three references: each uploaded, all three loaded by the built-in edit', async () => {
    const images = await Promise.all([
      makeImage(512, 512, 'png').then((b) => toFile(b, 'a.png', { type: 'image/png' })),
      makeImage(640, 480, 'jpeg').then((b) => toFile(b, 'b.jpg', { type: 'image/jpeg' })),
      makeImage(480, 640, 'webp').then((b) => toFile(b, 'c.webp', { type: 'image/webp' })),
    ]);
    const uploadsBefore = comfy.uploads.length;
    const result = await t.client(key.token).images.edit({ model: SD15, prompt: 'make it autumn', image: images, size: '512x512' });
    expect(await decodeB64(result.data![0]!.b64_json!)).toMatchObject({ format: 'png', width: 512, height: 512 });
    const uploaded = comfy.uploads.slice(uploadsBefore);
    expect(uploaded).toHaveLength(3);
    const sent = promptNodes().prompt;
    expect(ofClass(sent, 'LoadImage').map((n) => n.inputs.image)).toEqual(uploaded.map((u) => u.name));
    expect(Number(ofClass(sent, 'KSampler')[0]!.inputs.denoise)).toBeLessThan(1);
  });
});

describe('the adapter itself', () => {
  it("reports an image's progress from the engine's steps, rising to 100", async () => {
    const provider = new ComfyUIProvider({ id: 'direct', baseUrl: comfy.origin, apiKey: () => null, timeoutMs: 60_000 }, new UpstreamClient(silentLogger, () => []), silentLogger);
    try {
      const record = engineImageRecord({ upstreamModel: 'v1-5-pruned-emaonly-fp16.safetensors', name: 'sd15', maxReferenceImages: 3 }, 'direct/sd15', 'direct', 0);
      const seen: number[] = [];
      const outcome = await provider.generateImage({ model: record, upstreamModel: 'v1-5-pruned-emaonly-fp16.safetensors', prompt: 'steps', width: 512, height: 512, sizeGiven: true, workflow: null, onProgress: (p) => seen.push(p) });
      expect((await decodeB64(outcome.bytes.toString('base64'))).format).toBe('png');
      expect(seen.length).toBeGreaterThanOrEqual(5);
      expect(seen.every((value, i) => i === 0 || value > seen[i - 1]!)).toBe(true);
      expect(seen.at(-1)).toBe(100);
      expect(seen.at(-2)).toBeLessThan(100);
    } finally {
      await provider.close();
    }
  });
});

describe("an owner's workflow as a model", () => {
  const ownerEdit = {
    '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'sd_xl_base_1.0.safetensors' } },
    '6': { class_type: 'CLIPTextEncode', inputs: { text: 'masterpiece, {{prompt}}', clip: ['4', 1] } },
    '11': { class_type: 'LoadImage', inputs: { image: '{{image_1}}' } },
    '12': { class_type: 'VAEEncode', inputs: { pixels: ['11', 0], vae: ['4', 2] } },
    '3': { class_type: 'KSampler', inputs: { seed: '{{seed}}', steps: 8, cfg: 5, sampler_name: 'euler', scheduler: 'karras', denoise: 0.5, model: ['4', 0], positive: ['6', 0], negative: ['6', 0], latent_image: ['12', 0] } },
    '8': { class_type: 'VAEDecode', inputs: { samples: ['3', 0], vae: ['4', 2] } },
    '9': { class_type: 'SaveImage', inputs: { images: ['8', 0], filename_prefix: 'owner' } },
    // The other references are shown as previews: loaded and used, the saved image is the result.
    '21': { class_type: 'LoadImage', inputs: { image: '{{image_2}}' } },
    '22': { class_type: 'PreviewImage', inputs: { images: ['21', 0] } },
    '31': { class_type: 'LoadImage', inputs: { image: '{{image_3}}' } },
    '32': { class_type: 'PreviewImage', inputs: { images: ['31', 0] } },
  };
  const editOnly = baseRecord('comfy/owner-edit', { image_edit: true, max_reference_images: 3, supported_sizes: ['512x512'] });

  it('is checked when put: a refusal names what is wrong', async () => {
    const bad = structuredClone(ownerEdit) as Record<string, Node>;
    bad['9']!.inputs.images = ['99', 0];
    await expect(t.gateway.catalog.put({ record: editOnly, providerId: 'comfy', upstreamModel: 'owner-edit', workflow: bad })).rejects.toMatchObject({
      code: 'invalid_request', param: 'workflow', message: 'Node 9 (SaveImage) input "images" is linked to node 99, which is not in the workflow.',
    });
    await expect(t.gateway.catalog.put({ record: { ...editOnly, capabilities: { ...editOnly.capabilities, max_reference_images: 2 } }, providerId: 'comfy', upstreamModel: 'owner-edit', workflow: ownerEdit })).rejects.toMatchObject({
      param: 'workflow', message: expect.stringMatching(/allows 2; set capabilities.max_reference_images to at least 3/),
    });
  });

  it('runs with three references in order; fewer is a 400 on image before anything reaches the engine', async () => {
    await t.gateway.catalog.put({ record: editOnly, providerId: 'comfy', upstreamModel: 'owner-edit', workflow: ownerEdit });
    const files = await Promise.all([1, 2, 3].map(async (i) => toFile(await makeImage(256 + 64 * i, 256, 'png'), `r${i}.png`, { type: 'image/png' })));
    const result = await t.client(key.token).images.edit({ model: 'comfy/owner-edit', prompt: 'a lighthouse', image: files, size: '512x512' });
    expect((await decodeB64(result.data![0]!.b64_json!)).format).toBe('png');
    const sent = promptNodes().prompt;
    expect(sent['6']!.inputs.text).toBe('masterpiece, a lighthouse');
    const names = [sent['11'], sent['21'], sent['31']].map((n) => String(n!.inputs.image));
    expect(names.map((name) => comfy.uploads.find((u) => u.name === name)!.bytes.length)).toEqual(await Promise.all([1, 2, 3].map(async (i) => (await makeImage(256 + 64 * i, 256, 'png')).length)));

    const prompts = comfy.prompts.length;
    const before = await balanceNano();
    const error = await refusal(t.client(key.token).images.edit({ model: 'comfy/owner-edit', prompt: 'x', image: files.slice(0, 2), size: '512x512' }));
    expect({ status: error.status, code: error.code, param: error.param, message: messageOf(error) }).toEqual({
      status: 400, code: 'invalid_request', param: 'image', message: "This model's workflow takes 3 reference images; only 2 were sent, so nothing fills {{image_3}}.",
    });
    expect(comfy.prompts.length).toBe(prompts);
    expect(await balanceNano()).toBe(before);
  });

  it("takes a discovered checkpoint's record as it is, for a workflow of either kind; a request its workflow cannot run is a 400 on image, before the engine", async () => {
    const discoveredRecord = (await t.gateway.catalog.find(SD15))!.record;
    const copy = (id: string): ModelRecord => ({ ...structuredClone(discoveredRecord), id });
    await t.gateway.catalog.put({ record: copy('comfy/edit-copy'), providerId: 'comfy', upstreamModel: 'edit-copy', workflow: ownerEdit });
    await t.gateway.catalog.put({ record: copy('comfy/t2i-copy'), providerId: 'comfy', upstreamModel: 't2i-copy', workflow: portraitWorkflow() });
    const prompts = comfy.prompts.length;
    const uploads = comfy.uploads.length;
    const before = await balanceNano();

    const generation = await refusal(t.client(key.token).images.generate({ model: 'comfy/edit-copy', prompt: 'x', size: '512x512' }));
    expect({ status: generation.status, code: generation.code, param: generation.param, message: messageOf(generation) }).toEqual({
      status: 400, code: 'invalid_request', param: 'image',
      message: 'This model\'s workflow takes 3 reference images; none was sent, so nothing fills {{image_1}}, {{image_2}}, {{image_3}}: a generation carries no image; send them as "image" to /v1/images/edits.',
    });
    const file = await toFile(await makeImage(256, 256, 'png'), 'r.png', { type: 'image/png' });
    const edit = await refusal(t.client(key.token).images.edit({ model: 'comfy/t2i-copy', prompt: 'x', image: file, size: '512x512' }));
    expect({ status: edit.status, code: edit.code, param: edit.param, message: messageOf(edit) }).toEqual({
      status: 400, code: 'invalid_request', param: 'image', message: "This model's workflow takes no reference image (it has no {{image_1}}); 1 was sent.",
    });
    expect({ prompts: comfy.prompts.length, uploads: comfy.uploads.length }).toEqual({ prompts, uploads });
    expect(await balanceNano()).toBe(before);
    expect(await activeHolds()).toBe(0);

    // What each workflow can run, it runs.
    const made = await t.client(key.token).images.generate({ model: 'comfy/t2i-copy', prompt: 'a portrait', size: '512x512' });
    expect((await decodeB64(made.data![0]!.b64_json!)).format).toBe('png');
    expect(promptNodes().prompt['6']!.inputs.text).toBe('a portrait, studio portrait');
  });
});

describe('errors in gateway words', () => {
  it('a prompt the engine refuses is a 400 naming the node and input, the hold released', async () => {
    const before = await balanceNano();
    comfy.refuseNext();
    const error = await refusal(t.client(key.token).images.generate({ model: SD15, prompt: 'x', size: '512x512' }));
    expect({ status: error.status, code: error.code }).toEqual({ status: 400, code: 'upstream_bad_request' });
    expect(messageOf(error)).toMatch(/^ComfyUI refused the workflow: node 4 \(CheckpointLoaderSimple\) input "ckpt_name": Value not in list/);
    expect(await balanceNano()).toBe(before);
    expect(await activeHolds()).toBe(0);
  });

  it("an owner's workflow the engine's validation refuses names the input and the reason", async () => {
    const workflow = {
      '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'v1-5-pruned-emaonly-fp16.safetensors' } },
      '6': { class_type: 'CLIPTextEncode', inputs: { text: '{{prompt}}', clip: ['4', 1] } },
      '5': { class_type: 'EmptyLatentImage', inputs: { width: '{{width}}', height: '{{height}}', batch_size: 1 } },
      '3': { class_type: 'KSampler', inputs: { seed: '{{seed}}', steps: 8, cfg: 5, sampler_name: 'not_a_sampler', scheduler: 'normal', denoise: 1, model: ['4', 0], positive: ['6', 0], negative: ['6', 0], latent_image: ['5', 0] } },
      '8': { class_type: 'VAEDecode', inputs: { samples: ['3', 0], vae: ['4', 2] } },
      '9': { class_type: 'SaveImage', inputs: { images: ['8', 0], filename_prefix: 'x' } },
    };
    await t.gateway.catalog.put({ record: baseRecord('comfy/bad-sampler', { image_generation: true, supported_sizes: ['512x512'] }), providerId: 'comfy', upstreamModel: 'bad', workflow });
    const error = await refusal(t.client(key.token).images.generate({ model: 'comfy/bad-sampler', prompt: 'x', size: '512x512' }));
    expect(error.status).toBe(400);
    expect(messageOf(error)).toMatch(/node 3 \(KSampler\) input "sampler_name": Value not in list \(sampler_name: 'not_a_sampler' not in/);
    expect(messageOf(error).length).toBeLessThan(400);
  });

  it('an engine that is down is a 503', async () => {
    await comfy.down();
    try {
      const error = await refusal(t.client(key.token).images.generate({ model: SD15, prompt: 'x', size: '512x512' }));
      expect({ status: error.status, code: error.code }).toEqual({ status: 503, code: 'upstream_unavailable' });
    } finally {
      await comfy.up();
    }
    expect(await activeHolds()).toBe(0);
  });

  it('an execution error fails the request with the node and exception type only', async () => {
    const before = await balanceNano();
    comfy.failAt(3, 'CUDA out of memory. Tried to allocate 20.00 GiB', { exceptionType: 'torch.OutOfMemoryError' });
    const error = await refusal(t.client(key.token).images.generate({ model: SD15, prompt: 'x', size: '512x512' }));
    expect({ status: error.status, code: error.code }).toEqual({ status: 503, code: 'upstream_unavailable' });
    expect(messageOf(error)).toBe('ComfyUI could not run the workflow: node 3 (KSampler) failed with torch.OutOfMemoryError.');
    expect(await balanceNano()).toBe(before);
  });
});

describe('the event stream is optional', () => {
  it('a websocket dropped mid-run: the request ends through /history', async () => {
    const hold = comfy.holdAt(5);
    const pending = t.client(key.token).images.generate({ model: SD15, prompt: 'dropped', size: '512x512' });
    await hold.reached;
    comfy.noWebSocket(true);
    comfy.dropWebSockets();
    hold.release();
    const result = await pending;
    expect((await decodeB64(result.data![0]!.b64_json!)).format).toBe('png');
    const promptId = promptNodes().prompt_id;
    expect(comfy.requests.some((r) => r.path === `/history/${promptId}`)).toBe(true);
    comfy.noWebSocket(false);
  });

  it('an engine that refuses /ws is served by polling alone', async () => {
    comfy.noWebSocket(true);
    try {
      const result = await t.client(key.token).images.generate({ model: SD15, prompt: 'no socket', size: '512x512' });
      expect((await decodeB64(result.data![0]!.b64_json!)).format).toBe('png');
    } finally {
      comfy.noWebSocket(false);
    }
  });

  it('a client that goes away interrupts the prompt at the engine', async () => {
    const hold = comfy.holdAt(5);
    const controller = new AbortController();
    const pending = t.client(key.token).images.generate({ model: SD15, prompt: 'abandoned', size: '512x512' }, { signal: controller.signal }).catch((error: unknown) => error);
    await hold.reached;
    const promptId = promptNodes().prompt_id;
    controller.abort();
    await pending;
    await waitFor(async () => comfy.interrupts.some((i) => i.prompt_id === promptId && i.applied) || null, 10_000);
    hold.release();
    await comfy.idle();
    await waitFor(async () => ((await activeHolds()) === 0) || null, 10_000);
  });

  it('a client that goes away while its prompt waits in the queue has it removed from the queue', async () => {
    const hold = comfy.holdAt(5);
    const running = t.client(key.token).images.generate({ model: SD15, prompt: 'first in line', size: '512x512' });
    await hold.reached;
    const controller = new AbortController();
    const queued = t.client(key.token).images.generate({ model: SD15, prompt: 'second in line', size: '512x512' }, { signal: controller.signal }).catch((error: unknown) => error);
    const waiting = await waitFor(async () => comfy.prompts.find((p) => (p.prompt as Record<string, Node>)['6']?.inputs.text === 'second in line') ?? null, 10_000);
    controller.abort();
    await queued;
    await waitFor(async () => comfy.queueDeletes.some((edit) => edit.delete?.includes(waiting.prompt_id)) || null, 10_000);
    expect(comfy.interrupts.some((i) => i.prompt_id === waiting.prompt_id)).toBe(false);
    hold.release();
    await running;
    await comfy.idle();
    expect((await fetch(`${comfy.origin}/history/${waiting.prompt_id}`).then((r) => r.json())) as object).toEqual({});
  });

  it("a run past the provider's timeout is a 503 and is interrupted at the engine", async () => {
    await t.gateway.providerConfigs.add({ id: 'comfy-quick', kind: 'comfyui', baseUrl: comfy.origin, timeoutSeconds: 1 });
    await t.gateway.providerAdmin.discover('comfy-quick');
    const hold = comfy.holdAt(5);
    const pending = refusal(t.client(key.token).images.generate({ model: 'comfy-quick/v1-5-pruned-emaonly-fp16', prompt: 'too slow', size: '512x512' }));
    await hold.reached;
    const promptId = promptNodes().prompt_id;
    const error = await pending;
    expect({ status: error.status, code: error.code, message: messageOf(error) }).toEqual({ status: 503, code: 'upstream_unavailable', message: expect.stringMatching(/timed out/) });
    await waitFor(async () => comfy.interrupts.some((i) => i.prompt_id === promptId && i.applied) || null, 10_000);
    hold.release();
    await comfy.idle();
  });

  it('an engine that forgets the prompt (restarted) fails the image request at once', async () => {
    const hold = comfy.holdAt(3);
    const pending = refusal(t.client(key.token).images.generate({ model: SD15, prompt: 'forgotten', size: '512x512' }));
    await hold.reached;
    comfy.forget();
    const error = await pending;
    expect({ status: error.status, message: messageOf(error) }).toEqual({ status: 503, message: expect.stringMatching(/no longer knows this job/) });
  });
});

describe('video workflows', () => {
  it.each(['SaveVideo', 'VHS_VideoCombine'] as const)('%s: the task completes with a downloadable, playable MP4, charged once', async (output) => {
    const model = `comfy/video-${output.toLowerCase()}`;
    await putVideoModel(model, output);
    const created = await createVideo(model);
    const row = await untilEnded(created.id);
    expect({ status: row.status, error: row.error_message }).toEqual({ status: 'completed', error: null });
    const sent = comfy.prompts.find((p) => p.prompt_id === row.upstream_id)! as { prompt: Record<string, Node> };
    expect(sent.prompt['5']!.inputs).toMatchObject({ width: 512, height: 512, length: 32 });
    const content = Buffer.from(await (await t.client(key.token).videos.downloadContent(created.id)).arrayBuffer());
    const probe = probeMp4(content);
    expect(probe.codec).toBe('h264');
    expect((await holdOf(row.hold_id!)).status).toBe('consumed');
    const task = (await t.client(key.token).videos.retrieve(created.id)) as unknown as VideoTask;
    expect(task.cost_usd).toBe('0.10000000');
  });

  it('SaveWEBM: the task fails plainly (not an MP4) and its hold is released', async () => {
    await putVideoModel('comfy/video-webm', 'SaveWEBM');
    const created = await createVideo('comfy/video-webm');
    const row = await untilEnded(created.id);
    expect(row.status).toBe('failed');
    expect(row.error_message).toMatch(/^The engine produced a WebM video, not an MP4; change the workflow's output node to save MP4/);
    expect((await holdOf(row.hold_id!)).status).toBe('released');
  });

  it('a workflow and its record may differ on references; a request the workflow cannot run is a 400 on input_reference, and no task is left', async () => {
    const withImages = (max: number): ModelRecord => {
      const record = videoRecord('');
      return { ...record, modalities: { ...record.modalities, input: ['text', 'image'] }, capabilities: { ...record.capabilities, max_reference_images: max } };
    };
    // An image-to-video workflow on a record that does not require a reference, and a text-to-video one on a record that allows three.
    const i2v = videoWorkflow({ ...VIDEO_OUTPUTS.SaveVideo!, '11': { class_type: 'LoadImage', inputs: { image: '{{image_1}}' } } });
    await t.gateway.catalog.put({ record: { ...withImages(1), id: 'comfy/video-i2v' }, providerId: 'comfy', upstreamModel: 'video-i2v', workflow: i2v });
    await t.gateway.catalog.put({ record: { ...withImages(3), id: 'comfy/video-t2v' }, providerId: 'comfy', upstreamModel: 'video-t2v', workflow: videoWorkflow(VIDEO_OUTPUTS.SaveVideo!) });
    const prompts = comfy.prompts.length;
    const uploads = comfy.uploads.length;
    const before = await balanceNano();
    const tasks = (await t.client(key.token).videos.list()).data.length;

    const none = await refusal(createVideo('comfy/video-i2v'));
    expect({ status: none.status, code: none.code, param: none.param, message: messageOf(none) }).toEqual({
      status: 400, code: 'invalid_request', param: 'input_reference', message: "This model's workflow takes 1 reference image; none was sent, so nothing fills {{image_1}}.",
    });
    const reference = await toFile(await makeImage(512, 512, 'png'), 'first.png', { type: 'image/png' });
    const extra = await refusal(t.client(key.token).videos.create({ model: 'comfy/video-t2v' as never, prompt: 'waves', seconds: '2' as never, size: '512x512' as never, input_reference: reference }));
    expect({ status: extra.status, code: extra.code, param: extra.param, message: messageOf(extra) }).toEqual({
      status: 400, code: 'invalid_request', param: 'input_reference', message: "This model's workflow takes no reference image (it has no {{image_1}}); 1 was sent.",
    });
    expect({ prompts: comfy.prompts.length, uploads: comfy.uploads.length }).toEqual({ prompts, uploads });
    expect(await balanceNano()).toBe(before);
    expect((await t.client(key.token).videos.list()).data.length).toBe(tasks);
  });

  it('an execution error fails the task with a short message', async () => {
    await putVideoModel('comfy/video-fail', 'SaveVideo');
    comfy.failAt(2, 'boom', { exceptionType: 'RuntimeError' });
    const row = await untilEnded((await createVideo('comfy/video-fail')).id);
    expect({ status: row.status, message: row.error_message }).toEqual({ status: 'failed', message: 'ComfyUI could not run the workflow: node 3 (KSampler) failed with RuntimeError.' });
    expect((await holdOf(row.hold_id!)).status).toBe('released');
  });

  it('a cancelled task interrupts its prompt at the engine', async () => {
    await putVideoModel('comfy/video-cancel', 'SaveVideo');
    const hold = comfy.holdAt(4);
    const created = await createVideo('comfy/video-cancel');
    await hold.reached;
    const row = (await t.gateway.videoTasks.get(created.id))!;
    await t.client(key.token).videos.delete(created.id);
    await waitFor(async () => comfy.interrupts.some((i) => i.prompt_id === row.upstream_id && i.applied) || null, 10_000);
    hold.release();
    const ended = await untilEnded(created.id);
    expect({ status: ended.status, code: ended.error_code }).toEqual({ status: 'failed', code: 'cancelled' });
    expect((await holdOf(row.hold_id!)).status).toBe('released');
  });

  it('reports progress from the engine\u2019s steps while it runs', async () => {
    await putVideoModel('comfy/video-progress', 'SaveVideo');
    const hold = comfy.holdAt(5);
    const created = await createVideo('comfy/video-progress');
    await hold.reached;
    const running = await waitFor(async () => {
      const task = (await t.client(key.token).videos.retrieve(created.id)) as unknown as VideoTask;
      return task.status === 'in_progress' && task.progress >= 40 ? task : null;
    }, 10_000);
    expect(running.progress).toBeLessThan(100);
    hold.release();
    expect((await untilEnded(created.id)).status).toBe('completed');
  });

  it('an engine that forgets a running prompt: the task is submitted again and completes; forgotten twice, it fails', async () => {
    await putVideoModel('comfy/video-forget', 'SaveVideo');
    const first = comfy.holdAt(4);
    const created = await createVideo('comfy/video-forget');
    await first.reached;
    const before = (await t.gateway.videoTasks.get(created.id))!.upstream_id;
    comfy.forget();
    const row = await untilEnded(created.id);
    expect(row.status).toBe('completed');
    expect(row.upstream_id).not.toBe(before);

    const again = comfy.holdAt(4);
    const twice = await createVideo('comfy/video-forget');
    await again.reached;
    comfy.forget();
    const second = comfy.holdAt(4);
    await second.reached;
    comfy.forget();
    const failed = await untilEnded(twice.id);
    expect({ status: failed.status, message: failed.error_message }).toEqual({ status: 'failed', message: expect.stringMatching(/no longer knows this job/) });
    expect((await holdOf(failed.hold_id!)).status).toBe('released');
  });
});

describe('a gateway restart mid-task', () => {
  it('resumes the task by its prompt id and completes it, charged once', async () => {
    const first = await startTestGateway();
    const dataDir = first.dataDir;
    let second: TestGateway | null = null;
    try {
      await first.gateway.providerConfigs.add({ id: 'comfy', kind: 'comfyui', baseUrl: comfy.origin });
      await first.gateway.catalog.put({ record: videoRecord('comfy/video-restart'), providerId: 'comfy', upstreamModel: 'video-restart', workflow: videoWorkflow(VIDEO_OUTPUTS.SaveVideo!) });
      const owner = await first.key('balance', { balanceNano: 10 * USD });
      const hold = comfy.holdAt(5);
      const created = await first.client(owner.token).videos.create({ model: 'comfy/video-restart' as never, prompt: 'restart', seconds: '2' as never, size: '512x512' as never });
      await hold.reached;
      const promptId = (await first.gateway.videoTasks.get(created.id))!.upstream_id;
      expect(promptId).toBeTruthy();
      await first.server.close();
      await first.gateway.close();

      second = await startTestGateway({ dataDir });
      hold.release();
      const row = await waitFor(async () => {
        const current = await second!.gateway.videoTasks.get(created.id);
        return current && !['queued', 'in_progress'].includes(current.status) ? current : null;
      }, 25_000);
      expect({ status: row.status, upstream: row.upstream_id }).toEqual({ status: 'completed', upstream: promptId });
      expect(comfy.prompts.filter((p) => (p.prompt as Record<string, Node>)['6']?.inputs.text === 'restart')).toHaveLength(1);
      const content = Buffer.from(await (await second.client(owner.token).videos.downloadContent(created.id)).arrayBuffer());
      expect(probeMp4(content).codec).toBe('h264');
      const view = await second.gateway.billing.view(owner.accountId);
      expect(view).toMatchObject({ balance_usd: '9.90000000', holds_usd: '0.00000000' });
    } finally {
      await second?.close();
    }
  });
});
