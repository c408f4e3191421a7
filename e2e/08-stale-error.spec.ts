// A refusal names the file it was about: once the user changes the files (or the prompt, or the
// model), the old message goes, in Edit and in Videos.
import { expect, test, type Page } from '@playwright/test';
import { gotoView, openStudio, png } from './helpers';

const notAnImage = { name: 'fake.png', mimeType: 'image/png', buffer: Buffer.from('just some text, not a PNG at all\n'.repeat(4)) };
const realImage = { name: 'real.png', mimeType: 'image/png', buffer: png(64, 48, [200, 80, 40], [240, 200, 90]) };

async function refuseThenReplace(page: Page, button: string): Promise<void> {
  const picker = page.locator('input[type="file"]');
  await picker.setInputFiles(notAnImage);
  await page.getByRole('button', { name: button }).click();
  const alert = page.getByRole('alert');
  await expect(alert).toContainText('invalid_request: The file "fake.png" is not a PNG, JPEG or WebP image.');
  await page.getByRole('button', { name: 'Remove fake.png' }).click();
  await expect(alert).toHaveCount(0);

  // Same refusal again, and this time a change of prompt clears it.
  await picker.setInputFiles(notAnImage);
  await page.getByRole('button', { name: button }).click();
  await expect(alert).toContainText('fake.png');
  await page.getByRole('textbox', { name: 'Prompt' }).fill('something else');
  await expect(alert).toHaveCount(0);
  await page.getByRole('button', { name: 'Remove fake.png' }).click();
  await picker.setInputFiles(realImage);
  await expect(page.getByRole('img', { name: 'Reference real.png' })).toBeVisible();
  await expect(alert).toHaveCount(0);
}

test('Edit: an error about a removed file goes with it', async ({ page }) => {
  await openStudio(page);
  await gotoView(page, 'Edit');
  await page.getByRole('textbox', { name: 'Prompt' }).fill('make it blue');
  await refuseThenReplace(page, 'Edit image');
});

test('Videos: an error about a removed reference goes with it', async ({ page }) => {
  await openStudio(page);
  await gotoView(page, 'Videos');
  await page.getByLabel('Model', { exact: true }).selectOption('local-animate');
  await page.getByLabel('Duration', { exact: true }).selectOption('2');
  await page.getByRole('textbox', { name: 'Prompt' }).fill('slow pan');
  await refuseThenReplace(page, 'Create video');
});
