// Which Chromium the e2e suite drives, found when the test command starts (playwright.config.ts):
// PLAYWRIGHT_CHROMIUM_PATH, else Playwright's own browser, else a system Chromium or Chrome; on
// Debian as root, apt-get installs `chromium` when none is found; otherwise a clear error. The
// suite never runs without a browser, nor skips its specs for want of one.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium } from '@playwright/test';

export const SYSTEM_BROWSERS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
] as const;

export interface BrowserHost {
  env: Record<string, string | undefined>;
  exists(path: string): boolean;
  /** Where Playwright's own Chromium would be (it may not be downloaded). */
  bundledPath(): string;
  systemPaths: readonly string[];
  /** Root on Debian with apt-get: the one case where the suite installs the browser itself. */
  canAptInstall(): boolean;
  aptInstallChromium(): void;
}

export function findChromium(host: BrowserHost = systemHost()): string {
  const explicit = host.env.PLAYWRIGHT_CHROMIUM_PATH;
  if (explicit) {
    if (host.exists(explicit)) return explicit;
    throw new Error(`PLAYWRIGHT_CHROMIUM_PATH is ${explicit}, which does not exist.`);
  }
  const found = [host.bundledPath(), ...host.systemPaths].find((path) => host.exists(path));
  if (found) return found;
  if (host.canAptInstall()) {
    host.aptInstallChromium();
    const installed = host.systemPaths.find((path) => host.exists(path));
    if (installed) return installed;
    throw new Error('apt-get installed chromium, but no Chromium binary is at ' + host.systemPaths.join(', ') + '.');
  }
  throw new Error(
    'No Chromium for the e2e suite: set PLAYWRIGHT_CHROMIUM_PATH, run `npx playwright install chromium`, ' +
      'or install a system Chromium or Chrome (Debian: `apt-get install chromium`).',
  );
}

function systemHost(): BrowserHost {
  return {
    env: process.env,
    exists: existsSync,
    bundledPath: () => chromium.executablePath(),
    systemPaths: SYSTEM_BROWSERS,
    canAptInstall: () => process.getuid?.() === 0 && existsSync('/etc/debian_version') && existsSync('/usr/bin/apt-get'),
    aptInstallChromium: () => {
      console.error('e2e: no Chromium found; installing Debian\'s chromium with apt-get');
      const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
      execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
      execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'inherit', env });
    },
  };
}
