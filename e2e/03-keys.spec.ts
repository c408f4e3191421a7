// Keys view against the real gateway: create a key, read its one-time token from the page, use it
// from outside the browser, watch its balance and the activity update live, then revoke it.
import { expect, test } from '@playwright/test';
import { gotoView, openStudio } from './helpers';
import { readServerState } from './server-state';

test('create a key in the studio and call /v1/images/generations with it', async ({ page }) => {
  const { apiBaseUrl } = readServerState();
  await openStudio(page);
  await gotoView(page, 'Keys');

  await page.getByLabel('Access', { exact: true }).selectOption('balance');
  await page.getByLabel('Balance (USD)', { exact: true }).fill('1');
  await page.getByLabel('Label', { exact: true }).fill('e2e-script');
  await page.getByRole('button', { name: 'Create key' }).click();

  const token = (await page.getByTestId('new-key-token').textContent())?.trim() ?? '';
  expect(token).toMatch(/^mgw_/);
  const snippet = await page.getByTestId('curl-snippet').textContent();
  expect(snippet).toBe(
    `curl ${apiBaseUrl}/images/generations -H "Authorization: Bearer ${token}" -H "Content-Type: application/json" -d '{"model":"local-image","prompt":"a red fox"}'`,
  );
  await expect(page.getByRole('button', { name: 'Copy', exact: true })).toBeVisible();

  const row = page.getByRole('region', { name: 'Keys' }).getByRole('row').filter({ hasText: 'e2e-script' });
  await expect(row).toContainText('balance');
  await expect(row).toContainText('active');
  await expect(row).toContainText('$1.00');

  // Outside the browser, exactly like the snippet.
  const response = await fetch(`${apiBaseUrl}/images/generations`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ model: 'local-image', prompt: 'a red fox', size: '256x256' }),
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { data: { b64_json: string }[]; usage: { cost_usd: string } };
  expect(body.data[0]?.b64_json.length).toBeGreaterThan(100);
  expect(Number(body.usage.cost_usd)).toBeGreaterThan(0);

  // billing.changed refreshes the key's balance without a reload.
  await expect(row.getByRole('cell').nth(4)).not.toContainText('$1.00');

  // The request shows up in Activity (activity.added / activity.list).
  await gotoView(page, 'Activity');
  const entry = page.getByRole('region', { name: 'Recent requests' }).getByRole('row').filter({ hasText: '/v1/images/generations' });
  await expect(entry.filter({ hasText: 'e2e-script' }).first()).toContainText('200');

  // Revoke: the token stops working.
  await gotoView(page, 'Keys');
  await row.getByRole('button', { name: 'Revoke' }).click();
  await expect(row).toContainText('revoked');
  const refused = await fetch(`${apiBaseUrl}/images/generations`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ model: 'local-image', prompt: 'a red fox' }),
  });
  expect(refused.status).toBe(401);
});

test('billing shows the balance, takes a top-up and shows errors with their code', async ({ page }) => {
  await openStudio(page);
  await gotoView(page, 'Billing');
  const available = page.getByTestId('header-balance');
  const before = await available.textContent();
  await page.getByRole('region', { name: 'Top up' }).getByLabel('Amount (USD)').fill('2.5');
  await page.getByRole('region', { name: 'Top up' }).getByRole('button', { name: 'Top up' }).click();
  await expect(available).not.toHaveText(before ?? '');
  await expect(page.getByRole('region', { name: 'Ledger' }).getByRole('row').filter({ hasText: '$2.50' }).first()).toBeVisible();
  await expect(page.getByRole('img', { name: /^Spend over the last \d+ days/ })).toBeVisible();

  // A refused call is shown as "code: message".
  await page.getByRole('region', { name: 'Top up' }).getByLabel('Amount (USD)').fill('0');
  await page.getByRole('region', { name: 'Top up' }).getByRole('button', { name: 'Top up' }).click();
  await expect(page.getByRole('region', { name: 'Top up' }).getByRole('alert')).toHaveText(/^[a-z_]+: .+/);
});
