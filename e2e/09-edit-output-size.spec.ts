// Edit's default output size says what really comes out: with two references the built-in engine
// makes a side-by-side collage, larger than the first reference.
import { expect, test } from '@playwright/test';
import { gotoView, openStudio, png } from './helpers';

test('the automatic output size says the references are combined, and the result is the collage', async ({ page }) => {
  await openStudio(page);
  await gotoView(page, 'Edit');
  const sizeSelect = page.getByLabel('Output size', { exact: true });
  await expect(sizeSelect.locator('option:checked')).toHaveText('Automatic (from the references)');

  const picker = page.locator('input[type="file"]');
  await picker.setInputFiles({ name: 'first.png', mimeType: 'image/png', buffer: png(320, 240, [30, 90, 200], [120, 200, 250]) });
  await expect(sizeSelect).toHaveAccessibleDescription("The result keeps the reference's size, unless the instruction resizes it.");
  await picker.setInputFiles({ name: 'second.png', mimeType: 'image/png', buffer: png(200, 200, [200, 60, 30], [250, 200, 90]) });
  await expect(page.getByRole('img', { name: 'Reference second.png' })).toBeVisible();
  await expect(sizeSelect).toHaveAccessibleDescription(/combines the 2 references \(side by side .*\), so the result is larger than the first one/);

  await page.getByRole('textbox', { name: 'Prompt' }).fill('warmer colours');
  await page.getByRole('button', { name: 'Edit image' }).click();
  const image = page.getByRole('region', { name: 'Latest result' }).getByRole('img', { name: 'Result: warmer colours' });
  await expect.poll(() => image.evaluate((img: HTMLImageElement) => (img.complete ? `${img.naturalWidth}x${img.naturalHeight}` : ''))).toBe('560x240');

  // A chosen size is what comes out, and the hint goes.
  await sizeSelect.selectOption('512x512');
  await expect(sizeSelect).toHaveAccessibleDescription('');
});
