/**
 * Where the encode worker's JavaScript lives.
 *
 * Compiled modules: this file runs as dist/electron/engine/video/worker-path.js and the worker
 * is its sibling encode-worker.js. Bundled CLI (dist/bundle) and tests (vitest runs the .ts
 * sources, and a worker thread cannot execute TypeScript on Node 20): the worker is the copy
 * tsc emits into <project>/dist/electron/engine/video/, found from the project root.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PROJECT_ROOT } from '../../project-paths.js';

export function resolveWorkerUrl(): URL {
  const sibling = new URL('./encode-worker.js', import.meta.url);
  if (existsSync(sibling)) return sibling;
  const compiled = join(PROJECT_ROOT, 'dist', 'electron', 'engine', 'video', 'encode-worker.js');
  if (existsSync(compiled)) return pathToFileURL(compiled);
  throw new Error(`video encode worker not found at ${sibling.pathname} or ${compiled}; build first with \`npm run build\``);
}
