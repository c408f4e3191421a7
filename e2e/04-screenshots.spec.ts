// Screenshots of every view in light and dark (test-results/screenshots/<view>-<theme>.png), plus
// the theme default and toggle and the no-token screen. Each picture is checked, not only
// written (checkShot): a PNG of the viewport's size, not blank or uniform, its overall lightness
// that of its theme, and the view's heading and key element (visible in the DOM at the moment of
// capture) drawn with contrast where their boxes are. Structural checks rather than golden
// images: the views hold generated images, costs and times that change from run to run. Runs after the images, videos and keys
// specs (01-03) so those views have content; the Providers view gets its own (a fal provider reading its key from the
// environment, added through the form: nothing is called upstream).
import { mkdirSync } from 'node:fs';
import { expect, test, type Locator, type Page } from '@playwright/test';
import sharp from 'sharp';
import { VIEW_NAMES, gotoView, imagesSettled, openStudio, type ViewName } from './helpers';
import { readServerState } from './server-state';

const DIR = 'test-results/screenshots';

/** What must be on screen before a view is worth a picture; returns the element that makes the view. */
async function viewReady(page: Page, view: ViewName): Promise<Locator> {
  const content = page.locator('#content');
  let key: Locator;
  switch (view) {
    case 'Models':
      key = page.getByRole('complementary', { name: /^Details of / });
      await expect(key).toBeVisible();
      break;
    case 'Images':
      key = page.getByRole('region', { name: 'Gallery' }).getByRole('figure').first();
      await expect(key).toBeVisible();
      break;
    case 'Videos':
      await expect(page.getByText(/^Hold: \$/)).toBeVisible();
      key = content.getByRole('listitem').first();
      await expect(key).toBeVisible();
      await page.waitForFunction(() => Array.from(document.querySelectorAll('video')).every((v) => v.readyState >= 2));
      break;
    case 'Billing':
      key = content.getByRole('region', { name: 'Ledger' }).getByRole('row').nth(1);
      await expect(key).toBeVisible();
      break;
    case 'Keys': {
      // The studio key's usage panel open (its images and videos from the other specs), in view.
      await expect(content.getByRole('table').getByRole('row').nth(1)).toBeVisible();
      const owner = content.getByRole('row').filter({ has: page.getByTitle("The studio's own key") });
      await owner.getByRole('button', { name: 'Usage', exact: true }).click();
      const panel = content.getByRole('region', { name: /^Usage of / });
      key = panel.getByRole('row').nth(1);
      await expect(key).toBeVisible();
      await panel.scrollIntoViewIfNeeded();
      break;
    }
    case 'Providers':
    case 'Activity':
      key = content.getByRole('table').getByRole('row').nth(1);
      await expect(key).toBeVisible();
      break;
    case 'Edit':
      key = page.getByRole('region', { name: 'Recent edits' }).getByRole('figure').first();
      await expect(key).toBeVisible();
      break;
    default:
      throw new Error(`no key element known for the ${String(view)} view`);
  }
  await imagesSettled(page);
  return key;
}

/** Luminance (0-255) of every pixel of a raw RGB(A) buffer, or of a box of it. */
function luma(data: Buffer, width: number, channels: number, box = { x: 0, y: 0, w: width, h: data.length / channels / width }): number[] {
  const out: number[] = [];
  for (let y = box.y; y < box.y + box.h; y++) {
    for (let x = box.x; x < box.x + box.w; x++) {
      const i = (y * width + x) * channels;
      out.push(0.2126 * data[i]! + 0.7152 * data[i + 1]! + 0.0722 * data[i + 2]!);
    }
  }
  return out;
}

const spread = (values: number[]): number => {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / values.length);
};
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * Takes the screenshot and checks it: the viewport's size, many colours and real contrast (not
 * blank), the theme's lightness (the median pixel is the page background: light above 170, dark
 * below 90), and each of `shown` (visible in the DOM now) drawn with contrast inside its box.
 */
async function checkShot(page: Page, path: string, theme: 'light' | 'dark', shown: Locator[]): Promise<void> {
  const png = await page.screenshot({ path, animations: 'disabled', caret: 'hide' });
  const viewport = page.viewportSize()!;
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  expect([info.width, info.height], path).toEqual([viewport.width, viewport.height]);
  const all = luma(data, info.width, info.channels);
  const colours = new Set<number>();
  for (let i = 0; i < data.length; i += info.channels * 7) colours.add((data[i]! << 16) | (data[i + 1]! << 8) | data[i + 2]!);
  expect(colours.size, `${path}: distinct colours`).toBeGreaterThan(40);
  expect(spread(all), `${path}: luminance spread`).toBeGreaterThan(6);
  if (theme === 'light') expect(median(all), `${path}: median luminance`).toBeGreaterThan(170);
  else expect(median(all), `${path}: median luminance`).toBeLessThan(90);
  for (const element of shown) {
    await expect(element).toBeVisible();
    const box = await element.boundingBox();
    expect(box, `${path}: ${element}`).not.toBeNull();
    const x = Math.max(0, Math.floor(box!.x));
    const y = Math.max(0, Math.floor(box!.y));
    const w = Math.min(info.width, Math.ceil(box!.x + box!.width)) - x;
    const h = Math.min(info.height, Math.ceil(box!.y + box!.height)) - y;
    expect(w > 4 && h > 4, `${path}: ${element} lies in the viewport (${x},${y} ${w}x${h})`).toBe(true);
    expect(spread(luma(data, info.width, info.channels, { x, y, w, h })), `${path}: contrast inside ${element}`).toBeGreaterThan(8);
  }
}

async function shootAll(page: Page, theme: 'light' | 'dark'): Promise<void> {
  mkdirSync(DIR, { recursive: true });
  for (const view of VIEW_NAMES) {
    await gotoView(page, view);
    const key = await viewReady(page, view);
    const heading = page.getByRole('heading', { level: 1, name: view, exact: true });
    await checkShot(page, `${DIR}/${view.toLowerCase()}-${theme}.png`, theme, [heading, key]);
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
  const hint = page.getByText('Open the studio URL that mgw serve printed (it carries the owner token).');
  await expect(hint).toBeVisible();
  mkdirSync(DIR, { recursive: true });
  await checkShot(page, `${DIR}/no-token-light.png`, 'light', [hint]);

  // A wrong token is refused with a readable "code: message" (a fresh load, not a fragment change).
  await page.goto('about:blank');
  await page.goto(`${studioUrl.replace(/#.*$/, '')}#token=wrong`);
  await expect(page.getByRole('alert')).toHaveText(/^invalid_api_key: /);
});
