#!/usr/bin/env node
// npm start: the desktop app when Electron's binary is present (or can be installed now);
// otherwise one line saying why, then the headless gateway with its studio in the browser.
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL('..', import.meta.url));

function electronBinary() {
  try {
    return { path: require('electron') };
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
const child = electron.path
  ? spawn(electron.path, [root, ...args], { stdio: 'inherit' })
  : (process.stdout.write(`mgw: the Electron desktop shell is not available (${electron.error}); serving the headless studio instead.\n`),
    spawn(process.execPath, [fileURLToPath(new URL('./mgw.js', import.meta.url)), 'serve', ...args], { stdio: 'inherit' }));
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
