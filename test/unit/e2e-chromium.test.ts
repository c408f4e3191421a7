// The e2e suite's browser provisioning (e2e/chromium.ts), in the order issue 4 asks for:
// PLAYWRIGHT_CHROMIUM_PATH, Playwright's own browser, a system Chromium or Chrome, apt-get on
// Debian as root, else a clear error. Binaries are real files in a temp dir.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findChromium, type BrowserHost } from '../../e2e/chromium.js';

const dir = mkdtempSync(join(tmpdir(), 'mgw-chromium-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string) => {
  const path = join(dir, name);
  writeFileSync(path, '#!/bin/sh\n');
  return path;
};
const absent = (name: string) => join(dir, `absent-${name}`);

function host(over: Partial<BrowserHost> = {}): BrowserHost & { installs: number } {
  const result = {
    installs: 0,
    env: {},
    exists: existsSync,
    bundledPath: () => absent('bundled'),
    systemPaths: [absent('chromium'), absent('chrome')],
    canAptInstall: () => false,
    aptInstallChromium: () => {
      result.installs++;
    },
    ...over,
  };
  return result;
}

describe('findChromium', () => {
  it('PLAYWRIGHT_CHROMIUM_PATH comes first; one that does not exist is an error, not a fallback', () => {
    const chosen = file('chosen');
    expect(findChromium(host({ env: { PLAYWRIGHT_CHROMIUM_PATH: chosen }, bundledPath: () => file('bundled') }))).toBe(chosen);
    expect(() => findChromium(host({ env: { PLAYWRIGHT_CHROMIUM_PATH: absent('x') }, bundledPath: () => file('bundled') }))).toThrow(/PLAYWRIGHT_CHROMIUM_PATH/);
  });

  it("then Playwright's own browser, then the first system Chromium or Chrome", () => {
    const bundled = file('bundled');
    const chrome = file('chrome');
    expect(findChromium(host({ bundledPath: () => bundled, systemPaths: [absent('chromium'), chrome] }))).toBe(bundled);
    expect(findChromium(host({ systemPaths: [absent('chromium'), chrome] }))).toBe(chrome);
  });

  it('with none, on Debian as root, installs chromium with apt-get and uses it', () => {
    const target = join(dir, 'apt-chromium');
    const h = host({ systemPaths: [target], canAptInstall: () => true });
    h.aptInstallChromium = () => {
      h.installs++;
      writeFileSync(target, '');
    };
    expect(findChromium(h)).toBe(target);
    expect(h.installs).toBe(1);
  });

  it('with none and no way to install one, fails saying how to provide a browser', () => {
    const h = host();
    expect(() => findChromium(h)).toThrow(/No Chromium for the e2e suite: set PLAYWRIGHT_CHROMIUM_PATH/);
    expect(h.installs).toBe(0);
  });
});
