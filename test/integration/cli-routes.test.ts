// mgw models put --route as a real child process: a model's routes in order, a workflow that
// belongs to the route it follows, what is refused (with exit status 2 and one line), and
// `mgw providers list` showing what the serving gateway saw of each provider.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readHealth } from '../../electron/core/routing/route-health.js';
import { mgw, mgwAsync } from '../helpers/cli.js';
import { portraitWorkflow } from '../helpers/comfy-workflows.js';
import { startTestGateway, tempDir, USD } from '../helpers/gateway.js';
import { postJson } from '../helpers/http.js';
import { IMAGE_RECORD } from '../helpers/model-records.js';

let dataDir: string;
let workflowFile: string;
beforeAll(() => {
  dataDir = tempDir('mgw-routes-');
  workflowFile = join(dataDir, 'portrait.json');
  writeFileSync(workflowFile, JSON.stringify(portraitWorkflow()));
  for (const [id, kind, url] of [
    ['up-a', 'openai', 'http://127.0.0.1:9/v1'],
    ['up-b', 'openai', 'http://127.0.0.1:9/v1'],
    ['comfy', 'comfyui', 'http://127.0.0.1:9'],
    ['webui', 'a1111', 'http://127.0.0.1:9'],
    ['fal', 'fal', 'http://127.0.0.1:9'],
  ]) {
    expect(run('providers', 'add', '--id', id!, '--kind', kind!, '--base-url', url!, ...(kind === 'openai' || kind === 'fal' ? ['--api-key', 'sk-test'] : [])).status).toBe(0);
  }
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const run = (...args: string[]) => mgw([...args, '--data-dir', dataDir]);
const record = JSON.stringify(IMAGE_RECORD);

interface Listed {
  provider: string;
  upstream_model: string;
  routes: { provider: string; upstream_model: string; workflow: unknown }[];
  record: { id: string; tier: string };
}
const listed = (id: string): Listed | undefined => (JSON.parse(run('models', 'list', '--json').stdout) as Listed[]).find((e) => e.record.id === id);

function expectUsageError(result: ReturnType<typeof run>, message: RegExp): void {
  expect(result.status).toBe(2);
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).toMatch(message);
}

const VIDEO_RECORD = {
  tier: 'pro', model_type: 'video', pricing_mode: 'second',
  pricing: { price: 0.1, currency: 'USD', unit: 'second' },
  modalities: { input: ['text'], output: ['video'] }, context_window: { tokens: null, chars: 32000 },
  usage_based_only: true, stream: false, json_mode: false, reasoning: false, tools_calling: false,
  capabilities: { video_generation: true, video_async: true, supported_seconds: [5], supported_sizes: ['720p'], max_reference_images: 0 },
};

describe('mgw models put --route', () => {
  it('sets the routes in the order given; models list shows them, the first also as provider/upstream_model', () => {
    const put = run('models', 'put', 'dual', '--route', 'up-a:gpt-image-1', '--route', 'up-b', '--json', record);
    expect(put).toMatchObject({ status: 0 });
    expect(put.stdout).toMatch(/^Added model dual \(.*; routes up-a > up-b\)\.$/m);
    expect(listed('dual')).toMatchObject({
      provider: 'up-a',
      upstream_model: 'gpt-image-1',
      routes: [
        { provider: 'up-a', upstream_model: 'gpt-image-1', workflow: null },
        // No upstream model given, none stored for that provider: the model's id.
        { provider: 'up-b', upstream_model: 'dual', workflow: null },
      ],
    });
    expect(run('models', 'list').stdout).toMatch(/^dual +image +\S+ +.* up-a:gpt-image-1 > up-b:dual$/m);
  });

  it('keeps the routes when only record fields change, and reorders them when given again', () => {
    expect(run('models', 'put', 'dual', '--json', '{"tier": "pro"}').status).toBe(0);
    expect(listed('dual')).toMatchObject({ record: { tier: 'pro' }, routes: [{ provider: 'up-a' }, { provider: 'up-b' }] });
    expect(run('models', 'put', 'dual', '--route', 'up-b', '--route', 'up-a', '--json', '{}').status).toBe(0);
    // A route given again without an upstream model keeps the one it had on that provider.
    expect(listed('dual')!.routes.map((r) => `${r.provider}:${r.upstream_model}`)).toEqual(['up-b:dual', 'up-a:gpt-image-1']);
  });

  it('gives a --workflow to the --route it follows, and only to it', () => {
    expect(run('models', 'put', 'mixed', '--route', 'comfy:sd_xl_base_1.0.safetensors', '--workflow', workflowFile, '--route', 'up-a:gpt-image-1', '--json', record).status).toBe(0);
    const routes = listed('mixed')!.routes;
    expect(routes[0]).toMatchObject({ provider: 'comfy', workflow: portraitWorkflow() });
    expect(routes[1]).toMatchObject({ provider: 'up-a', workflow: null });
    // Given again without --workflow, the ComfyUI route keeps its workflow.
    expect(run('models', 'put', 'mixed', '--route', 'up-a:gpt-image-1', '--route', 'comfy:sd_xl_base_1.0.safetensors', '--json', '{}').status).toBe(0);
    expect(listed('mixed')!.routes.map((r) => [r.provider, r.workflow !== null])).toEqual([
      ['up-a', false],
      ['comfy', true],
    ]);
  });

  it('refuses what cannot be meant, with one line and exit 2, changing nothing', () => {
    const before = run('models', 'list', '--json').stdout;
    expectUsageError(run('models', 'put', 'x1', '--workflow', workflowFile, '--route', 'comfy', '--json', record), /--workflow goes after the --route it belongs to/);
    expectUsageError(run('models', 'put', 'x1', '--route', 'up-a', '--provider', 'up-b', '--json', record), /give --route, or --provider and --upstream-model, not both/);
    expectUsageError(run('models', 'put', 'x1', '--route', 'nope:m', '--json', record), /no provider nope/);
    expectUsageError(run('models', 'put', 'x1', '--route', 'up-a:', '--json', record), /--route takes PROVIDER or PROVIDER:UPSTREAM_MODEL/);
    expectUsageError(run('models', 'put', 'x1', '--route', 'up-a:m', '--route', 'up-a:m', '--json', record), /Route 2 repeats route 1/);
    expectUsageError(run('models', 'put', 'x1', '--route', 'up-a', '--route', 'up-b', '--workflow', workflowFile, '--json', record), /takes no workflow or template/);
    // A workflow-less change of one route of several is ambiguous.
    expectUsageError(run('models', 'put', 'dual', '--upstream-model', 'other', '--json', '{}'), /dual has 2 routes: give them all again/);
    expect(run('models', 'list', '--json').stdout).toBe(before);
  });

  it('refuses a route whose provider cannot honour the record', () => {
    const video = JSON.stringify(VIDEO_RECORD);
    // AUTOMATIC1111 renders no video.
    expectUsageError(run('models', 'put', 'v1', '--route', 'up-a:some-video', '--route', 'webui:sdxl', '--json', video), /Route webui:sdxl cannot serve v1: AUTOMATIC1111 \/ Forge providers serve no video models/);
    // A fal video model's content redirects to the partner: its routes are all fal, or none is.
    expectUsageError(run('models', 'put', 'v2', '--route', 'fal:fal-ai/kling-video', '--route', 'up-a:some-video', '--json', video), /all its routes must be fal providers, and route 2 is not/);
    expect(listed('v1')).toBeUndefined();
    expect(listed('v2')).toBeUndefined();
  });

  it('leaves a provider that still serves a route in place (providers remove names the model)', () => {
    expectUsageError(run('providers', 'remove', 'up-b'), /Provider up-b still serves dual/);
  });
});

describe('mgw providers list', () => {
  it('shows what the serving gateway saw of each provider: its state, recent latency and last error', async () => {
    const t = await startTestGateway({ dataDir, upstreamTimeouts: { connectMs: 500, totalMs: 3_000 } });
    try {
      const key = await t.key('balance', { balanceNano: 10 * USD });
      // up-a and up-b point at a closed port: both fail, and the request is answered 503.
      const response = await postJson(`${t.baseUrl}/images/generations`, { model: 'dual', prompt: 'a fox', size: '1024x1024' }, key.token);
      expect(response.status).toBe(503);
      await expect.poll(async () => (await readHealth(t.gateway.store, Date.now())).map((h) => h.provider).sort(), { timeout: 5_000 }).toEqual(['up-a', 'up-b']);
      const table = (await mgwAsync(['providers', 'list', '--data-dir', dataDir])).stdout;
      expect(table).toMatch(/^up-a +openai +\S+ +stored +default +failing \(1 in a row\) +-$/m);
      expect(table).toMatch(/^comfy +comfyui +\S+ +none +default +unknown +-$/m);
      expect(table).toMatch(/^up-a: last error \S+: could not connect$/m);
      const json = JSON.parse((await mgwAsync(['providers', 'list', '--json', '--data-dir', dataDir])).stdout) as { id: string; health: unknown }[];
      expect(json.find((p) => p.id === 'up-b')!.health).toMatchObject({ state: 'failing', consecutive_failures: 1, last_error: 'could not connect', latency_ms: null });
      expect(json.find((p) => p.id === 'comfy')!.health).toBeNull();
    } finally {
      await t.close();
    }
  });
});
