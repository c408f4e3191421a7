// Providers view against the real gateway and a loopback OpenAI-compatible emulator: add it with
// its key, test the connection, discover its models, find one in the Models view, and check the
// key never shows up in the page (nor in its storage) once it was added.
import { randomBytes } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { startOpenAIEmulator, type OpenAIEmulator } from '../test/emulators/index.js';
import { gotoView, openStudio } from './helpers';

let emulator: OpenAIEmulator;

test.beforeAll(async () => {
  emulator = await startOpenAIEmulator({ apiKey: `sk-e2e-${randomBytes(12).toString('hex')}` });
});

test.afterAll(async () => {
  await emulator?.close();
});

test('add an OpenAI-compatible provider, test it, discover its models, never show its key', async ({ page }) => {
  const id = 'e2e-openai';
  const { apiKey, baseUrl } = emulator;
  // What the emulator lists, read the way the gateway reads it.
  const listed = (await (await fetch(`${baseUrl}/models`, { headers: { Authorization: `Bearer ${apiKey}` } })).json()) as { data: { id: string }[] };
  const upstreamCount = listed.data.length;
  expect(listed.data.map((m) => m.id)).toEqual(expect.arrayContaining(['gpt-image-1', 'sora-2']));

  await openStudio(page);
  await gotoView(page, 'Providers');

  const form = page.getByRole('form', { name: 'Add a provider' });
  await form.getByLabel('Kind', { exact: true }).selectOption('openai');
  await form.getByLabel('Provider id', { exact: true }).fill(id);
  const baseUrlField = form.getByLabel('Base URL', { exact: true });
  await expect(baseUrlField).toHaveAttribute('placeholder', 'https://api.openai.com/v1');
  await baseUrlField.fill(baseUrl);
  const keyField = form.getByLabel('API key', { exact: true });
  await expect(keyField).toHaveAttribute('type', 'password');
  await keyField.fill(apiKey);
  // A key and an environment variable exclude each other.
  await expect(form.getByLabel('API key environment variable', { exact: true })).toBeDisabled();
  await form.getByRole('button', { name: 'Add provider' }).click();

  const list = page.getByRole('region', { name: 'Providers' });
  const row = list.getByRole('row').filter({ has: page.getByText(id, { exact: true }) });
  await expect(row).toContainText(baseUrl);
  await expect(row).toContainText('openai');
  await expect(row).toContainText('stored');
  // The key field was cleared and the key is nowhere in the page: not in its text, not in its markup.
  await expect(keyField).toHaveValue('');
  await expect(form.getByLabel('Provider id', { exact: true })).toHaveValue('');
  expect(await page.locator('body').innerText()).not.toContain(apiKey);
  expect(await page.content()).not.toContain(apiKey);

  // Test connection: ok, with the number of models the emulator lists.
  await row.getByRole('button', { name: 'Test connection' }).click();
  const results = list.getByRole('status', { name: `Results for ${id}` });
  await expect(results).toContainText('ok');
  await expect(results).toContainText(`Connected: ${upstreamCount} models listed;`);
  await expect(results).toContainText(`Models (${upstreamCount}):`);
  await expect(results.getByText('gpt-image-1', { exact: true })).toBeVisible();

  // Discover models: the priced ones join the catalog as <id>/<model>.
  await row.getByRole('button', { name: 'Discover models' }).click();
  await expect(results).toContainText('Added to the catalog:');
  await expect(results.getByText(`${id}/gpt-image-1`, { exact: true })).toBeVisible();

  // Removing a provider that still serves models asks first, naming them; Cancel keeps everything.
  await row.getByRole('button', { name: 'Remove', exact: true }).click();
  const confirm = list.getByRole('group', { name: `Remove ${id}?` });
  await expect(confirm).toContainText(`${id}/gpt-image-1`);
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(confirm).toHaveCount(0);
  await expect(row).toBeVisible();

  // The catalog reloaded itself (catalog.changed): the model is listed with its provider.
  await gotoView(page, 'Models');
  const catalog = page.getByRole('region', { name: 'Catalog' });
  const model = catalog.getByRole('row').filter({ has: page.getByRole('button', { name: `${id}/gpt-image-1`, exact: true }) });
  await expect(model).toHaveCount(1);
  await expect(model.getByRole('cell').nth(3)).toHaveText(id);

  // Still no key anywhere, after every step, and nothing kept in the page's storage.
  await gotoView(page, 'Providers');
  await expect(row).toContainText('stored');
  expect(await page.locator('body').innerText()).not.toContain(apiKey);
  expect(await page.content()).not.toContain(apiKey);
  const storage = await page.evaluate(() => JSON.stringify({ session: { ...sessionStorage }, local: { ...localStorage } }));
  expect(storage).not.toContain(apiKey);
  // Remove, confirmed: the provider and the models discovery added go in one step.
  await row.getByRole('button', { name: 'Remove', exact: true }).click();
  await list.getByRole('group', { name: `Remove ${id}?` }).getByRole('button', { name: /^Remove provider and \d+ models?$/ }).click();
  await expect(row).toHaveCount(0);
  await expect(list.getByRole('alert')).toHaveCount(0);
  await gotoView(page, 'Models');
  await expect(catalog.getByRole('button', { name: `${id}/gpt-image-1`, exact: true })).toHaveCount(0);
  await expect(catalog.getByRole('button', { name: 'local-image', exact: true })).toHaveCount(1);
});
