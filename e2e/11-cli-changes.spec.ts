// The studio follows what the CLI changes on the same data dir, without a reload: a price put by
// `mgw models put` shows in the open Models view, a `mgw balance top-up` of the studio's own key
// in the header.
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { gotoView, openStudio, studioApi } from './helpers';
import { readServerState } from './server-state';

const MGW = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'mgw.js');
const mgw = (...args: string[]) => execFileSync(process.execPath, [MGW, ...args, '--data-dir', readServerState().dataDir], { encoding: 'utf8' });

interface Catalog {
  models: { record: { id: string; pricing: { output?: number } } }[];
}

test('a CLI price change and a CLI top-up show in the open studio without a reload', async ({ page }) => {
  const original = (await studioApi<Catalog>('catalog.list')).models.find((m) => m.record.id === 'local-image')!.record.pricing.output;
  await openStudio(page);
  await gotoView(page, 'Models');
  const row = page.getByRole('region', { name: 'Catalog' }).getByRole('row').filter({ has: page.getByRole('button', { name: 'local-image', exact: true }) });
  await expect(row).toHaveCount(1);
  await expect(row).not.toContainText('out $9.00');
  let loads = 0;
  page.on('load', () => (loads += 1));

  try {
    mgw('models', 'put', 'local-image', '--json', JSON.stringify({ pricing: { output: 9 } }));
    await expect(row).toContainText('out $9.00', { timeout: 5_000 });
  } finally {
    mgw('models', 'put', 'local-image', '--json', JSON.stringify({ pricing: { output: original } }));
  }
  await expect(row).not.toContainText('out $9.00', { timeout: 5_000 });

  const header = page.getByTestId('header-balance');
  const before = await header.textContent();
  const { owner_key_id } = await studioApi<{ owner_key_id: string }>('system.info');
  mgw('balance', 'top-up', owner_key_id, '1');
  await expect(header).not.toHaveText(before ?? '', { timeout: 5_000 });
  expect(loads).toBe(0);
});
