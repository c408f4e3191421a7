// Providers view, Edit: a provider added with a wrong base URL and a wrong key is repaired in
// place (providers.update), one field at a time, and keeps its models; the new key never shows.
import { randomBytes } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { startOpenAIEmulator, type OpenAIEmulator } from '../test/emulators/index.js';
import { gotoView, openStudio } from './helpers';

let emulator: OpenAIEmulator;

test.beforeAll(async () => {
  emulator = await startOpenAIEmulator({ apiKey: `sk-e2e-upd-${randomBytes(12).toString('hex')}` });
});

test.afterAll(async () => {
  await emulator?.close();
});

test('edit a provider: fix its base URL, then its key, without removing it or its models', async ({ page }) => {
  const id = 'e2e-fixme';
  const { apiKey, baseUrl } = emulator;
  await openStudio(page);
  await gotoView(page, 'Providers');

  const form = page.getByRole('form', { name: 'Add a provider' });
  await form.getByLabel('Provider id', { exact: true }).fill(id);
  await form.getByLabel('Base URL', { exact: true }).fill('http://127.0.0.1:9/v1');
  const list = page.getByRole('region', { name: 'Providers' });
  const row = list.getByRole('row').filter({ has: page.getByText(id, { exact: true }) });
  // A key of spaces is refused, not taken as a provider without a key.
  await form.getByLabel('API key', { exact: true }).fill('   ');
  await form.getByRole('button', { name: 'Add provider' }).click();
  await expect(form.getByRole('alert')).toContainText('api_key');
  await expect(row).toHaveCount(0);
  await form.getByLabel('API key', { exact: true }).fill('sk-wrong-key');
  await form.getByRole('button', { name: 'Add provider' }).click();
  await expect(row).toContainText('http://127.0.0.1:9/v1');
  await row.getByRole('button', { name: 'Discover models' }).click();
  await expect(list.getByRole('alert')).toContainText('upstream_unavailable');
  const results = list.getByRole('status', { name: `Results for ${id}` });

  // Edit opens a form holding the current base URL; nothing changed, nothing to save.
  const edit = row.getByRole('button', { name: 'Edit', exact: true });
  await edit.click();
  await expect(edit).toHaveAttribute('aria-expanded', 'true');
  const editForm = list.getByRole('form', { name: `Edit ${id}` });
  const url = editForm.getByLabel('Base URL', { exact: true });
  await expect(url).toHaveValue('http://127.0.0.1:9/v1');
  const save = editForm.getByRole('button', { name: 'Save changes' });
  await expect(save).toBeDisabled();

  // A refused change is shown on the row, and the form stays open with what was typed.
  await url.fill('ftp://127.0.0.1/');
  await save.click();
  await expect(list.getByRole('alert')).toHaveText('invalid_request: base_url must be an http(s) URL.');
  await expect(url).toHaveValue('ftp://127.0.0.1/');

  // The base URL alone (Enter submits): the wrong key stays and the emulator refuses it.
  await url.fill(baseUrl);
  await url.press('Enter');
  await expect(editForm).toHaveCount(0);
  await expect(page.getByText(`Provider ${id} updated.`)).toBeVisible();
  await expect(row).toContainText(baseUrl);
  await expect(row).toContainText('stored');
  await expect(list.getByRole('alert')).toHaveCount(0);
  await row.getByRole('button', { name: 'Test connection' }).click();
  await expect(results).toContainText('failed');
  await expect(results).toContainText('credentials');

  // The key alone: the old failed test goes, the connection works, and discovery adds models.
  await edit.click();
  const keyField = editForm.getByLabel('New API key', { exact: true });
  await expect(keyField).toHaveAttribute('type', 'password');
  await keyField.fill(apiKey);
  await expect(editForm.getByLabel('API key environment variable', { exact: true })).toBeDisabled();
  await editForm.getByRole('button', { name: 'Save changes' }).click();
  await expect(editForm).toHaveCount(0);
  await expect(results).toHaveCount(0);
  await row.getByRole('button', { name: 'Test connection' }).click();
  await expect(results).toContainText('ok');
  await row.getByRole('button', { name: 'Discover models' }).click();
  await expect(results.getByText(`${id}/gpt-image-1`, { exact: true })).toBeVisible();
  expect(await page.content()).not.toContain(apiKey);
  const storage = await page.evaluate(() => JSON.stringify({ session: { ...sessionStorage }, local: { ...localStorage } }));
  expect(storage).not.toContain(apiKey);

  // A model of the repaired provider generates an image.
  await gotoView(page, 'Images');
  await page.getByLabel('Model', { exact: true }).selectOption(`${id}/gpt-image-1`);
  await page.getByRole('textbox', { name: 'Prompt' }).fill('a repaired upstream');
  await page.getByRole('button', { name: 'Generate' }).click();
  await expect(page.getByRole('img', { name: /a repaired upstream/ }).first()).toBeVisible();

  // Leave the gateway as the other specs expect it: the provider and its models go.
  await gotoView(page, 'Providers');
  await row.getByRole('button', { name: 'Remove', exact: true }).click();
  await list.getByRole('group', { name: `Remove ${id}?` }).getByRole('button', { name: /^Remove provider and \d+ models?$/ }).click();
  await expect(row).toHaveCount(0);
});
