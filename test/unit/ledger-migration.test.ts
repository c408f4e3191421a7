// Migration 0008 rebuilds the ledger without AUTOINCREMENT. A data dir written by a version
// before it keeps every ledger row (ids included), its balances still agree with the ledger,
// and the next ids continue after the old ones.
import Libsql from 'libsql';
import { Kysely, Migrator, SqliteDialect, type Migration, type MigrationProvider } from 'kysely';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createGateway } from '../../electron/core/gateway.js';
import { DATABASE_FILE } from '../../electron/core/store/database.js';
import { migrationProvider } from '../../electron/core/store/migrations.js';
import { tempDir } from '../helpers/gateway.js';

/** The migrations a version before 0008 shipped. */
const before0008: MigrationProvider = {
  getMigrations: async () => Object.fromEntries(Object.entries(await migrationProvider.getMigrations()).filter(([name]) => name < '0008')) as Record<string, Migration>,
};

describe('migration 0008: ledger ids without AUTOINCREMENT', () => {
  it('keeps every row and id of an older data dir, and new ids follow them', async () => {
    const dataDir = tempDir('mgw-mig-');
    const raw = new Libsql(join(dataDir, DATABASE_FILE));
    raw.pragma('journal_mode = WAL');
    const old = new Kysely<unknown>({ dialect: new SqliteDialect({ database: raw }) });
    expect((await new Migrator({ db: old, provider: before0008 }).migrateToLatest()).error).toBeUndefined();
    raw.exec(`insert into accounts (id, access_type, balance_nano, period_started_at, created_at) values ('acct_old', 'balance', 700, 1, 1)`);
    raw.exec(`insert into ledger (id, account_id, kind, amount_nano, balance_delta_nano, created_at) values
      (1, 'acct_old', 'top_up', 1000, 1000, 1), (7, 'acct_old', 'consume', 300, -300, 2)`);
    expect(raw.prepare("select sql from sqlite_master where name = 'ledger'").all()).toEqual([{ sql: expect.stringContaining('autoincrement') }]);
    await old.destroy();

    const gateway = await createGateway({ dataDir });
    try {
      const db = gateway.store.db;
      expect(await db.selectFrom('ledger').select(['id', 'kind', 'amount_nano', 'balance_delta_nano']).orderBy('id').execute()).toEqual([
        { id: 1, kind: 'top_up', amount_nano: 1000, balance_delta_nano: 1000 },
        { id: 7, kind: 'consume', amount_nano: 300, balance_delta_nano: -300 },
      ]);
      const schema = gateway.store.raw.prepare("select sql from sqlite_master where name = 'ledger'").all() as { sql: string }[];
      expect(schema[0]!.sql.toLowerCase()).not.toContain('autoincrement');
      await gateway.billing.topUp('acct_old', 50);
      const rows = await gateway.billing.ledgerFor('acct_old');
      expect(rows.map((r) => r.id)).toEqual([8, 7, 1]);
      expect((await gateway.billing.getAccount('acct_old')).balance_nano).toBe(750);
    } finally {
      await gateway.close();
    }
  });
});
