// A ComfyUI video task across a gateway restart: its progress is heard again. The engine sends a
// prompt's events only to the client id it was queued with, so the new gateway on the same data
// dir must connect under that id, follow a prompt it did not queue, and catch up on the sampler
// that ran before it listened (progress_state). Waits are on emulator gates and task states.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelRecord } from '../../shared/api-types.js';
import { startComfyUIEmulator, type ComfyUIEmulator } from '../emulators/comfyui-emulator.js';
import { probeMp4 } from '../helpers/emulator-checks.js';
import { startTestGateway, USD, type TestGateway } from '../helpers/gateway.js';
import { waitFor } from '../helpers/stub-video-provider.js';

type Node = { class_type: string; inputs: Record<string, unknown> };

const MODEL = 'comfy/two-pass';

/** Two samplers of 10 steps one after the other: each is half of the bar. */
const TWO_PASS: Record<string, Node> = {
  '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'ltx-video-2b-v0.9.5.safetensors' } },
  '6': { class_type: 'CLIPTextEncode', inputs: { text: '{{prompt}}', clip: ['4', 1] } },
  '7': { class_type: 'CLIPTextEncode', inputs: { text: '', clip: ['4', 1] } },
  '5': { class_type: 'EmptyHunyuanLatentVideo', inputs: { width: '{{width}}', height: '{{height}}', length: '{{frames}}', batch_size: 1 } },
  '3': { class_type: 'KSampler', inputs: { seed: '{{seed}}', steps: 10, cfg: 6, sampler_name: 'euler', scheduler: 'normal', denoise: 1, model: ['4', 0], positive: ['6', 0], negative: ['7', 0], latent_image: ['5', 0] } },
  '12': { class_type: 'KSampler', inputs: { seed: '{{seed}}', steps: 10, cfg: 6, sampler_name: 'euler', scheduler: 'normal', denoise: 1, model: ['4', 0], positive: ['6', 0], negative: ['7', 0], latent_image: ['3', 0] } },
  '8': { class_type: 'VAEDecode', inputs: { samples: ['12', 0], vae: ['4', 2] } },
  '10': { class_type: 'CreateVideo', inputs: { images: ['8', 0], fps: '{{fps}}' } },
  '9': { class_type: 'SaveVideo', inputs: { video: ['10', 0], filename_prefix: 'video/mgw', format: 'mp4', codec: 'h264' } },
};

const RECORD: ModelRecord = {
  id: MODEL, object: 'model', created: 0, owned_by: 'comfy', tier: 'pro', model_type: 'video', pricing_mode: 'second',
  pricing: { price: 0.05, currency: 'USD', unit: 'second' }, modalities: { input: ['text'], output: ['video'] },
  context_window: { tokens: null, chars: 32_000 }, usage_based_only: true, stream: false, json_mode: false, reasoning: false, tools_calling: false,
  capabilities: { video_generation: true, video_async: true, supported_seconds: [2], supported_sizes: ['512x512'], max_reference_images: 0, max_task_seconds: 300, fps: 16 },
};

let comfy: ComfyUIEmulator;
beforeAll(async () => {
  comfy = await startComfyUIEmulator({ stepDelayMs: 1 });
});
afterAll(async () => {
  await comfy?.close();
});

/** The task's row once `accept` takes it. */
const rowWhen = (t: TestGateway, taskId: string, accept: (row: { status: string; progress: number }) => boolean) =>
  waitFor(async () => {
    const row = await t.gateway.videoTasks.get(taskId);
    return row && accept(row) ? row : null;
  }, 25_000);

describe('a gateway restart mid-task (ComfyUI)', () => {
  it("hears the task's progress again: it moves past its value before the restart while the engine still runs, and the task completes", async () => {
    const first = await startTestGateway();
    const dataDir = first.dataDir;
    let second: TestGateway | null = null;
    try {
      await first.gateway.providerConfigs.add({ id: 'comfy', kind: 'comfyui', baseUrl: comfy.origin });
      await first.gateway.catalog.put({ record: RECORD, providerId: 'comfy', upstreamModel: 'two-pass', workflow: TWO_PASS });
      const owner = await first.key('balance', { balanceNano: 10 * USD });

      // The first sampler held at 8 of 10, then done; the second held at 2 of 10: (1 + 0.2) / 2.
      const inFirst = comfy.holdAt(8);
      const created = await first.client(owner.token).videos.create({ model: MODEL as never, prompt: 'restart progress', seconds: '2' as never, size: '512x512' as never });
      await inFirst.reached;
      const inSecond = comfy.holdAt(2);
      inFirst.release();
      await inSecond.reached;
      const before = await rowWhen(first, created.id, (row) => row.progress >= 60);
      expect({ status: before.status, progress: before.progress }).toEqual({ status: 'in_progress', progress: 60 });
      const promptId = before.upstream_id!;
      const clientId = comfy.prompts.find((p) => p.prompt_id === promptId)!.client_id!;
      await first.server.close();
      await first.gateway.close();

      const connectionsBefore = comfy.wsConnections.length;
      const later = comfy.holdAt(6);
      second = await startTestGateway({ dataDir });
      // The new gateway follows the prompt it did not queue, under the id it was queued with, before the engine goes on.
      await waitFor(async () => comfy.wsConnections.slice(connectionsBefore).some((c) => c.clientId === clientId) || null, 10_000);
      inSecond.release();
      await later.reached;
      // Still running (held at 6 of 10 in the second sampler): only the stream can have told it (1 + 0.6) / 2.
      const after = await rowWhen(second, created.id, (row) => row.progress > 60);
      expect({ status: after.status, progress: after.progress }).toEqual({ status: 'in_progress', progress: 80 });

      later.release();
      const ended = await rowWhen(second, created.id, (row) => !['queued', 'in_progress'].includes(row.status));
      expect({ status: ended.status, upstream: ended.upstream_id }).toEqual({ status: 'completed', upstream: promptId });
      expect(comfy.prompts.filter((p) => (p.prompt as Record<string, Node>)['6']?.inputs.text === 'restart progress')).toHaveLength(1);
      const content = Buffer.from(await (await second.client(owner.token).videos.downloadContent(created.id)).arrayBuffer());
      expect(probeMp4(content).codec).toBe('h264');
    } finally {
      if (second) await second.close();
      else rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
