// The gateway's one SQLite file: libsql (better-sqlite3 API, prebuilt N-API binary) under Kysely.
// WAL so the CLI and a running server share it safely; foreign keys on; writers wait for locks
// without blocking the event loop (lock-wait.ts).
import { accessSync, closeSync, constants, existsSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import Libsql from 'libsql';
import { Kysely, SqliteDialect, type Transaction } from 'kysely';
import { fileInDataDirPath } from '../config.js';
import { GatewayError } from '../errors.js';
import type { Logger } from '../logger.js';
import { CHECKPOINTER_DELAY_MS, startCheckpointer, type Checkpointer } from './checkpointer.js';
import { lockWaitingDialect, SYNC_BUSY_TIMEOUT_MS, waitingForLock } from './lock-wait.js';
import { migrate } from './migrate.js';
import type { RawDb } from './raw-db.js';
import type { Database } from './schema.js';

export type Db = Kysely<Database>;
export type Tx = Kysely<Database> | Transaction<Database>;

export type Dialect = 'sqlite' | 'postgres';

export interface Store {
  /** SQLite in a data dir (the desktop, one server), or a PostgreSQL several instances share (team mode, docs/team.md). */
  readonly dialect: Dialect;
  readonly db: Db;
  /** SQLite only: the same connection without Kysely, for the few hot paths that need prepared statements. */
  readonly raw: RawDb;
  /** The database file, or the database URL without its password. */
  readonly path: string;
  /** Runs `fn` inside BEGIN IMMEDIATE: the write lock is taken up front, so two processes never deadlock on upgrade. */
  tx<T>(fn: (trx: Db) => Promise<T>): Promise<T>;
  /**
   * Runs a synchronous `fn` inside BEGIN IMMEDIATE, after any open async transaction has ended.
   * Nothing in `fn` may await. Never call it from inside tx(): it would wait for itself.
   */
  txSync<T>(fn: () => T): Promise<T>;
  /** Runs synchronous reads at once, or after an open async transaction (never seeing its writes). */
  readSync<T>(fn: () => T): Promise<T>;
  /**
   * Moves when another connection may have changed what caches hold: SQLite's data_version (any
   * other connection's commit); on PostgreSQL a counter the change feed moves (pg-change-feed.ts).
   * Synchronous and cheap.
   */
  dataVersion(): number;
  /**
   * Inside `trx`: waits until no other transaction holds `key`, then holds it until commit.
   * SQLite's transactions already run one at a time (BEGIN IMMEDIATE): nothing to do there. On
   * PostgreSQL, a transaction-scoped advisory lock: how instances take turns on one task or account.
   */
  lock(trx: Db, key: string): Promise<void>;
  /** A serving process: WAL checkpoints from a child process, never inside a request's commit (checkpointer.ts). */
  checkpointInBackground(logger: Logger): void;
  close(): Promise<void>;
}

export const DATABASE_FILE = 'gateway.db';

/**
 * Why the database would not open, in words that point at the fix. SQLite says only "unable to
 * open database file" when it cannot create its -wal and -shm files beside the database.
 */
function openFailure(dataDir: string, error: unknown): string {
  try {
    accessSync(dataDir, constants.W_OK);
  } catch {
    return `the directory cannot be written (read-only?), and the database needs to create its ${DATABASE_FILE}-wal and ${DATABASE_FILE}-shm files there.`;
  }
  return (error as Error).message;
}

export async function openStore(dataDir: string): Promise<Store> {
  // Prompts, the ledger and key hashes are the owner's alone: a new data dir and database file
  // are readable by the owner only (SQLite gives its -wal and -shm files the database's mode).
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  } catch (error) {
    // A dir that cannot be made (read-only parent, permissions) says so, not "ENOENT, mkdir".
    const code = (error as NodeJS.ErrnoException).code;
    const file = fileInDataDirPath(dataDir);
    const reason = file
      ? `${file} is a file, not a directory`
      : code === 'ENOENT' || code === 'EROFS' ? 'its parent directory cannot be written (read-only?)' : (error as Error).message;
    throw new GatewayError('storage_unavailable', `Cannot create the data directory ${dataDir}: ${reason}.`);
  }
  const path = join(dataDir, DATABASE_FILE);
  let raw: RawDb;
  try {
    if (!existsSync(path)) closeSync(openSync(path, 'a', 0o600));
    raw = new Libsql(path);
    // The wait first: switching a new database to WAL takes a lock that another process opening
    // it at the same moment (a dozen CLI commands at once) may hold.
    raw.pragma(`busy_timeout = ${SYNC_BUSY_TIMEOUT_MS}`);
    raw.pragma('journal_mode = WAL');
    raw.pragma('foreign_keys = ON');
    raw.pragma('synchronous = NORMAL');
  } catch (error) {
    throw new GatewayError('storage_unavailable', `Cannot open the database in ${dataDir}: ${openFailure(dataDir, error)}`);
  }
  // raw() rows are arrays; libsql ignores pluck() and adds _metadata to object rows.
  const dataVersionStmt = raw.prepare('pragma data_version').raw(true);
  const db = new Kysely<Database>({ dialect: lockWaitingDialect(new SqliteDialect({ database: raw }), raw) });

  try {
    await migrate(db);
  } catch (error) {
    await db.destroy();
    throw error;
  }

  // While an async (Kysely) transaction is open on the connection, synchronous transactions
  // wait for it; otherwise they run at once. A synchronous transaction cannot interleave with
  // anything: it starts and commits within one turn of the event loop.
  let checkpointer: Checkpointer | null = null;
  let checkpointerDue: NodeJS.Timeout | null = null;
  let asyncTxOpen = false;
  let waiting: (() => void)[] = [];
  const runSync = <T>(fn: () => T): T => {
    raw.exec('begin immediate');
    try {
      const result = fn();
      raw.exec('commit');
      return result;
    } catch (err) {
      if (raw.inTransaction) raw.exec('rollback');
      throw err;
    }
  };
  /** Runs synchronous `fn` at once, or once the open async transaction has ended. */
  const whenFree = <T>(fn: () => T): Promise<T> => {
    if (asyncTxOpen) return new Promise<void>((resolve) => waiting.push(resolve)).then(() => whenFree(fn));
    try {
      return Promise.resolve(fn());
    } catch (err) {
      return Promise.reject(err);
    }
  };
  // BEGIN IMMEDIATE is where another process's lock is met; nothing has run yet, so waiting and
  // running again is safe (a BUSY at COMMIT rolled everything back, so that is too).
  const txSync = <T>(fn: () => T): Promise<T> => waitingForLock(() => whenFree(() => runSync(fn)));

  return {
    dialect: 'sqlite',
    db,
    path,
    lock: async () => undefined,
    readSync: whenFree,
    async tx<T>(fn: (trx: Db) => Promise<T>): Promise<T> {
      // connection() pins Kysely's single SQLite connection for the whole callback, so no other
      // Kysely query can interleave with this transaction.
      // BEGIN, COMMIT and ROLLBACK go through exec(), never a prepared statement: see lock-wait.ts.
      return db.connection().execute(async (conn) => {
        await waitingForLock(() => raw.exec('begin immediate'));
        asyncTxOpen = true;
        try {
          const result = await fn(conn);
          raw.exec('commit');
          return result;
        } catch (err) {
          if (raw.inTransaction) raw.exec('rollback');
          throw err;
        } finally {
          asyncTxOpen = false;
          const resume = waiting;
          waiting = [];
          resume.forEach((wake) => wake());
        }
      });
    },
    raw,
    txSync,
    dataVersion: () => (dataVersionStmt.get() as [number])[0],
    checkpointInBackground(logger) {
      // A moment after the start, so that spawning the child does not delay the first answer;
      // until then the commits checkpoint themselves, as SQLite does by default.
      if (checkpointer || checkpointerDue) return;
      checkpointerDue = setTimeout(() => {
        checkpointerDue = null;
        checkpointer = startCheckpointer(raw, path, logger);
      }, CHECKPOINTER_DELAY_MS);
      checkpointerDue.unref();
    },
    async close() {
      if (checkpointerDue) clearTimeout(checkpointerDue);
      checkpointerDue = null;
      await checkpointer?.stop();
      checkpointer = null;
      await db.destroy();
    },
  };
}
