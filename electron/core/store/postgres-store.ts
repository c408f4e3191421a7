// Team mode's store: one PostgreSQL database that several instances and the CLI share
// (docs/team.md). The same Kysely schema and migrations as SQLite; what differs stays here and
// in pg-*.ts. Nothing runs synchronously: the hot paths that use SQLite's prepared statements
// take their Kysely path when `dialect` is postgres.
import { Kysely, sql } from 'kysely';
import { GatewayError } from '../errors.js';
import type { Db, Store } from './database.js';
import { migrate } from './migrate.js';
import { parseDatabaseUrl, redactUrl } from './database-url.js';
import { createPool, openFailure } from './pg-connection.js';
import { PgChangeFeed } from './pg-change-feed.js';
import { postgresDialect } from './pg-dialect.js';
import { PostgresSchemaTypes } from './pg-schema-types.js';
import type { Database } from './schema.js';

/** Deadlocks and serialization failures roll the transaction back whole: it runs again. */
const RETRYABLE = new Set(['40P01', '40001']);
const TX_ATTEMPTS = 3;

const sqliteOnly = (what: string) => (): never => {
  throw new Error(`${what} is SQLite-only; on PostgreSQL take the Kysely path`);
};

export async function openPostgresStore(url: string): Promise<Store> {
  const parsed = parseDatabaseUrl(url);
  const pool = createPool(url);
  try {
    await pool.query('select 1');
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new GatewayError('storage_unavailable', openFailure(parsed, error));
  }
  const db = new Kysely<Database>({ dialect: postgresDialect(pool) });
  const feed = new PgChangeFeed(url);
  try {
    await migrate(db.withPlugin(new PostgresSchemaTypes()));
    await feed.start();
  } catch (error) {
    await feed.close();
    await db.destroy();
    const code = (error as { pgCode?: string }).pgCode;
    if (code === '42501') throw new GatewayError('storage_unavailable', openFailure(parsed, (error as Error).cause));
    throw error instanceof GatewayError ? error : new GatewayError('storage_unavailable', openFailure(parsed, error));
  }

  const store: Store = {
    dialect: 'postgres',
    db,
    path: redactUrl(url),
    async tx<T>(fn: (trx: Db) => Promise<T>): Promise<T> {
      for (let attempt = 1; ; attempt++) {
        try {
          return await db.transaction().execute((trx) => fn(trx));
        } catch (error) {
          const code = String((error as { code?: unknown }).code ?? '');
          if (!RETRYABLE.has(code) || attempt >= TX_ATTEMPTS) throw error;
        }
      }
    },
    async lock(trx: Db, key: string): Promise<void> {
      await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(trx);
    },
    dataVersion: () => feed.current(),
    checkpointInBackground: () => undefined,
    async close() {
      await feed.close();
      await db.destroy();
    },
    get raw(): never {
      return sqliteOnly('store.raw')();
    },
    txSync: sqliteOnly('store.txSync'),
    readSync: sqliteOnly('store.readSync'),
  };
  return store;
}
