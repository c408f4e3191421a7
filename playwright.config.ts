// End-to-end tests of the studio in Chromium (e2e/chromium.ts finds or installs it) against a
// real `mgw serve` (started by e2e/global-setup.ts on a free port with a fresh data dir, stopped
// by e2e/global-teardown.ts).
import { defineConfig } from '@playwright/test';
import { findChromium } from './e2e/chromium';

export default defineConfig({
  testDir: 'e2e',
  testMatch: '*.spec.ts',
  // One server, one browser: the specs share the gateway's state, in file order (the screenshots
  // spec, 04, runs after the images, videos and keys specs so those views have content).
  workers: 1,
  fullyParallel: false,
  timeout: 90_000,
  expect: { timeout: 15_000 },
  reporter: [['list']],
  // test-results/screenshots/ holds the view screenshots; keep Playwright's own artifacts apart.
  outputDir: 'test-results/playwright',
  globalSetup: './e2e/global-setup.ts',
  globalTeardown: './e2e/global-teardown.ts',
  use: {
    browserName: 'chromium',
    viewport: { width: 1280, height: 800 },
    launchOptions: {
      executablePath: findChromium(),
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
});
