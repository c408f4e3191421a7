// Routes and failover in the studio, against the real gateway: a model put by `mgw models put
// --route` behind two providers shows its routes in the Models view, and the ↑/↓ buttons change
// the order the gateway stores (read back by the CLI). With a down provider first (a closed
// loopback port) and an OpenAI emulator second, a /v1 generation is served by the second: the
// Providers view shows the first failing with its error and the second healthy, and the Activity
// view names the route that served and the one that failed.
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { startOpenAIEmulator, type OpenAIEmulator } from '../test/emulators/index.js';
import { gotoView, openStudio, studioApi } from './helpers';
import { readServerState } from './server-state';

const MGW = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'mgw.js');
const mgw = (...args: string[]) => execFileSync(process.execPath, [MGW, ...args, '--data-dir', readServerState().dataDir], { encoding: 'utf8' });

const UP = 'e2e-rt-up';
const DOWN = 'e2e-rt-down';
const MODEL = 'e2e-rt-image';
const UPSTREAM = 'gpt-image-1';

interface Catalog {
  models: { record: { id: string; capabilities: Record<string, unknown> } & Record<string, unknown> }[];
}
/** The model's routes as the CLI reads them from the data dir: provider ids in the order tried. */
const storedOrder = () => {
  const models = JSON.parse(mgw('models', 'list', '--json')) as { record: { id: string }; routes: { provider: string }[] }[];
  return models.find((m) => m.record.id === MODEL)?.routes.map((r) => r.provider);
};

let emulator: OpenAIEmulator;
let keyId: string | undefined;

test.beforeAll(async () => {
  emulator = await startOpenAIEmulator();
  // A base URL where nothing listens: an emulator's, once it is closed.
  const gone = await startOpenAIEmulator();
  await gone.close();
  mgw('providers', 'add', '--id', UP, '--kind', 'openai', '--base-url', emulator.baseUrl, '--api-key', emulator.apiKey);
  mgw('providers', 'add', '--id', DOWN, '--kind', 'openai', '--base-url', gone.baseUrl, '--api-key', 'sk-e2e-rt-down');
  const template = (await studioApi<Catalog>('catalog.list')).models.find((m) => m.record.id === 'local-image')!.record;
  const record = { ...template, id: MODEL, owned_by: 'e2e-routes', capabilities: { ...template.capabilities, supported_sizes: ['1024x1024'] } };
  // The working provider first: the studio moves the down one ahead of it.
  mgw('models', 'put', MODEL, '--route', `${UP}:${UPSTREAM}`, '--route', `${DOWN}:${UPSTREAM}`, '--json', JSON.stringify(record));
});

test.afterAll(async () => {
  for (const id of [UP, DOWN]) await studioApi('providers.remove', { id, remove_models: true }).catch(() => undefined);
  if (keyId) await studioApi('keys.revoke', { id: keyId });
  await emulator?.close();
});

test('reorder a model’s routes, fail over past a down provider, see its health and the routes in Activity', async ({ page }) => {
  expect(storedOrder()).toEqual([UP, DOWN]);
  await openStudio(page);
  await gotoView(page, 'Models');
  await page.getByRole('region', { name: 'Catalog' }).getByRole('button', { name: MODEL, exact: true }).click();
  const detail = page.getByRole('complementary', { name: `Details of ${MODEL}` });
  await expect(detail.getByRole('heading', { name: 'Routes', exact: true })).toBeVisible();
  await expect(detail).toContainText('2 routes');
  const routes = detail.getByRole('list', { name: `Routes of ${MODEL}` });
  const items = routes.getByRole('listitem');
  await expect(items).toHaveText([new RegExp(`^${UP}\\s*${UPSTREAM}`), new RegExp(`^${DOWN}\\s*${UPSTREAM}`)]);
  // The ends cannot move further. The list changes once the gateway has stored the order, so the CLI reads it at once.
  await expect(routes.getByRole('button', { name: `Move ${UP} up` })).toBeDisabled();
  await expect(routes.getByRole('button', { name: `Move ${DOWN} down` })).toBeDisabled();

  await routes.getByRole('button', { name: `Move ${DOWN} up` }).click();
  await expect(items).toHaveText([new RegExp(`^${DOWN}\\s*${UPSTREAM}`), new RegExp(`^${UP}\\s*${UPSTREAM}`)]);
  await expect(routes.getByRole('button', { name: `Move ${DOWN} up` })).toBeDisabled();
  expect(storedOrder()).toEqual([DOWN, UP]);
  // ↓ moves it back, and the store follows; ↑ again leaves the down provider first for what follows.
  await routes.getByRole('button', { name: `Move ${DOWN} down` }).click();
  await expect(items.first()).toContainText(UP);
  await expect(routes.getByRole('button', { name: `Move ${UP} up` })).toBeDisabled();
  expect(storedOrder()).toEqual([UP, DOWN]);
  await routes.getByRole('button', { name: `Move ${DOWN} up` }).click();
  await expect(items.first()).toContainText(DOWN);
  expect(storedOrder()).toEqual([DOWN, UP]);
  const listed = (await studioApi<{ models: { record: { id: string }; routes: { provider: string }[] }[] }>('catalog.list')).models.find((m) => m.record.id === MODEL);
  expect(listed?.routes.map((r) => r.provider)).toEqual([DOWN, UP]);

  // One generation through /v1 with a key of its own: the down route fails, the second serves.
  const { key, token } = await studioApi<{ key: { id: string }; token: string }>('keys.create', { access: 'balance', balance_usd: '5', label: 'e2e-rt' });
  keyId = key.id;
  const response = await fetch(`${readServerState().apiBaseUrl}/images/generations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, prompt: 'a lighthouse at dusk', size: '1024x1024' }),
  });
  expect(response.status, await response.clone().text()).toBe(200);
  expect(((await response.json()) as { data: unknown[] }).data).toHaveLength(1);
  expect(emulator.requests.filter((r) => r.method === 'POST' && r.path === '/v1/images/generations')).toHaveLength(1);

  // Opening the Providers view reads the list (and the health) afresh.
  await gotoView(page, 'Providers');
  const providers = page.getByRole('region', { name: 'Providers' });
  const rowOf = (id: string) => providers.getByRole('row').filter({ has: page.getByText(id, { exact: true }) });
  await expect(providers.getByRole('columnheader', { name: 'Health' })).toBeVisible();
  const downHealth = rowOf(DOWN).getByRole('cell', { name: 'Health' });
  await expect(downHealth).toContainText('failing (1 in a row)');
  await expect(downHealth.getByRole('note')).toHaveText('could not connect');
  const upHealth = rowOf(UP).getByRole('cell', { name: 'Health' });
  await expect(upHealth).toContainText('healthy');
  await expect(upHealth.getByRole('note')).toHaveCount(0);

  await gotoView(page, 'Activity');
  const entry = page.getByRole('region', { name: 'Recent requests' }).getByRole('row').filter({ hasText: MODEL });
  await expect(entry).toHaveCount(1);
  await expect(entry).toContainText('/v1/images/generations');
  await expect(entry).toContainText(`via ${UP}`);
  await expect(entry).toContainText(`${DOWN}: could not connect`);
  await expect(entry).toContainText('200');
});
