// Waiting for another process's write lock (the CLI, a second server) without stopping the event
// loop. SQLite's own busy handler sleeps on the calling thread, and libsql calls it on the main
// one: a lock held for seconds froze every request, /v1/models included. So the connection's
// busy_timeout is kept tiny, and the lock is waited for with timers, backing off, for up to
// LOCK_WAIT_MS; then the BUSY goes up as a 503.
//
// The lock is only ever met by a BEGIN IMMEDIATE run through exec(): a prepared statement that
// returns SQLITE_BUSY stays "active" until it is reset, and libsql cannot reset it, so every
// later COMMIT on the connection would fail ("SQL statements in progress"). Kysely's writes
// outside a transaction therefore run inside one of their own, opened here.
import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult, TransactionSettings } from 'kysely';
import type { RawDb } from './raw-db.js';

/** How long one operation waits for another process's lock in all. */
export const LOCK_WAIT_MS = 5_000;
/** What SQLite itself may wait, blocking, before answering BUSY (covers sub-millisecond overlaps). */
export const SYNC_BUSY_TIMEOUT_MS = 20;

export const isBusy = (error: unknown): boolean => /^SQLITE_BUSY/.test(String((error as { code?: unknown } | null)?.code ?? ''));

/** Runs `attempt` again while it fails with SQLITE_BUSY, for up to LOCK_WAIT_MS in all. */
export async function waitingForLock<T>(attempt: () => Promise<T> | T): Promise<T> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (let tries = 0; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (!isBusy(error) || Date.now() >= deadline) throw error;
    }
    const delay = Math.min(250, 10 * 2 ** Math.min(tries, 5));
    await new Promise((resolve) => setTimeout(resolve, delay / 2 + Math.random() * (delay / 2)));
  }
}

const WRITES = new Set(['InsertQueryNode', 'UpdateQueryNode', 'DeleteQueryNode']);

/** A Kysely dialect whose writes outside a transaction take the write lock as above first. */
export function lockWaitingDialect(base: Dialect, raw: RawDb): Dialect {
  return {
    createAdapter: () => base.createAdapter(),
    createQueryCompiler: () => base.createQueryCompiler(),
    createIntrospector: (db) => base.createIntrospector(db),
    createDriver: () => new LockWaitingDriver(base.createDriver(), raw),
  };
}

class LockWaitingDriver implements Driver {
  constructor(
    private readonly inner: Driver,
    private readonly raw: RawDb,
  ) {}
  init = () => this.inner.init();
  destroy = () => this.inner.destroy();
  releaseConnection = (connection: DatabaseConnection) => this.inner.releaseConnection(connection);
  beginTransaction = (connection: DatabaseConnection, settings: TransactionSettings) => this.inner.beginTransaction(connection, settings);
  commitTransaction = (connection: DatabaseConnection) => this.inner.commitTransaction(connection);
  rollbackTransaction = (connection: DatabaseConnection) => this.inner.rollbackTransaction(connection);

  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await this.inner.acquireConnection();
    return {
      executeQuery: <R>(query: CompiledQuery): Promise<QueryResult<R>> =>
        WRITES.has(query.query.kind) && !this.raw.inTransaction ? this.ownTransaction(() => connection.executeQuery<R>(query)) : connection.executeQuery<R>(query),
      streamQuery: <R>(query: CompiledQuery, chunkSize?: number) => connection.streamQuery<R>(query, chunkSize),
    };
  }

  /** One write in a transaction of its own; the statement runs synchronously inside it. */
  private ownTransaction<R>(run: () => Promise<QueryResult<R>>): Promise<QueryResult<R>> {
    return waitingForLock(() => {
      this.raw.exec('begin immediate');
      let result: Promise<QueryResult<R>>;
      try {
        result = run();
        this.raw.exec('commit');
      } catch (error) {
        if (this.raw.inTransaction) this.raw.exec('rollback');
        throw error;
      }
      return result;
    });
  }
}
