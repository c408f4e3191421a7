// Videos view against the real gateway: the hold quote, a 2 s 480p job that reaches completed
// through pushed events (no reload, no list polling), and a playable inline <video>.
import { expect, test } from '@playwright/test';
import { gotoView, openStudio, png } from './helpers';

test('create a 2 s 480p video, watch it complete live, and play it', async ({ page }) => {
  await openStudio(page);
  await gotoView(page, 'Videos');

  await page.getByRole('radio', { name: 'Text to video' }).check();
  await page.getByLabel('Model', { exact: true }).selectOption('local-video');
  const duration = page.getByLabel('Duration', { exact: true });
  await expect(duration.locator('option')).toHaveText(['2 s', '4 s', '8 s']);
  await duration.selectOption('2');
  await page.getByLabel('Resolution', { exact: true }).selectOption('480p');
  // The hold comes from videos.quote and follows the selection (local-video: $0.05/s text-to-video).
  await expect(page.getByText('Hold: $0.10', { exact: true })).toBeVisible();
  await duration.selectOption('4');
  await expect(page.getByText('Hold: $0.20', { exact: true })).toBeVisible();
  await duration.selectOption('2');
  await expect(page.getByText('Hold: $0.10', { exact: true })).toBeVisible();

  // From here on the page must not reload nor re-list the jobs: updates arrive as events.
  await page.evaluate(() => Object.assign(window, { __sameDocument: true }));
  const listCalls: string[] = [];
  page.on('request', (request) => {
    if (request.url().endsWith('/studio/api/videos.list')) listCalls.push(request.url());
  });

  await page.getByRole('textbox', { name: 'Prompt' }).fill('waves rolling in at sunset');
  await page.getByRole('button', { name: 'Create video' }).click();

  const job = page.getByRole('region', { name: 'Video jobs' }).getByRole('listitem', { name: /^Video video_/ }).first();
  await expect(job).toContainText('local-video');
  await expect(job).toContainText('2 s · 480p · text-to-video');
  await expect(job).toHaveAttribute('data-status', 'completed', { timeout: 60_000 });
  await expect(job).toContainText(/Cost \$0\.1/);
  expect(await page.evaluate(() => (window as Window & { __sameDocument?: boolean }).__sameDocument)).toBe(true);
  expect(listCalls).toEqual([]);

  const video = job.locator('video');
  await expect(video).toHaveAttribute('src', /\/studio\/media\/.+/);
  await expect(job.getByRole('link', { name: 'Download' })).toHaveAttribute('download', /\.mp4$/);
  const played = await video.evaluate(async (v: HTMLVideoElement) => {
    v.muted = true;
    await v.play();
    // Until the playhead has moved: it really plays, not only started.
    while (v.currentTime === 0 && !v.error && !v.ended) {
      await new Promise((resolve) => ['timeupdate', 'error', 'ended'].forEach((type) => v.addEventListener(type, resolve, { once: true })));
    }
    return { readyState: v.readyState, duration: v.duration, currentTime: v.currentTime, error: v.error?.message ?? null };
  });
  expect(played.error).toBeNull();
  expect(played.readyState).toBeGreaterThanOrEqual(2);
  expect(Math.abs(played.duration - 2)).toBeLessThanOrEqual(0.5);
  expect(played.currentTime).toBeGreaterThan(0);
});

test('image-to-video with a reference, and cancelling an active job releases its hold', async ({ page }) => {
  await openStudio(page);
  await gotoView(page, 'Videos');
  const region = page.getByRole('region', { name: 'Video jobs' });
  const jobs = region.getByRole('listitem', { name: /^Video video_/ });
  // Counted once the list has loaded: earlier tests' jobs arrive with it.
  await expect(region.getByText(/^\d+ jobs?$/)).toBeVisible();
  const before = await jobs.count();

  // local-animate only does image-to-video: the other request type is not offered.
  await page.getByLabel('Model', { exact: true }).selectOption('local-animate');
  await expect(page.getByRole('radio', { name: 'Text to video' })).toBeDisabled();
  await expect(page.getByRole('radio', { name: 'Image to video' })).toBeChecked();
  await page.getByLabel('Duration', { exact: true }).selectOption('2');
  await page.getByLabel('Resolution', { exact: true }).selectOption('480p');
  await expect(page.getByText('Hold: $0.08', { exact: true })).toBeVisible();
  await page.getByRole('textbox', { name: 'Prompt' }).fill('slow push in');
  await page.getByRole('button', { name: 'Create video' }).click();
  await expect(page.getByRole('alert')).toContainText('needs a reference image');
  await page.locator('input[type="file"]').setInputFiles({ name: 'hill.png', mimeType: 'image/png', buffer: png(160, 90, [40, 120, 60], [200, 230, 140]) });
  await page.getByRole('button', { name: 'Create video' }).click();
  await expect(jobs).toHaveCount(before + 1);
  const animated = jobs.first();
  await expect(animated).toContainText('2 s · 480p · image-to-video');
  await expect(animated).toHaveAttribute('data-status', 'completed', { timeout: 60_000 });

  // A long job, cancelled while it runs: failed/cancelled, hold released, no player.
  await page.getByLabel('Model', { exact: true }).selectOption('local-video');
  await page.getByRole('radio', { name: 'Text to video' }).check();
  await page.getByLabel('Duration', { exact: true }).selectOption('8');
  await page.getByLabel('Resolution', { exact: true }).selectOption('1280x720');
  await page.getByRole('textbox', { name: 'Prompt' }).fill('a long night sky over the desert');
  await page.getByRole('button', { name: 'Create video' }).click();
  await expect(jobs).toHaveCount(before + 2);
  const long = jobs.first();
  await expect(long).toContainText('8 s · 1280x720');
  await long.getByRole('button', { name: 'Cancel' }).click();
  await expect(long).toHaveAttribute('data-status', 'failed');
  await expect(long).toContainText('cancelled:');
  await expect(long).toContainText('Hold released');
  await expect(long.locator('video')).toHaveCount(0);
});
