// The providers' rows in team mode (docs/team.md): several instances and the CLI share one
// PostgreSQL. Writes take the advisory lock `providers` in their transaction, so the checks of
// SQLite's write lock hold across instances (two adds of one id: one wins, the other is told the
// id exists), and write the key (sealed-secrets.ts) in that same transaction. The rows and the
// opened keys are kept in memory for the synchronous reads (log redaction, readKey): refilled by
// init(), whenever the change feed says providers or secrets changed (checked on each async
// read), and after this process's own writes.
import { sql } from 'kysely';
import type { Db, Store } from '../store/database.js';
import { ChangeWatch } from '../store/change-watch.js';
import type { ProviderRow } from '../store/schema.js';
import type { DatabaseSecretStore } from '../secrets/sealed-secrets.js';
import { changedColumns, exists, missing, secretName, stillServes, type ProviderChange, type ProviderRows } from './provider-rows.js';

/** The advisory lock every provider write holds until its commit. */
const LOCK = 'providers';
/** Byte order, as SQLite sorts: the server's collation may sort dashes otherwise. */
const ID_ORDER = sql<string>`id collate "C"`;

export class PgProviderRows implements ProviderRows {
  private rows: ProviderRow[] = [];
  private byId = new Map<string, ProviderRow>();
  private readonly watch: ChangeWatch;
  private reloading: Promise<void> | null = null;

  constructor(
    private readonly store: Store,
    private readonly secrets: DatabaseSecretStore,
  ) {
    this.watch = new ChangeWatch(store);
  }

  async init(): Promise<void> {
    this.watch.reset();
    await this.fresh();
  }

  async row(id: string): Promise<ProviderRow | undefined> {
    await this.fresh();
    return this.byId.get(id);
  }

  async list(): Promise<ProviderRow[]> {
    await this.fresh();
    return [...this.rows];
  }

  all(): ProviderRow[] {
    return [...this.rows];
  }

  async insert(row: ProviderRow, apiKey: string | undefined): Promise<ProviderRow> {
    return this.writing(async (trx) => {
      if (await this.current(trx, row.id)) throw exists(row.id);
      // As on SQLite: the key with the row, and a stale key of a removed provider of this id cleared.
      if (apiKey !== undefined) await this.secrets.setIn(trx, secretName(row.id), apiKey);
      else await this.secrets.deleteIn(trx, secretName(row.id));
      return trx.insertInto('providers').values(row).returningAll().executeTakeFirstOrThrow();
    });
  }

  async update(id: string, change: ProviderChange, now: number): Promise<ProviderRow> {
    return this.writing(async (trx) => {
      const current = await this.current(trx, id);
      if (!current) throw missing(id);
      if (change.apiKey !== undefined) await this.secrets.setIn(trx, secretName(id), change.apiKey);
      if (change.apiKeyEnv !== undefined) await this.secrets.deleteIn(trx, secretName(id));
      // Instances' clocks differ and two may update within one millisecond: updated_at always
      // moves, because the registry rebuilds an adapter (with the new key) when it does.
      const updatedAt = Math.max(now, current.updated_at + 1);
      return trx
        .updateTable('providers')
        .set({ ...changedColumns(current, change), updated_at: updatedAt })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
    });
  }

  async remove(id: string): Promise<void> {
    await this.writing(async (trx) => {
      const used = await trx.selectFrom('model_routes').select('model_id').distinct().where('provider_id', '=', id).execute();
      // Sorted here, in byte order as SQLite sorts (DISTINCT cannot order by a collated expression).
      if (used.length > 0) throw stillServes(id, used.map((m) => m.model_id).sort());
      const deleted = await trx.deleteFrom('providers').where('id', '=', id).executeTakeFirst();
      if (Number(deleted.numDeletedRows) === 0) throw missing(id);
      await this.secrets.deleteIn(trx, secretName(id));
    });
  }

  private current(trx: Db, id: string): Promise<ProviderRow | undefined> {
    return trx.selectFrom('providers').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /**
   * `fn` in a transaction holding the lock; then the snapshot is read again, whether it committed
   * or rolled back (a key setIn cached before a rollback must not stay).
   */
  private async writing<T>(fn: (trx: Db) => Promise<T>): Promise<T> {
    try {
      return await this.store.tx(async (trx) => {
        await this.store.lock(trx, LOCK);
        return fn(trx);
      });
    } finally {
      this.watch.reset();
      // A database gone right after the commit: the next read tries again (the watch stays reset).
      await this.fresh().catch(() => undefined);
    }
  }

  /** Reads again when the feed says providers or secrets may have changed since the last read. */
  private async fresh(): Promise<void> {
    // A reload under way marked the watch before reading: until it ends, "unchanged" only means
    // that its snapshot is coming, so wait for it first.
    if (this.reloading) await this.reloading.catch(() => undefined);
    if (this.watch.unchanged()) return;
    this.reloading ??= this.reload().finally(() => {
      this.reloading = null;
    });
    await this.reloading;
  }

  private async reload(): Promise<void> {
    // Marked before reading: a change committed meanwhile shows as a change on the next check.
    this.watch.mark();
    try {
      // One snapshot of both tables: a row is never paired with a key of another moment.
      const rows = await this.store.db
        .transaction()
        .setIsolationLevel('repeatable read')
        .setAccessMode('read only')
        .execute(async (trx) => {
          const rows = await trx.selectFrom('providers').selectAll().orderBy(ID_ORDER).execute();
          await this.secrets.load(trx);
          return rows;
        });
      this.rows = rows;
      this.byId = new Map(rows.map((row) => [row.id, row]));
    } catch (error) {
      this.watch.reset();
      throw error;
    }
  }
}
