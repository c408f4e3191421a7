// Where the project's built files are, whether this module runs compiled (dist/electron/...)
// or as TypeScript source under vitest (electron/...): walk up to the package.json.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(start: string): string {
  let dir = start;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) return start;
    dir = parent;
  }
  return dir;
}

export const PROJECT_ROOT = findRoot(dirname(fileURLToPath(import.meta.url)));
/** The Vite build of the React studio. */
export const RENDERER_DIST = join(PROJECT_ROOT, 'dist', 'renderer');

/** The app version from package.json. */
export function appVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version?: string }).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}
