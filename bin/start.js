#!/usr/bin/env node
// npm start: the desktop shell is not built yet, so this runs the headless gateway on the
// default port (see README). Extra arguments go to `mgw serve`.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const mgw = fileURLToPath(new URL('./mgw.js', import.meta.url));
const child = spawn(process.execPath, [mgw, 'serve', ...process.argv.slice(2)], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
