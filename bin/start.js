#!/usr/bin/env node
// npm start: the desktop app when Electron's binary is present (or can be installed now);
// otherwise one line saying why, then the headless gateway with its studio in the browser.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL('..', import.meta.url));

/** The electron package answers a path from its path.txt; the file itself may still be missing. */
function electronBinary() {
  try {
    const path = require('electron');
    return existsSync(path) ? { path } : { error: `${path} is missing` };
  } catch (error) {
    return { error: String(error.message ?? error).split('\n')[0] };
  }
}

let electron = electronBinary();
if (!electron.path && process.env.MGW_NO_ELECTRON_INSTALL !== '1') {
  // Electron's own download script (turned off during npm install by allowScripts).
  const install = spawnSync(process.execPath, [require.resolve('electron/install.js')], { stdio: 'ignore', timeout: 120_000 });
  if (install.status === 0) electron = electronBinary();
  else electron.error = `${electron.error}; downloading it failed (offline?)`;
}

const args = process.argv.slice(2);
let child;
if (electron.path) {
  // Set by some tools' terminals, it would make the binary run the app as a plain Node script.
  const { ELECTRON_RUN_AS_NODE: _dropped, ...env } = process.env;
  child = spawn(electron.path, [root, ...args], { stdio: 'inherit', env });
} else {
  process.stdout.write(`mgw: the Electron desktop shell is not available (${electron.error}); serving the headless studio instead.\n`);
  child = spawn(process.execPath, [fileURLToPath(new URL('./mgw.js', import.meta.url)), 'serve', ...args], { stdio: 'inherit' });
}
child.on('error', (error) => {
  process.stderr.write(`mgw: could not start ${child.spawnfile}: ${error.message}\n`);
  process.exit(1);
});
// A stop asked for (Ctrl+C, SIGTERM) is passed on; the child ending of it is a clean stop, as
// `mgw serve` itself exits 0 on those signals (whichever of the two the signal reaches first).
let forwarded = null;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    forwarded = signal;
    child.kill(signal);
  });
}
child.on('exit', (code, signal) => process.exit(code ?? (signal && signal !== forwarded ? 1 : 0)));
