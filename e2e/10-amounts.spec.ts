// Amount fields take what the gateway takes and say why before sending: "1e2" (which a number
// input accepted) and an amount over the largest one entry can hold.
import { expect, test } from '@playwright/test';
import { gotoView, openStudio, studioApi } from './helpers';

test('Billing top-up and key creation explain a refused amount before sending it', async ({ page }) => {
  await openStudio(page);
  await gotoView(page, 'Billing');
  const topUp = page.getByRole('region', { name: 'Top up' });
  const amount = topUp.getByLabel('Amount (USD)');
  const button = topUp.getByRole('button', { name: 'Top up' });
  const ledgerBefore = (await studioApi<{ ledger: unknown[] }>('billing.summary')).ledger.length;

  await amount.fill('1e2');
  await expect(amount).toHaveAttribute('aria-invalid', 'true');
  await expect(topUp.getByRole('alert')).toHaveText('The amount must be a plain decimal amount in USD such as 10 or 2.50 (digits, at most 9 decimals, no exponent).');
  await expect(button).toBeDisabled();
  await amount.press('Enter');

  await amount.fill('10000000');
  await expect(topUp.getByRole('alert')).toHaveText(/^The amount must be at most 9007199\.254740991 USD, the most a balance holds exactly/);
  await expect(button).toBeDisabled();
  await amount.press('Enter');
  expect((await studioApi<{ ledger: unknown[] }>('billing.summary')).ledger.length).toBe(ledgerBefore);

  await amount.fill('1.5');
  await expect(topUp.getByRole('alert')).toHaveCount(0);
  await expect(button).toBeEnabled();

  await gotoView(page, 'Keys');
  const form = page.getByRole('form', { name: 'Create a key' });
  await form.getByLabel('Balance (USD)', { exact: true }).fill('1e2');
  await expect(form.getByRole('alert')).toContainText('no exponent');
  await expect(form.getByRole('button', { name: 'Create key' })).toBeDisabled();
  await form.getByLabel('Balance (USD)', { exact: true }).fill('100');
  await expect(form.getByRole('alert')).toHaveCount(0);
  await expect(form.getByRole('button', { name: 'Create key' })).toBeEnabled();
});
