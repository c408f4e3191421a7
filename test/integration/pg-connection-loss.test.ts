// A PostgreSQL connection that dies while the store holds it checked out (a transaction between
// two queries) must fail that transaction as DatabaseUnreachable, never end the process: the
// client's 'error' event has no pool listener while it is checked out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import pg from 'pg';
import { openDatabase } from '../../electron/core/store/open-database.js';
import type { Store } from '../../electron/core/store/database.js';
import { DatabaseUnreachable } from '../../electron/core/store/pg-connection.js';
import { tempDir } from '../helpers/gateway.js';
import { sharedPostgres } from '../helpers/postgres.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a connection lost while checked out', () => {
  let store: Store;
  let url: string;
  beforeAll(async () => {
    url = await (await sharedPostgres()).createDatabase('loss');
    store = await openDatabase(tempDir(), url);
  });
  afterAll(async () => {
    await store?.close();
  });

  it('fails its transaction as DatabaseUnreachable; the process lives and the next query works', async () => {
    const uncaught: unknown[] = [];
    const hear = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', hear);
    try {
      const killer = new pg.Client({ connectionString: url });
      await killer.connect();
      const outcome = await store
        .tx(async (trx) => {
          const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
          await killer.query('select pg_terminate_backend($1)', [rows[0]!.pid]);
          // The server's goodbye arrives while no query runs on this client.
          await sleep(300);
          await sql`select 1`.execute(trx);
          return 'committed';
        })
        .catch((error: unknown) => error);
      await killer.end();
      expect(outcome).toBeInstanceOf(DatabaseUnreachable);
      expect(uncaught).toEqual([]);
      const { rows } = await sql<{ one: number }>`select 1 as one`.execute(store.db);
      expect(rows).toEqual([{ one: 1 }]);
    } finally {
      process.off('uncaughtException', hear);
    }
  });
});
