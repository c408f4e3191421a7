// Keys view against the real gateway: create a key, read its one-time token from the page, use it
// from outside the browser, watch its balance and the activity update live, then revoke it; read a
// key's usage (live) and change its access.
import { expect, test, type Page } from '@playwright/test';
import { gotoView, openStudio } from './helpers';
import { readServerState } from './server-state';

/** Creates a balance key with $1 through the form. */
async function createKey(page: Page, label: string): Promise<void> {
  const form = page.getByRole('form', { name: 'Create a key' });
  await form.getByLabel('Access', { exact: true }).selectOption('balance');
  await form.getByLabel('Balance (USD)', { exact: true }).fill('1');
  await form.getByLabel('Label', { exact: true }).fill(label);
  await form.getByRole('button', { name: 'Create key' }).click();
}

/** POST /v1/images/generations from Node with a key's token. */
async function generate(token: string): Promise<Response> {
  return fetch(`${readServerState().apiBaseUrl}/images/generations`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ model: 'local-image', prompt: 'a lighthouse at dusk', size: '256x256' }),
  });
}

const count = (text: string | null): number => Number((text ?? '').replace(/,/g, ''));

test('create a key in the studio and call /v1/images/generations with it', async ({ page }) => {
  const { apiBaseUrl } = readServerState();
  await openStudio(page);
  await gotoView(page, 'Keys');

  await createKey(page, 'e2e-script');

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

test("a key's usage panel counts its requests live, and its access changes to pro", async ({ page }) => {
  await openStudio(page);
  await gotoView(page, 'Keys');
  await createKey(page, 'e2e-usage');
  const token = (await page.getByTestId('new-key-token').textContent())?.trim() ?? '';
  expect(token).toMatch(/^mgw_/);
  expect((await generate(token)).status).toBe(200);

  const keys = page.getByRole('region', { name: 'Keys' });
  const row = keys.getByRole('row').filter({ hasText: 'e2e-usage' });
  const usageButton = row.getByRole('button', { name: 'Usage', exact: true });
  await usageButton.click();
  await expect(usageButton).toHaveAttribute('aria-expanded', 'true');

  // One request for local-image, with tokens, and no daily cap for balance access.
  const panel = page.getByRole('region', { name: 'Usage of e2e-usage' });
  const model = panel.getByRole('row').filter({ hasText: 'local-image' });
  await expect(model).toHaveCount(1);
  const cells = model.getByRole('cell');
  await expect(cells.nth(0)).toHaveText(/^\d{4}-\d{2}-\d{2}$/);
  await expect(cells.nth(2)).toHaveText('1');
  const tokens = count(await cells.nth(3).textContent()) + count(await cells.nth(4).textContent());
  expect(tokens).toBeGreaterThan(0);
  await expect(cells.nth(5)).toHaveText(/^\$0\.\d*[1-9]/);
  await expect(panel).toContainText('no daily cap for paid access');

  // Another request from outside: the open panel follows (activity.added / billing.changed).
  expect((await generate(token)).status).toBe(200);
  await expect(cells.nth(2)).toHaveText('2');

  // The studio's own key keeps its access, as it cannot be revoked here.
  const owner = keys.getByRole('row').filter({ has: page.getByTitle("The studio's own key") });
  await expect(owner).toHaveCount(1);
  await expect(owner.getByRole('button', { name: 'Change access' })).toHaveCount(0);
  await expect(owner.getByRole('button', { name: 'Revoke' })).toHaveCount(0);

  // An amount the gateway would refuse is explained before sending; the row keeps its access.
  await row.getByRole('button', { name: 'Change access' }).click();
  const access = page.getByRole('form', { name: 'Access of e2e-usage' });
  await access.getByLabel('Access', { exact: true }).selectOption('pro');
  const allowance = access.getByLabel('Allowance per period (USD)', { exact: true });
  await allowance.fill('lots');
  await expect(access.getByRole('alert')).toHaveText(/^The amount must be a plain decimal amount in USD/);
  await expect(access.getByRole('button', { name: 'Save access' })).toBeDisabled();
  await expect(row.getByTestId('key-access')).toHaveText('balance');

  // Pro with an allowance of $1: the row shows pro and the allowance.
  await allowance.fill('1');
  await access.getByRole('button', { name: 'Save access' }).click();
  await expect(access).toHaveCount(0);
  await expect(keys.getByRole('alert')).toHaveCount(0);
  await expect(row.getByTestId('key-access')).toHaveText('pro');
  await expect(row.getByRole('cell').nth(4)).toContainText('allowance $1.00');
  await expect(panel).toContainText('no daily cap for paid access');

  // Close the panel from its own button.
  await panel.getByRole('button', { name: 'Close' }).click();
  await expect(panel).toHaveCount(0);
  await expect(usageButton).toHaveAttribute('aria-expanded', 'false');
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
