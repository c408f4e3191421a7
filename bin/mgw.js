#!/usr/bin/env node
// mgw entry point: runs the bundled CLI (npm install builds it through the prepare script), or
// the plain compiled modules when the bundle is missing.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const bundle = fileURLToPath(new URL('../dist/bundle/mgw.mjs', import.meta.url));
const modules = fileURLToPath(new URL('../dist/electron/cli.js', import.meta.url));
const cli = existsSync(bundle) ? bundle : modules;
if (!existsSync(cli)) {
  process.stderr.write('mgw: the project is not built yet; run "npm run build" (npm install does it) first\n');
  process.exit(2);
}
const { main } = await import(cli);
const code = await main(process.argv.slice(2));
if (code >= 0) process.exit(code);
