// The event stream is the studio's line to the gateway: while it is down (the server stopped or
// restarts) the sidebar says so instead of "Connected", and says nothing once it is back.
import { expect, test } from '@playwright/test';
import { openStudio } from './helpers';

test('the sidebar says the gateway is unreachable while the event stream is down', async ({ page }) => {
  // The stream refused from the start, as when the server stops between page load and stream.
  await page.route('**/studio/events', (route) => route.abort('connectionrefused'));
  await openStudio(page);
  const sidebar = page.locator('aside.sidebar');
  await expect(sidebar.getByRole('status')).toHaveText('Gateway unreachable, reconnecting…', { timeout: 15_000 });

  await page.unroute('**/studio/events');
  await expect(sidebar).toContainText('Connected over loopback HTTP', { timeout: 20_000 });
  await expect(sidebar.getByRole('status')).toHaveCount(0);
});
