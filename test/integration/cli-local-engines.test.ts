// The CLI with the local engine kinds, as real child processes against the ComfyUI emulator:
// adding (defaults, what each kind takes as a key, timeouts), the connection test's facts,
// discovery printing what it added, and models put --workflow with what it refuses.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startComfyUIEmulator, type ComfyUIEmulator } from '../emulators/comfyui-emulator.js';
import { mgwAsync } from '../helpers/cli.js';
import { portraitWorkflow } from '../helpers/comfy-workflows.js';
import { tempDir } from '../helpers/gateway.js';

let dataDir: string;
let comfy: ComfyUIEmulator;
beforeAll(async () => {
  dataDir = tempDir('mgw-cli-engines-');
  comfy = await startComfyUIEmulator({ checkpoints: ['sd_xl_base_1.0.safetensors', 'SDXL/Juggernaut XL.safetensors'] });
});
afterAll(async () => {
  await comfy.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const run = (...args: string[]) => mgwAsync([...args, '--data-dir', dataDir]);

function expectRefused(result: Awaited<ReturnType<typeof run>>, pattern: RegExp): void {
  expect(result.status).toBe(2);
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).toMatch(pattern);
}

describe('providers add with the local engine kinds', () => {
  it('fills in each engine default base URL and takes no key where the engine has none', async () => {
    const added = await run('providers', 'add', '--kind', 'sdcpp', '--id', 'cpp');
    expect(added.status).toBe(0);
    expect(added.stdout).toContain('Provider cpp (sdcpp) at http://127.0.0.1:1234; key: none.');
    expectRefused(await run('providers', 'add', '--kind', 'comfyui', '--id', 'keyed', '--api-key', 'sk-1'), /takes no API key/);
    expectRefused(await run('providers', 'add', '--kind', 'a1111', '--id', 'webui', '--api-key', 'nocolon'), /USER:PASS/);
    expect((await run('providers', 'add', '--kind', 'a1111', '--id', 'webui', '--api-key', 'me:secret', '--timeout', '900')).status).toBe(0);
    expectRefused(await run('providers', 'add', '--kind', 'comfyui', '--id', 'slow', '--timeout', '0'), /--timeout must be a whole number of seconds/);
    expectRefused(await run('providers', 'add', '--kind', 'kobold', '--id', 'x'), /--kind must be openai, fal, replicate, gemini, runway, comfyui, a1111, sdcpp/);
  });

  it('lists timeouts and sets one back to the default', async () => {
    const listed = JSON.parse((await run('providers', 'list', '--json')).stdout) as { id: string; timeout_seconds: number | null }[];
    expect(listed.find((p) => p.id === 'webui')?.timeout_seconds).toBe(900);
    expect((await run('providers', 'update', '--id', 'webui', '--timeout', 'default')).status).toBe(0);
    const table = (await run('providers', 'list')).stdout;
    expect(table).toMatch(/^webui +a1111 +\S+ +stored +default +unknown +-$/m);
  });
});

describe('a ComfyUI provider from the CLI', () => {
  beforeAll(async () => {
    expect((await run('providers', 'add', '--kind', 'comfyui', '--id', 'comfy', '--base-url', comfy.origin)).status).toBe(0);
  });

  it('providers test prints what the engine reports, one line each', async () => {
    const test = await run('providers', 'test', 'comfy');
    expect(test.status).toBe(0);
    const [verdict, ...facts] = test.stdout.trim().split('\n');
    expect(verdict).toMatch(/^ok: Connected: ComfyUI \S+ on /);
    expect(facts.length).toBeGreaterThan(1);
    for (const line of facts) expect(line).toMatch(/^ {2}[^:]+: \S/);
    expect(test.stdout).toMatch(/VRAM/i);
  });

  it('a provider that is down fails its test with exit 1', async () => {
    expect((await run('providers', 'add', '--kind', 'comfyui', '--id', 'gone', '--base-url', 'http://127.0.0.1:9')).status).toBe(0);
    const test = await run('providers', 'test', 'gone');
    expect(test.status).toBe(1);
    expect(test.stdout).toMatch(/^failed: /);
  });

  it('models discover prints the ids it added; a second run adds none', async () => {
    const first = await run('models', 'discover', 'comfy');
    expect(first.status).toBe(0);
    expect(first.stdout).toContain('Added: comfy/sd_xl_base_1.0, comfy/sdxl-juggernaut-xl.');
    const again = await run('models', 'discover', 'comfy');
    expect(again.stdout).toContain('Added: none.');
    const models = JSON.parse((await run('models', 'list', '--json')).stdout) as { record: { id: string; capabilities: Record<string, unknown> } }[];
    const discovered = models.find((m) => m.record.id === 'comfy/sd_xl_base_1.0')!;
    expect(discovered.record.capabilities).toMatchObject({ image_generation: true, image_edit: true, max_reference_images: 3 });
  });

  it('models put --workflow stores an owner workflow; list marks it', async () => {
    const file = join(dataDir, 'portrait.json');
    writeFileSync(file, JSON.stringify(WORKFLOW));
    const record = { ...IMAGE_RECORD_FIELDS };
    const put = await run('models', 'put', 'comfy/portrait', '--provider', 'comfy', '--workflow', file, '--json', JSON.stringify(record));
    expect(put.stderr).toBe('');
    expect(put.status).toBe(0);
    expect((await run('models', 'list')).stdout).toMatch(/^comfy\/portrait .*comfy:comfy\/portrait \(workflow\)$/m);
    const listed = JSON.parse((await run('models', 'list', '--json')).stdout) as { record: { id: string }; workflow: unknown }[];
    expect(listed.find((m) => m.record.id === 'comfy/portrait')?.workflow).toEqual(WORKFLOW);
    // Back to the built-in templates.
    expect((await run('models', 'put', 'comfy/portrait', '--workflow', 'builtin', '--json', '{}')).status).toBe(0);
    expect((await run('models', 'list')).stdout).toMatch(/^comfy\/portrait .*comfy:comfy\/portrait$/m);
  });

  it('refuses a workflow file it cannot read, one that is not JSON, and one the gateway refuses, naming why', async () => {
    const record = JSON.stringify(IMAGE_RECORD_FIELDS);
    expectRefused(await run('models', 'put', 'comfy/x', '--provider', 'comfy', '--workflow', join(dataDir, 'missing.json'), '--json', record), /--workflow .*missing\.json cannot be read: ENOENT/);
    const notJson = join(dataDir, 'not.json');
    writeFileSync(notJson, '{"3": ');
    expectRefused(await run('models', 'put', 'comfy/x', '--provider', 'comfy', '--workflow', notJson, '--json', record), /is not valid JSON/);
    const noPrompt = join(dataDir, 'no-prompt.json');
    writeFileSync(noPrompt, JSON.stringify({ ...WORKFLOW, '6': { class_type: 'CLIPTextEncode', inputs: { text: 'fixed', clip: ['4', 1] } } }));
    expectRefused(await run('models', 'put', 'comfy/x', '--provider', 'comfy', '--workflow', noPrompt, '--json', record), /\{\{prompt\}\}/);
    const typo = join(dataDir, 'typo.json');
    writeFileSync(typo, JSON.stringify({ ...WORKFLOW, '3': { ...WORKFLOW['3']!, inputs: { ...WORKFLOW['3']!.inputs, seed: '{{sed}}' } } }));
    expectRefused(await run('models', 'put', 'comfy/x', '--provider', 'comfy', '--workflow', typo, '--json', record), /\{\{sed\}\}/);
    // A workflow for a provider that runs none.
    expectRefused(await run('models', 'put', 'cpp/x', '--provider', 'cpp', '--workflow', join(dataDir, 'portrait.json'), '--json', record), /takes no workflow/);
  });
});

const IMAGE_RECORD_FIELDS = {
  tier: 'turbo', model_type: 'image', pricing_mode: 'token',
  pricing: { input: 0.5, output: 4, currency: 'USD', unit: '1M tokens' },
  modalities: { input: ['text'], output: ['image'] }, context_window: { tokens: 32768, chars: 32000 },
  usage_based_only: false, stream: false, json_mode: false, reasoning: false, tools_calling: false,
  capabilities: { image_generation: true, supported_sizes: ['1024x1024'] },
};

const WORKFLOW = portraitWorkflow();
