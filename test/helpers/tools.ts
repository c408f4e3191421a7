// External programs the decode checks need (ffprobe, ffmpeg). A missing one fails the test that
// needs it with one clear line; no decode check is skipped for want of a tool. `npm test` checks
// them up front too (test/require-tools.mjs), and .ci/run installs them.
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The path of `name` on PATH (or in /usr/bin), or a clear error naming the package to install. */
export function requiredTool(name: 'ffprobe' | 'ffmpeg'): string {
  for (const dir of [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), '/usr/bin']) {
    const path = join(dir, name);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not here
    }
  }
  throw new Error(`${name} is required: apt-get install ffmpeg`);
}
