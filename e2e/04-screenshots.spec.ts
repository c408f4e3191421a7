// Screenshots of every view in light and dark (test-results/screenshots/<view>-<theme>.png), plus
// the theme default and toggle and the no-token screen. Runs after the images, videos and keys
// specs (01-03) so those views have content; the Providers view gets its own (a fal provider reading its key from the
// environment, added through the form: nothing is called upstream).
import { mkdirSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { VIEW_NAMES, gotoView, imagesSettled, openStudio, type ViewName } from './helpers';
import { readServerState } from './server-state';

const DIR = 'test-results/screenshots';

/** What must be on screen before a view is worth a picture. */
async function viewReady(page: Page, view: ViewName): Promise<void> {
  const content = page.locator('#content');
  switch (view) {
    case 'Models':
      await expect(page.getByRole('complementary', { name: /^Details of / })).toBeVisible();
      break;
    case 'Images':
      await expect(page.getByRole('region', { name: 'Gallery' }).getByRole('figure').first()).toBeVisible();
      break;
    case 'Videos':
      await expect(page.getByText(/^Hold: \$/)).toBeVisible();
      await expect(content.getByRole('listitem').first()).toBeVisible();
      await page.waitForFunction(() => Array.from(document.querySelectorAll('video')).every((v) => v.readyState >= 2));
      break;
    case 'Billing':
      await expect(content.getByRole('region', { name: 'Ledger' }).getByRole('row').nth(1)).toBeVisible();
      break;
    case 'Keys': {
      // The studio key's usage panel open (its images and videos from the other specs), in view.
      await expect(content.getByRole('table').getByRole('row').nth(1)).toBeVisible();
      const owner = content.getByRole('row').filter({ has: page.getByTitle("The studio's own key") });
      await owner.getByRole('button', { name: 'Usage', exact: true }).click();
      const panel = content.getByRole('region', { name: /^Usage of / });
      await expect(panel.getByRole('row').nth(1)).toBeVisible();
      await panel.scrollIntoViewIfNeeded();
      break;
    }
    case 'Providers':
    case 'Activity':
      await expect(content.getByRole('table').getByRole('row').nth(1)).toBeVisible();
      break;
    case 'Edit':
      await expect(page.getByRole('region', { name: 'Recent edits' }).getByRole('figure').first()).toBeVisible();
      break;
  }
  await imagesSettled(page);
}

async function shootAll(page: Page, theme: 'light' | 'dark'): Promise<void> {
  mkdirSync(DIR, { recursive: true });
  for (const view of VIEW_NAMES) {
    await gotoView(page, view);
    await viewReady(page, view);
    await page.screenshot({ path: `${DIR}/${view.toLowerCase()}-${theme}.png` });
  }
}

test.beforeAll(async ({ browser }) => {
  const page = await browser.newPage();
  await openStudio(page);
  await gotoView(page, 'Providers');
  const form = page.getByRole('form', { name: 'Add a provider' });
  await form.getByLabel('Kind', { exact: true }).selectOption('fal');
  await expect(form.getByLabel('Base URL', { exact: true })).toHaveAttribute('placeholder', 'https://queue.fal.run');
  await form.getByLabel('Provider id', { exact: true }).fill('fal');
  await form.getByLabel('API key environment variable', { exact: true }).fill('FAL_KEY');
  await form.getByRole('button', { name: 'Add provider' }).click();
  // Base URL left empty: the fal default.
  const row = page.getByRole('region', { name: 'Providers' }).getByRole('row').filter({ hasText: 'https://queue.fal.run' });
  await expect(row).toContainText('env:FAL_KEY');
  // fal has no model listing: no Discover button.
  await expect(row.getByRole('button', { name: 'Test connection' })).toBeVisible();
  await expect(row.getByRole('button', { name: 'Discover models' })).toHaveCount(0);
  await page.close();
});

test('every view, light theme (the default under a light system scheme)', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'light' });
  await openStudio(page);
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  await shootAll(page, 'light');
});

test('every view, dark theme (through the header toggle)', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'light' });
  await openStudio(page);
  await page.getByRole('button', { name: 'Dark mode' }).click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await expect(page.getByRole('button', { name: 'Light mode' })).toBeVisible();
  await shootAll(page, 'dark');
});

test('the theme follows the system scheme until the user picks one', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await openStudio(page);
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await page.emulateMedia({ colorScheme: 'light' });
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  // An explicit choice sticks, across a reload and a later system change.
  await page.getByRole('button', { name: 'Dark mode' }).click();
  await page.reload();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await page.emulateMedia({ colorScheme: 'light' });
  await expect(page.getByRole('button', { name: 'Light mode' })).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
});

test('without a token the studio says where to find the URL', async ({ page }) => {
  const { studioUrl } = readServerState();
  await page.emulateMedia({ colorScheme: 'light' });
  await page.goto(studioUrl.replace(/#.*$/, ''));
  await expect(page.getByText('Open the studio URL that mgw serve printed (it carries the owner token).')).toBeVisible();
  mkdirSync(DIR, { recursive: true });
  await page.screenshot({ path: `${DIR}/no-token-light.png` });

  // A wrong token is refused with a readable "code: message" (a fresh load, not a fragment change).
  await page.goto('about:blank');
  await page.goto(`${studioUrl.replace(/#.*$/, '')}#token=wrong`);
  await expect(page.getByRole('alert')).toHaveText(/^invalid_api_key: /);
});
