// Removing a model from the catalog in the Models view: asked once more, then gone from the
// list and from GET /v1/models (the same core function as `mgw models remove`).
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { gotoView, openStudio, studioApi } from './helpers';
import { readServerState } from './server-state';

const MGW = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'mgw.js');
const mgw = (...args: string[]) => execFileSync(process.execPath, [MGW, ...args, '--data-dir', readServerState().dataDir], { encoding: 'utf8' });

interface Catalog {
  models: { record: { id: string } & Record<string, unknown> }[];
}

test('remove a model from the catalog, after a confirmation', async ({ page }) => {
  const template = (await studioApi<Catalog>('catalog.list')).models.find((m) => m.record.id === 'local-image')!.record;
  mgw('models', 'put', 'e2e-removable', '--provider', 'local', '--upstream-model', 'local-image', '--json', JSON.stringify({ ...template, id: 'e2e-removable' }));

  await openStudio(page);
  await gotoView(page, 'Models');
  const catalog = page.getByRole('region', { name: 'Catalog' });
  await catalog.getByRole('button', { name: 'e2e-removable', exact: true }).click();
  const detail = page.getByRole('complementary', { name: 'Details of e2e-removable' });
  await detail.getByRole('button', { name: 'Remove from catalog…' }).click();
  const confirm = detail.getByRole('group', { name: 'Remove e2e-removable?' });
  await expect(confirm).toContainText('Requests naming it will be refused');
  await confirm.getByRole('button', { name: 'Remove e2e-removable' }).click();

  await expect(catalog.getByRole('button', { name: 'e2e-removable', exact: true })).toHaveCount(0);
  const listed = (await studioApi<Catalog>('catalog.list')).models.map((m) => m.record.id);
  expect(listed).not.toContain('e2e-removable');
  expect(listed).toContain('local-image');
});
