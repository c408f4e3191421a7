/**
 * Where the encode worker's JavaScript lives.
 *
 * Production: this module runs as dist/electron/engine/video/worker-path.js and the
 * worker is its compiled sibling encode-worker.js.
 * Tests: vitest runs this file from electron/engine/video/*.ts, where no .js sibling
 * exists and a plain worker thread cannot execute TypeScript (Node 20 has no type
 * stripping and vitest's transform does not reach worker threads). We then use the copy
 * tsc emits into dist/ (`npm test` runs `tsc -p tsconfig.json` before vitest), found
 * relative to this file because rootDir is the repository root.
 */
import { existsSync } from 'node:fs';

export function resolveWorkerUrl(): URL {
  const sibling = new URL('./encode-worker.js', import.meta.url);
  if (existsSync(sibling)) return sibling;
  const compiled = new URL('../../../dist/electron/engine/video/encode-worker.js', import.meta.url);
  if (existsSync(compiled)) return compiled;
  throw new Error(`video encode worker not found at ${sibling.pathname} or ${compiled.pathname}; build first with \`tsc -p tsconfig.json\``);
}
