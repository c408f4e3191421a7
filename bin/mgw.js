#!/usr/bin/env node
// mgw entry point: runs the compiled CLI (npm install builds it through the prepare script).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../dist/electron/cli.js', import.meta.url));
if (!existsSync(cli)) {
  process.stderr.write('mgw: the project is not built yet; run "npm run build" (npm install does it) first\n');
  process.exit(2);
}
const { main } = await import(cli);
const code = await main(process.argv.slice(2));
if (code >= 0) process.exit(code);
