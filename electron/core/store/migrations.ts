// Versioned schema migrations, applied in order by Kysely's Migrator at every start.
// Never edit a shipped migration: add a new one.
// Written once for both dialects: schema builder calls get PostgreSQL's types from
// pg-schema-types.ts; the few statements that differ (triggers, SQLite's table rebuilds) branch
// on onPostgres().
import { PostgresAdapter, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import { CHANGE_CHANNEL } from './change-channel.js';

const onPostgres = (db: Kysely<unknown>): boolean => db.getExecutor().adapter instanceof PostgresAdapter;

/** Triggers that bump the catalog revision on any change to `table` (see catalog-service.ts). */
async function bumpCatalogRevisionOn(db: Kysely<unknown>, table: string): Promise<void> {
  if (onPostgres(db)) {
    await sql`create or replace function mgw_bump_catalog_revision() returns trigger language plpgsql as $$
      begin
        update meta set value = (value::bigint + 1)::text where key = 'catalog_revision';
        return null;
      end $$`.execute(db);
    await sql
      .raw(`create trigger ${table}_bump after insert or update or delete on ${table} for each statement execute function mgw_bump_catalog_revision()`)
      .execute(db);
    return;
  }
  for (const event of ['insert', 'update', 'delete']) {
    await sql
      .raw(
        `create trigger ${table}_${event}_bump after ${event} on ${table} begin
               update meta set value = cast(value as integer) + 1 where key = 'catalog_revision';
             end`,
      )
      .execute(db);
  }
}

/** SQLite cannot drop a CHECK: 0009's providers table is rebuilt without it. */
async function rebuildProvidersWithTimeout(db: Kysely<unknown>): Promise<void> {
  await sql`create table providers_next (
    id text primary key,
    kind text not null,
    base_url text not null,
    api_key_env text,
    timeout_ms integer,
    created_at integer not null,
    updated_at integer not null
  )`.execute(db);
  await sql`insert into providers_next (id, kind, base_url, api_key_env, created_at, updated_at) select id, kind, base_url, api_key_env, created_at, updated_at from providers`.execute(db);
  await sql`drop table providers`.execute(db);
  await sql`alter table providers_next rename to providers`.execute(db);
}

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
      await bumpCatalogRevisionOn(db, 'models');
    },
  },
  '0002_video_tasks_idempotency': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('video_tasks')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('key_id', 'text', (c) => c.notNull())
        .addColumn('model', 'text', (c) => c.notNull())
        .addColumn('provider_id', 'text', (c) => c.notNull())
        .addColumn('upstream_model', 'text', (c) => c.notNull())
        .addColumn('request_type', 'text', (c) => c.notNull())
        .addColumn('prompt', 'text', (c) => c.notNull())
        .addColumn('seconds', 'integer', (c) => c.notNull())
        .addColumn('size', 'text', (c) => c.notNull())
        .addColumn('client_request_id', 'text')
        .addColumn('reference_files', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('status', 'text', (c) =>
          c.notNull().check(sql`status in ('queued','in_progress','completed','failed','timeout')`),
        )
        .addColumn('progress', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('hold_id', 'text', (c) => c.references('holds.id'))
        .addColumn('cost_nano', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('upstream_id', 'text')
        .addColumn('output_path', 'text')
        .addColumn('output_url', 'text')
        .addColumn('error_code', 'text')
        .addColumn('error_message', 'text')
        .addColumn('created_at', 'integer', (c) => c.notNull())
        .addColumn('updated_at', 'integer', (c) => c.notNull())
        .addColumn('completed_at', 'integer')
        .addColumn('deadline_at', 'integer', (c) => c.notNull())
        .addColumn('next_poll_at', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('video_tasks_owner').on('video_tasks').columns(['account_id', 'created_at', 'id']).execute();
      await db.schema.createIndex('video_tasks_status').on('video_tasks').columns(['status', 'next_poll_at']).execute();

      await db.schema
        .createTable('idempotency_keys')
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('request_hash', 'text', (c) => c.notNull())
        .addColumn('task_id', 'text', (c) => c.notNull())
        .addColumn('created_at', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('idempotency_keys_pk', ['account_id', 'key'])
        .execute();
    },
  },
  '0003_gallery_request_log': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('gallery')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('generation','edit')`))
        .addColumn('model', 'text', (c) => c.notNull())
        .addColumn('prompt', 'text', (c) => c.notNull())
        .addColumn('width', 'integer', (c) => c.notNull())
        .addColumn('height', 'integer', (c) => c.notNull())
        .addColumn('cost_nano', 'integer', (c) => c.notNull())
        .addColumn('file', 'text', (c) => c.notNull())
        .addColumn('created_at', 'integer', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('gallery_recent').on('gallery').columns(['account_id', 'created_at']).execute();

      await db.schema
        .createTable('request_log')
        .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
        .addColumn('at', 'integer', (c) => c.notNull())
        .addColumn('key_id', 'text')
        .addColumn('method', 'text', (c) => c.notNull())
        .addColumn('endpoint', 'text', (c) => c.notNull())
        .addColumn('model', 'text')
        .addColumn('status', 'integer', (c) => c.notNull())
        .addColumn('latency_ms', 'real', (c) => c.notNull())
        .addColumn('cost_nano', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('request_log_recent').on('request_log').column('at').execute();
    },
  },
  '0004_providers': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('providers')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('openai','fal')`))
        .addColumn('base_url', 'text', (c) => c.notNull())
        .addColumn('api_key_env', 'text')
        .addColumn('created_at', 'integer', (c) => c.notNull())
        .addColumn('updated_at', 'integer', (c) => c.notNull())
        .execute();
    },
  },
  '0005_usage_daily': {
    async up(db: Kysely<unknown>) {
      // Per key (or anonymous address), per UTC day and model: what daily quotas and the owner's
      // usage reports read.
      await db.schema
        .createTable('usage_daily')
        .addColumn('principal', 'text', (c) => c.notNull())
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('model', 'text', (c) => c.notNull())
        .addColumn('requests', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('input_tokens', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('output_tokens', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('spend_nano', 'integer', (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint('usage_daily_pk', ['principal', 'day', 'model'])
        .execute();
    },
  },
  '0006_video_output_bytes': {
    async up(db: Kysely<unknown>) {
      // The size of a finished video's file, recorded at completion: a file cut short or
      // replaced later is a storage fault, not a video to serve. Null on tasks completed before.
      await db.schema.alterTable('video_tasks').addColumn('output_bytes', 'integer').execute();
    },
  },
  '0007_upstream_cancel_pending': {
    async up(db: Kysely<unknown>) {
      // An ended task whose upstream job is still to be cancelled, until when that is retried
      // (null: nothing pending). Written with the task's end, so a crash before the upstream
      // cancel went out (or an upstream down at the time) does not leave the job running.
      await db.schema.alterTable('video_tasks').addColumn('upstream_cancel_until', 'integer').execute();
      await db.schema
        .createIndex('video_tasks_cancel_pending')
        .on('video_tasks')
        .column('next_poll_at')
        .where(sql.ref('upstream_cancel_until'), 'is not', null)
        .execute();
    },
  },
  '0008_ledger_rowid_ids': {
    async up(db: Kysely<unknown>) {
      // A sequence is PostgreSQL's own: nothing to rebuild there.
      if (onPostgres(db)) return;
      // Ledger ids without AUTOINCREMENT: every charge also rewrote sqlite_sequence, one more
      // page in the one write a paid request makes, and twice the time of its transaction.
      // Rows are never deleted, so a plain rowid (max + 1) grows as AUTOINCREMENT did.
      await sql`create table ledger_next (
        id integer primary key,
        account_id text not null references accounts (id),
        kind text not null,
        amount_nano integer not null,
        balance_delta_nano integer not null default 0,
        allowance_delta_nano integer not null default 0,
        hold_id text references holds (id),
        ref text,
        created_at integer not null
      )`.execute(db);
      await sql`insert into ledger_next select id, account_id, kind, amount_nano, balance_delta_nano, allowance_delta_nano, hold_id, ref, created_at from ledger`.execute(db);
      await sql`drop table ledger`.execute(db);
      await sql`alter table ledger_next rename to ledger`.execute(db);
      await db.schema.createIndex('ledger_account').on('ledger').columns(['account_id', 'id']).execute();
      await sql`delete from sqlite_sequence where name = 'ledger'`.execute(db);
    },
  },
  '0009_local_engines': {
    async up(db: Kysely<unknown>) {
      // Provider kinds are checked in code (provider-kinds.ts): each new engine was a table
      // rebuild while the column carried a CHECK. timeout_ms: the owner's whole-call timeout
      // for this provider (a local engine may take minutes per image); null is the default.
      if (onPostgres(db)) {
        await sql`alter table providers drop constraint if exists providers_kind_check`.execute(db);
        await db.schema.alterTable('providers').addColumn('timeout_ms', 'integer').execute();
      } else await rebuildProvidersWithTimeout(db);
      // A ComfyUI model's workflow (API format, with placeholders); and what a video task's engine
      // run needs from its model as it was at creation ({workflow, fps}): a task resubmitted
      // after a restart runs the workflow it was priced for.
      await db.schema.alterTable('models').addColumn('workflow_json', 'text').execute();
      await db.schema.alterTable('video_tasks').addColumn('engine_json', 'text').execute();
    },
  },
  '0010_model_routes': {
    async up(db: Kysely<unknown>) {
      // A model served by several providers in order (catalog/model-routes.ts): each model's one
      // provider becomes its first route, and the models table keeps only the record.
      await db.schema
        .createTable('model_routes')
        .addColumn('model_id', 'text', (c) => c.notNull().references('models.id').onDelete('cascade'))
        .addColumn('position', 'integer', (c) => c.notNull())
        .addColumn('provider_id', 'text', (c) => c.notNull())
        .addColumn('upstream_model', 'text', (c) => c.notNull())
        .addColumn('workflow_json', 'text')
        .addPrimaryKeyConstraint('model_routes_pk', ['model_id', 'position'])
        .execute();
      await db.schema.createIndex('model_routes_provider').on('model_routes').column('provider_id').execute();
      await sql`insert into model_routes (model_id, position, provider_id, upstream_model, workflow_json) select id, 0, provider_id, upstream_model, workflow_json from models`.execute(db);
      for (const column of ['provider_id', 'upstream_model', 'workflow_json']) await db.schema.alterTable('models').dropColumn(column).execute();
      await bumpCatalogRevisionOn(db, 'model_routes');
      // The breaker's view of each provider, and what a request's routes did (activity log).
      await db.schema
        .createTable('provider_health')
        .addColumn('provider_id', 'text', (c) => c.primaryKey())
        .addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('skipped_until', 'integer')
        .addColumn('last_error', 'text')
        .addColumn('last_error_at', 'integer')
        .addColumn('last_ok_at', 'integer')
        .addColumn('latency_ms', 'integer')
        .addColumn('updated_at', 'integer', (c) => c.notNull())
        .execute();
      await db.schema.alterTable('request_log').addColumn('route', 'text').execute();
      await db.schema.alterTable('request_log').addColumn('failed_routes', 'text').execute();
    },
  },
  '0011_team_mode': {
    async up(db: Kysely<unknown>) {
      // Team mode (docs/team.md): several instances on one PostgreSQL. The tables exist in both
      // dialects (one schema); a lone SQLite server leaves them empty.
      // Each instance's heartbeat: its leases and image holds lapse when it stops beating.
      await db.schema
        .createTable('instances')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('host', 'text', (c) => c.notNull())
        .addColumn('pid', 'integer', (c) => c.notNull())
        .addColumn('started_at', 'integer', (c) => c.notNull())
        .addColumn('alive_until', 'integer', (c) => c.notNull())
        .execute();
      // The instance working an active video task, until when (it renews while alive).
      await db.schema.alterTable('video_tasks').addColumn('lease_owner', 'text').execute();
      await db.schema.alterTable('video_tasks').addColumn('lease_until', 'integer').execute();
      // An image request's hold, stored while it runs, and the instance serving it.
      await db.schema.alterTable('holds').addColumn('instance_id', 'text').execute();
      // Request windows (a second, a minute, an hour) per principal, counted by every instance.
      await db.schema
        .createTable('rate_windows')
        .addColumn('principal', 'text', (c) => c.primaryKey())
        .addColumn('s_start', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('s_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('m_start', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('m_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('h_start', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('h_count', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      // Daily tokens per principal: used (charged requests) and held (requests running).
      await db.schema
        .createTable('daily_tokens')
        .addColumn('principal', 'text', (c) => c.notNull())
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('used', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('held', 'integer', (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint('daily_tokens_pk', ['principal', 'day'])
        .execute();
      // Provider keys sealed with MGW_SECRET_KEY (secret-store.ts), readable by every instance.
      await db.schema
        .createTable('secrets')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('sealed', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'integer', (c) => c.notNull())
        .execute();
      if (!onPostgres(db)) return;
      // What caches hold changed: every instance hears it (pg-change-feed.ts). SQLite needs no
      // trigger: its data_version moves on every other connection's commit.
      await sql
        .raw(
          `create or replace function mgw_notify_change() returns trigger language plpgsql as $$
             begin perform pg_notify('${CHANGE_CHANNEL}', tg_table_name); return null; end $$`,
        )
        .execute(db);
      for (const table of ['meta', 'models', 'model_routes', 'api_keys', 'providers', 'secrets']) {
        await sql.raw(`create trigger ${table}_notify after insert or update or delete on ${table} for each statement execute function mgw_notify_change()`).execute(db);
      }
      // Not every money move: only a key's terms, which the key cache holds.
      await sql
        .raw(`create trigger accounts_notify after insert or delete or update of access_type, allowance_nano on accounts for each statement execute function mgw_notify_change()`)
        .execute(db);
    },
  },
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
