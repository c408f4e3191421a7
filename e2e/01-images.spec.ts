// Images and Edit views against the real gateway: generate, see the picture, keep it in the
// gallery; edit with two references made in the test.
import { expect, test } from '@playwright/test';
import { gotoView, openStudio, png } from './helpers';

test('generate an image, see it with its cost, find it in the gallery', async ({ page }) => {
  await openStudio(page);
  await gotoView(page, 'Images');

  await page.getByRole('textbox', { name: 'Prompt' }).fill('a lighthouse on a cliff at sunset');
  await page.getByLabel('Model', { exact: true }).selectOption('local-image');
  const size = page.getByLabel('Size', { exact: true });
  // Only the model's supported sizes are offered.
  await expect(size.locator('option')).toHaveText(['256x256', '512x512', '768x768', '1024x1024', '1024x1536', '1536x1024']);
  await size.selectOption('768x768');
  await page.getByRole('button', { name: 'Generate' }).click();

  const result = page.getByRole('region', { name: 'Latest result' });
  const image = result.getByRole('img', { name: 'Result: a lighthouse on a cliff at sunset' });
  await expect(image).toBeVisible();
  await expect.poll(() => image.evaluate((img: HTMLImageElement) => (img.complete ? img.naturalWidth : 0))).toBe(768);
  await expect(result).toContainText(/Cost \$0\.\d+/);

  const gallery = page.getByRole('region', { name: 'Gallery' });
  const tile = gallery.getByRole('figure').filter({ hasText: 'a lighthouse on a cliff at sunset' });
  await expect(tile).toHaveCount(1);
  const download = tile.getByRole('link', { name: 'Download' });
  await expect(download).toHaveAttribute('download', /\.png$/);
  const href = await download.getAttribute('href');
  expect(href).toMatch(/\/studio\/media\//);

  // Ctrl+Enter in the prompt submits too.
  await page.getByRole('textbox', { name: 'Prompt' }).fill('neon city at night');
  await page.getByRole('textbox', { name: 'Prompt' }).press('Control+Enter');
  await expect(result.getByRole('img', { name: 'Result: neon city at night' })).toBeVisible();
  await expect(gallery.getByRole('figure')).toHaveCount(2);

  // Delete removes it from the persisted gallery (still gone after a reload).
  await gallery.getByRole('figure').filter({ hasText: 'neon city at night' }).getByRole('button', { name: 'Delete' }).click();
  await expect(gallery.getByRole('figure')).toHaveCount(1);
  await page.reload();
  await expect(page.getByRole('region', { name: 'Gallery' }).getByRole('figure')).toHaveCount(1);
});

test('edit with two reference images', async ({ page }) => {
  await openStudio(page);
  await gotoView(page, 'Edit');

  const picker = page.locator('input[type="file"]');
  await expect(picker).toHaveAttribute('accept', 'image/png,image/jpeg,image/webp');
  const refs = [
    { name: 'sunrise.png', mimeType: 'image/png', buffer: png(96, 64, [250, 120, 40], [250, 220, 120]) },
    { name: 'ocean.png', mimeType: 'image/png', buffer: png(96, 64, [20, 60, 160], [60, 200, 220]) },
  ];
  await picker.setInputFiles(refs);
  // Previews are object URLs; they must render under the page's CSP.
  for (const name of ['sunrise.png', 'ocean.png']) {
    const preview = page.getByRole('img', { name: `Reference ${name}` });
    await expect.poll(() => preview.evaluate((img: HTMLImageElement) => (img.complete ? img.naturalWidth : 0))).toBe(96);
  }

  // Going over max_reference_images is caught before sending.
  await picker.setInputFiles([refs[0]!, refs[1]!]);
  await expect(page.getByRole('alert')).toContainText('local-image accepts at most 3 reference images (4 selected)');
  await expect(page.getByRole('button', { name: 'Edit image' })).toBeDisabled();
  await page.getByRole('button', { name: 'Remove sunrise.png' }).last().click();
  await page.getByRole('button', { name: 'Remove ocean.png' }).last().click();
  await expect(page.getByRole('alert')).toHaveCount(0);

  await page.getByRole('textbox', { name: 'Prompt' }).fill('collage of these');
  await page.getByLabel('Output size', { exact: true }).selectOption('512x512');
  await page.getByRole('button', { name: 'Edit image' }).click();

  const result = page.getByRole('region', { name: 'Latest result' });
  const image = result.getByRole('img', { name: 'Result: collage of these' });
  await expect.poll(() => image.evaluate((img: HTMLImageElement) => (img.complete ? img.naturalWidth : 0))).toBe(512);
  await expect(result).toContainText('edit');
  await expect(result).toContainText(/Cost \$0\.\d+/);
});
