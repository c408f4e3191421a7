// "Use this model" in the Models view: the snippets name the gateway's real base URL and a key
// placeholder; the copied curl command, given a real key, runs with sh against this server.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, test, type Page } from '@playwright/test';
import { gotoView, openStudio, studioApi } from './helpers';
import { readServerState } from './server-state';

const run = promisify(execFile);
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

/** A balance key with $5, made the way the Keys view does (keys.create). */
async function createKey(label: string): Promise<string> {
  const { token } = await studioApi<{ token: string }>('keys.create', { access: 'balance', balance_usd: '5', label });
  expect(token).toMatch(/^mgw_/);
  return token;
}

/** Opens a model's detail and its "Use this model" section. */
async function openSnippets(page: Page, id: string) {
  await page.getByRole('region', { name: 'Catalog' }).getByRole('button', { name: id, exact: true }).click();
  const section = page.getByRole('complementary', { name: `Details of ${id}` }).getByRole('region', { name: 'Use this model' });
  await expect(section.getByRole('tab')).toHaveText(['curl', 'Python', 'JavaScript']);
  return section;
}

/** Selects the curl tab, clicks Copy and answers what the clipboard holds. */
async function copyCurl(page: Page, section: Awaited<ReturnType<typeof openSnippets>>): Promise<string> {
  await section.getByRole('tab', { name: 'curl' }).click();
  await expect(section.getByRole('tab', { name: 'curl' })).toHaveAttribute('aria-selected', 'true');
  await section.getByRole('tabpanel').getByRole('button', { name: 'Copy' }).click();
  await expect(section.getByRole('button', { name: 'Copied' })).toBeVisible();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied.trim()).toBe((await section.getByTestId('model-snippet').textContent())?.trim());
  return copied;
}

/** Runs a snippet with sh in a fresh directory, with the key put in place of its placeholder. */
async function runWithKey(snippet: string, token: string): Promise<{ dir: string; stdout: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'mgw-snippet-'));
  // The key goes into the command itself (not the environment), as a user pasting it would do.
  const env = { ...process.env };
  delete env.MGW_API_KEY;
  const { stdout } = await run('sh', ['-c', snippet.replaceAll('$MGW_API_KEY', token)], { cwd: dir, env, timeout: 60_000 });
  return { dir, stdout };
}

test('the copied curl snippet of local-image generates and edits a PNG against this server', async ({ page }) => {
  const { apiBaseUrl } = readServerState();
  const token = await createKey('e2e-snippets-image');
  await openStudio(page);
  await gotoView(page, 'Models');
  const section = await openSnippets(page, 'local-image');

  // Each tab has the real base URL, the model, a supported size and no key.
  const expected = {
    Python: ['from openai import OpenAI', 'os.environ["MGW_API_KEY"]', 'client.images.generate(', 'client.images.edit('],
    JavaScript: ["import OpenAI from 'openai'", 'process.env.MGW_API_KEY', 'client.images.generate(', 'client.images.edit('],
  };
  for (const [tab, parts] of Object.entries(expected)) {
    await section.getByRole('tab', { name: tab }).click();
    await expect(section.getByRole('tab', { name: tab })).toHaveAttribute('aria-selected', 'true');
    const text = (await section.getByTestId('model-snippet').textContent()) ?? '';
    for (const part of [apiBaseUrl, 'local-image', '1024x1024', ...parts]) expect(text, tab).toContain(part);
    expect(text).not.toContain(token);
  }

  const copied = await copyCurl(page, section);
  expect(copied).toContain(`${apiBaseUrl}/images/generations`);
  expect(copied).toContain('"Authorization: Bearer $MGW_API_KEY"');
  expect(copied).not.toContain(token);

  const { dir } = await runWithKey(copied, token);
  try {
    const answer = JSON.parse(readFileSync(join(dir, 'image.json'), 'utf8')) as { data: { b64_json: string }[] };
    expect(answer.data[0]?.b64_json.length).toBeGreaterThan(100);
    for (const file of ['image.png', 'edited.png']) {
      const bytes = readFileSync(join(dir, file));
      expect(bytes.subarray(0, 8).equals(PNG_SIGNATURE), file).toBe(true);
      // IHDR width and height: the size the snippet asked for.
      expect([bytes.readUInt32BE(16), bytes.readUInt32BE(20)], file).toEqual([1024, 1024]);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the copied curl snippet of local-video creates a task, polls it and downloads the MP4', async ({ page }) => {
  const { apiBaseUrl } = readServerState();
  const token = await createKey('e2e-snippets-video');
  await openStudio(page);
  await gotoView(page, 'Models');
  const section = await openSnippets(page, 'local-video');

  const copied = await copyCurl(page, section);
  expect(copied).toContain(`${apiBaseUrl}/videos`);
  expect(copied).toContain('"seconds":"2","size":"480p"');
  expect(copied).toMatch(/while .*in_progress.*; do\n {2}sleep 2\n/);
  expect(copied).toContain(`${apiBaseUrl}/videos/$id -H`);
  expect(copied).toContain(`-o video.mp4 ${apiBaseUrl}/videos/$id/content`);
  expect(copied).not.toContain(token);

  const { dir, stdout } = await runWithKey(copied, token);
  try {
    expect(stdout).toContain('saved video.mp4');
    const mp4 = readFileSync(join(dir, 'video.mp4'));
    expect(mp4.subarray(4, 8).toString('latin1')).toBe('ftyp');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  // The other tabs poll and download too.
  await section.getByRole('tab', { name: 'Python' }).click();
  await expect(section.getByTestId('model-snippet')).toContainText('client.videos.download_content(video.id).write_to_file("video.mp4")');
  await section.getByRole('tab', { name: 'JavaScript' }).click();
  await expect(section.getByTestId('model-snippet')).toContainText('client.videos.downloadContent(video.id)');
});
