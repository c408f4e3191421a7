// A local engine in the studio, against the real gateway and the ComfyUI emulator: add it (no
// key asked), test it (what the engine reports about itself), discover its checkpoints, generate
// with the progress bar following the engine's steps, and add an owner's workflow as a model.
import { expect, test } from '@playwright/test';
import { startComfyUIEmulator, type ComfyUIEmulator } from '../test/emulators/comfyui-emulator.js';
import { portraitWorkflow } from '../test/helpers/comfy-workflows.js';
import { gotoView, openStudio } from './helpers';

const ID = 'e2e-comfy';
let comfy: ComfyUIEmulator;

test.beforeAll(async () => {
  comfy = await startComfyUIEmulator({ checkpoints: ['sd_xl_base_1.0.safetensors'], stepDelayMs: 20 });
});
test.afterAll(async () => {
  await comfy?.close();
});

test('add ComfyUI, see what it reports, discover a checkpoint, generate with live progress, add a workflow model', async ({ page }) => {
  await openStudio(page);
  await gotoView(page, 'Providers');
  const form = page.getByRole('form', { name: 'Add a provider' });
  await form.getByLabel('Kind', { exact: true }).selectOption('comfyui');
  // ComfyUI has no authentication: the form asks for no key.
  await expect(form.getByLabel('API key', { exact: true })).toHaveCount(0);
  await expect(form.getByLabel('Base URL', { exact: true })).toHaveAttribute('placeholder', 'http://127.0.0.1:8188');
  await form.getByLabel('Provider id', { exact: true }).fill(ID);
  await form.getByLabel('Base URL', { exact: true }).fill(comfy.origin);
  await form.getByRole('button', { name: 'Add provider' }).click();

  const list = page.getByRole('region', { name: 'Providers' });
  const row = list.getByRole('row').filter({ has: page.getByText(ID, { exact: true }) });
  await expect(row).toContainText('comfyui');

  await row.getByRole('button', { name: 'Test connection' }).click();
  const results = list.getByRole('status', { name: `Results for ${ID}` });
  await expect(results).toContainText('ok');
  await expect(results).toContainText('Connected: ComfyUI');
  const facts = results.getByRole('definition');
  expect(await facts.count()).toBeGreaterThan(1);

  await row.getByRole('button', { name: 'Discover models' }).click();
  const model = `${ID}/sd_xl_base_1.0`;
  await expect(results.getByText(model, { exact: true })).toBeVisible();

  // Generate on it: the run pauses at step 5 of 20, so the bar is seen mid-way, then finishes.
  const hold = comfy.holdAt(5);
  await gotoView(page, 'Images');
  const generate = page.getByRole('form', { name: 'Generate an image' });
  await generate.getByLabel('Model', { exact: true }).selectOption(model);
  await generate.getByLabel('Prompt').fill('a lighthouse at dusk');
  await generate.getByLabel('Size', { exact: true }).selectOption('1024x1024');
  await generate.getByRole('button', { name: 'Generate' }).click();
  await hold.reached;
  const bar = page.getByRole('progressbar', { name: 'Generation progress' });
  await expect(bar).toBeVisible();
  await expect(bar).toHaveAttribute('aria-valuenow', '25');
  hold.release();
  await expect(bar).toHaveCount(0);
  const result = page.getByRole('region', { name: 'Latest result' });
  await expect(result.getByRole('img')).toBeVisible();
  await expect(result).toContainText('a lighthouse at dusk');

  // An owner's workflow as a model, from its file.
  await gotoView(page, 'Providers');
  await row.getByRole('button', { name: 'Add workflow model' }).click();
  const upload = page.getByRole('form', { name: `Add a workflow model to ${ID}` });
  await upload.getByLabel('Model id', { exact: true }).fill(`${ID}/portrait`);
  await upload.getByLabel('Workflow file (API format)').setInputFiles({ name: 'portrait.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(PORTRAIT)) });
  await upload.getByRole('button', { name: 'Add workflow model' }).click();
  await expect(upload).toHaveCount(0);
  await gotoView(page, 'Models');
  await expect(page.getByText(`${ID}/portrait`, { exact: true }).first()).toBeVisible();

  // A workflow without {{prompt}} is refused, naming what is wrong.
  await gotoView(page, 'Providers');
  await row.getByRole('button', { name: 'Add workflow model' }).click();
  await upload.getByLabel('Model id', { exact: true }).fill(`${ID}/broken`);
  const broken = structuredClone(PORTRAIT);
  broken['6']!.inputs.text = 'no placeholder here';
  await upload.getByLabel('Workflow file (API format)').setInputFiles({ name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(broken)) });
  await upload.getByRole('button', { name: 'Add workflow model' }).click();
  await expect(upload.getByRole('alert')).toContainText('{{prompt}}');
  await upload.getByRole('button', { name: 'Cancel' }).click();

  // Removing the provider takes its models with it (asked once).
  await row.getByRole('button', { name: 'Remove' }).click();
  await list.getByRole('button', { name: /^Remove provider and/ }).click();
  await expect(row).toHaveCount(0);
});

const PORTRAIT = portraitWorkflow();
