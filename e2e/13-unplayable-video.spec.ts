// A finished video whose bytes the browser cannot decode (an upstream's codec, a placeholder
// file): the job says so and keeps its Download link, instead of a silent 0:00 player.
import { expect, test } from '@playwright/test';
import { gotoView, openStudio } from './helpers';

test('a completed video the window cannot play says so and still offers the download', async ({ page }) => {
  await page.route('**/studio/media/**', (route) =>
    route.fulfill({ status: 200, contentType: 'video/mp4', body: Buffer.from('not an mp4 at all') }),
  );
  await openStudio(page);
  await gotoView(page, 'Videos');
  const region = page.getByRole('region', { name: 'Video jobs' });
  const jobs = region.getByRole('listitem', { name: /^Video video_/ });
  // Counted once the list has loaded: earlier tests' jobs arrive with it.
  await expect(region.getByText(/^\d+ jobs?$/)).toBeVisible();
  const before = await jobs.count();
  await page.getByRole('radio', { name: 'Text to video' }).check();
  await page.getByLabel('Model', { exact: true }).selectOption('local-video');
  await page.getByLabel('Duration', { exact: true }).selectOption('2');
  await page.getByLabel('Resolution', { exact: true }).selectOption('480p');
  await page.getByRole('textbox', { name: 'Prompt' }).fill('a codec this window lacks');
  await page.getByRole('button', { name: 'Create video' }).click();
  await expect(jobs).toHaveCount(before + 1);

  const job = jobs.first(); // newest first
  await expect(job).toHaveAttribute('data-status', 'completed', { timeout: 60_000 });
  await expect(job.getByRole('status')).toContainText('cannot play this video');
  await expect(job.locator('video')).toHaveCount(0);
  await expect(job.getByRole('link', { name: 'Download' })).toHaveAttribute('download', /\.mp4$/);
});
