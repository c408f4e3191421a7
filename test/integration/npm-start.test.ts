// `npm start` (bin/start.js): with Electron's binary it runs the desktop app on this package;
// when the binary is missing (the electron package can name a path whose file is gone) it says
// so and serves the headless studio instead of crashing on the failed spawn.
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/gateway.js';

const START = fileURLToPath(new URL('../../bin/start.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Runs `npm start`'s script; stops it with SIGTERM once `until` shows, or waits for its own exit when null. */
function run(env: Record<string, string>, args: string[], until: RegExp | null): Promise<{ output: string; code: number | null }> {
  const child = spawn(process.execPath, [START, ...args], { env: { ...process.env, MGW_NO_ELECTRON_INSTALL: '1', MGW_LOG_LEVEL: 'silent', ...env } });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no ${until ?? 'exit'} within 20 s:\n${output}`));
    }, 20_000);
    const seen = (chunk: Buffer) => {
      output += chunk.toString();
      if (until?.test(output)) child.kill('SIGTERM');
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', seen);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ output, code });
    });
  });
}

describe('npm start', () => {
  it('with the binary missing, says so and serves the headless studio (it crashed on the spawn error)', async () => {
    const dir = tempDir('mgw-start-');
    const { output, code } = await run({ ELECTRON_OVERRIDE_DIST_PATH: join(dir, 'no-electron'), MGW_DATA_DIR: join(dir, 'data') }, ['--port', '0'], /mgw: studio http/);
    expect(output).toMatch(/the Electron desktop shell is not available \(.*no-electron[\\/]electron is missing\); serving the headless studio instead/);
    expect(output).toMatch(/mgw: listening on http:\/\/127\.0\.0\.1:\d+\/v1/);
    expect(output).not.toMatch(/Unhandled 'error' event/);
    expect(code).toBe(0);
  });

  it.runIf(process.platform !== 'win32')('with the binary, runs it on this package, without ELECTRON_RUN_AS_NODE', async () => {
    const dir = tempDir('mgw-start-');
    mkdirSync(join(dir, 'dist'));
    const binary = join(dir, 'dist', 'electron');
    writeFileSync(binary, '#!/bin/sh\necho "electron-stand-in app=$1 run-as-node=${ELECTRON_RUN_AS_NODE:-unset}"\n');
    chmodSync(binary, 0o755);
    // The stand-in ends by itself: a SIGTERM sent when its line shows could reach start.js first.
    const { output, code } = await run({ ELECTRON_OVERRIDE_DIST_PATH: join(dir, 'dist'), ELECTRON_RUN_AS_NODE: '1' }, [], null);
    expect(output).toContain(`electron-stand-in app=${ROOT}`);
    expect(output).toContain('run-as-node=unset');
    expect(code).toBe(0);
  });
});
