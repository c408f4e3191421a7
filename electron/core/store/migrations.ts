// Versioned schema migrations, applied in order by Kysely's Migrator at every start.
// Never edit a shipped migration: add a new one.
import { sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';

const migrations: Record<string, Migration> = {
  '0001_accounts_keys_ledger_models': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('accounts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('access_type', 'text', (c) => c.notNull().check(sql`access_type in ('free','pro','balance')`))
        .addColumn('balance_nano', 'integer', (c) => c.notNull().defaultTo(0).check(sql`balance_nano >= 0`))
        .addColumn('allowance_nano', 'integer', (c) => c.notNull().defaultTo(0).check(sql`allowance_nano >= 0`))
        .addColumn('allowance_used_nano', 'integer', (c) => c.notNull().defaultTo(0).check(sql`allowance_used_nano >= 0`))
        .addColumn('held_nano', 'integer', (c) => c.notNull().defaultTo(0).check(sql`held_nano >= 0`))
        .addColumn('period_started_at', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'integer', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('label', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('token_hash', 'text', (c) => c.notNull())
        .addColumn('token_hint', 'text', (c) => c.notNull())
        .addColumn('created_at', 'integer', (c) => c.notNull())
        .addColumn('revoked_at', 'integer')
        .addColumn('last_used_at', 'integer')
        .execute();

      await db.schema
        .createTable('holds')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('amount_nano', 'integer', (c) => c.notNull().check(sql`amount_nano >= 0`))
        .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('active','consumed','released')`))
        .addColumn('purpose', 'text', (c) => c.notNull())
        .addColumn('ref', 'text')
        .addColumn('charged_nano', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'integer', (c) => c.notNull())
        .addColumn('settled_at', 'integer')
        .execute();
      await db.schema.createIndex('holds_active').on('holds').columns(['status', 'purpose']).execute();

      await db.schema
        .createTable('ledger')
        .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('amount_nano', 'integer', (c) => c.notNull())
        .addColumn('balance_delta_nano', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('allowance_delta_nano', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('hold_id', 'text', (c) => c.references('holds.id'))
        .addColumn('ref', 'text')
        .addColumn('created_at', 'integer', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('ledger_account').on('ledger').columns(['account_id', 'id']).execute();

      await db.schema
        .createTable('models')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('provider_id', 'text', (c) => c.notNull())
        .addColumn('upstream_model', 'text', (c) => c.notNull())
        .addColumn('record_json', 'text', (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'integer', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('meta')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute();

      // Any change to the catalog bumps one revision, so every process can tell that its
      // cached catalog is stale with a single cheap read (see catalog-service.ts).
      await sql`insert into meta (key, value) values ('catalog_revision', '0')`.execute(db);
      for (const event of ['insert', 'update', 'delete']) {
        await sql
          .raw(
            `create trigger models_${event}_bump after ${event} on models begin
               update meta set value = cast(value as integer) + 1 where key = 'catalog_revision';
             end`,
          )
          .execute(db);
      }
    },
  },
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
