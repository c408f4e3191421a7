// Run first by `npm test`: the decode checks of the suite need ffprobe and ffmpeg (never skipped
// without them), and the Python SDK test needs python3 with the official `openai` package, so a
// machine without them fails here in one line each instead of half-way through.
// .ci/run installs them (apt-get install ffmpeg, python3 -m pip install openai).
import { spawnSync } from 'node:child_process';
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

const problems = [];
const missing = ['ffprobe', 'ffmpeg'].filter((name) => !found(name));
if (missing.length > 0) {
  problems.push(`npm test: ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} required: apt-get install ffmpeg`);
}
if (spawnSync('python3', ['-c', 'import openai'], { stdio: 'ignore' }).status !== 0) {
  problems.push('npm test: python3 with the openai package is required: python3 -m pip install openai');
}
if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exit(1);
}
