// Run first by `npm test`: the decode checks of the suite need ffprobe and ffmpeg (never skipped
// without them), so a machine without them fails here in one line instead of half-way through.
// .ci/run installs them (apt-get install ffmpeg).
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

const found = (name) =>
  [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), '/usr/bin'].some((dir) => {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });

const missing = ['ffprobe', 'ffmpeg'].filter((name) => !found(name));
if (missing.length > 0) {
  console.error(`npm test: ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} required: apt-get install ffmpeg`);
  process.exit(1);
}
