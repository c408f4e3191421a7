// Recent requests (time, key, endpoint, model, status, latency, cost) for the studio's Activity
// view. Rows are written in small batches off the request path and trimmed to the newest
// MAX_ROWS, so logging never slows a request down or grows without bound; a batch that cannot
// be written is kept and tried again (store/write-retry.ts). A batch is one synchronous
// transaction of prepared statements: an async one would hold the connection across awaits,
// and every money transaction of the requests in flight would queue behind it.
import type { ActivityEntry } from '../../../shared/studio-contract.js';
import { formatUsd } from '../billing/money.js';
import type { Logger } from '../logger.js';
import type { Store } from '../store/database.js';
import { WriteRetry } from '../store/write-retry.js';
import type { Insertable } from 'kysely';
import type { RequestLogTable } from '../store/schema.js';

export const MAX_ROWS = 10_000;
const FLUSH_MS = 200;

export type ActivityRecord = Insertable<RequestLogTable>;
type Listener = (entry: ActivityEntry) => void;

export class ActivityLog {
  private pending: ActivityRecord[] = [];
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private readonly listeners = new Set<Listener>();
  private readonly insert;
  private readonly trim;
  private readonly retry;

  constructor(
    private readonly store: Store,
    logger: Logger,
  ) {
    this.retry = new WriteRetry(logger, 'the activity log', FLUSH_MS);
    // SQLite's prepared statements; team mode writes through Kysely (no synchronous driver).
    const sqlite = store.dialect === 'sqlite';
    this.insert = sqlite
      ? store.raw.prepare('insert into request_log (at, key_id, method, endpoint, model, status, latency_ms, cost_nano, route, failed_routes) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
      : null;
    // Ids only grow (autoincrement), so the newest MAX_ROWS are those above last id - MAX_ROWS.
    this.trim = sqlite ? store.raw.prepare('delete from request_log where id <= ?') : null;
  }

  record(entry: ActivityRecord): void {
    this.pending.push(entry);
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }

  onAdded(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return this.flushing;
    this.flushing = this.flushing.then(() => this.write(batch));
    return this.flushing;
  }

  async recent(limit: number): Promise<ActivityEntry[]> {
    await this.flush();
    return this.rows(limit);
  }

  private async write(batch: ActivityRecord[]): Promise<void> {
    try {
      await this.writeRows(batch);
      if (this.listeners.size === 0) return;
      for (const entry of (await this.rows(batch.length)).reverse()) for (const listener of this.listeners) listener(entry);
      this.retry.succeeded();
    } catch (error) {
      const delay = this.retry.failed(error, batch.length);
      if (delay === null) return;
      // Back in front of what came since, newest MAX_ROWS kept (the table keeps no more anyway).
      this.pending = [...batch, ...this.pending].slice(-MAX_ROWS);
      if (this.timer) clearTimeout(this.timer);
      this.timer = setTimeout(() => void this.flush(), delay);
    }
  }

  private async writeRows(batch: ActivityRecord[]): Promise<void> {
    const { insert, trim } = this;
    if (!insert || !trim) {
      await this.store.tx(async (trx) => {
        const ids = await trx.insertInto('request_log').values(batch).returning('id').execute();
        const lastId = Math.max(...ids.map((row) => row.id));
        if (lastId > MAX_ROWS) await trx.deleteFrom('request_log').where('id', '<=', lastId - MAX_ROWS).execute();
      });
      return;
    }
    await this.store.txSync(() => {
      let lastId = 0;
      for (const r of batch) {
        const row = [r.at, r.key_id ?? null, r.method, r.endpoint, r.model ?? null, r.status, r.latency_ms, r.cost_nano ?? 0, r.route ?? null, r.failed_routes ?? null];
        lastId = Number(insert.run(...row).lastInsertRowid);
      }
      if (lastId > MAX_ROWS) trim.run(lastId - MAX_ROWS);
    });
  }

  /** The last flush at shutdown: what cannot be written then is logged as lost. */
  async close(): Promise<void> {
    this.retry.close();
    await this.flush();
  }

  private async rows(limit: number): Promise<ActivityEntry[]> {
    const rows = await this.store.db
      .selectFrom('request_log')
      .leftJoin('api_keys', 'api_keys.id', 'request_log.key_id')
      .select([
        'request_log.id',
        'request_log.at',
        'request_log.key_id',
        'api_keys.label as key_label',
        'request_log.method',
        'request_log.endpoint',
        'request_log.model',
        'request_log.status',
        'request_log.latency_ms',
        'request_log.cost_nano',
        'request_log.route',
        'request_log.failed_routes',
      ])
      .orderBy('request_log.id', 'desc')
      .limit(limit)
      .execute();
    return rows.map((row) => ({
      id: row.id,
      at: row.at,
      key_id: row.key_id,
      key_label: row.key_label ?? null,
      method: row.method,
      endpoint: row.endpoint,
      model: row.model,
      status: row.status,
      latency_ms: Math.round(row.latency_ms * 10) / 10,
      cost_usd: formatUsd(row.cost_nano),
      route: row.route,
      failed_routes: failedRoutes(row.failed_routes),
    }));
  }
}

/** The stored list of routes that failed; a damaged value reads as none rather than failing the view. */
function failedRoutes(json: string | null): ActivityEntry['failed_routes'] {
  if (json === null) return [];
  try {
    const parsed = JSON.parse(json) as unknown;
    return Array.isArray(parsed) ? parsed.filter((r): r is { provider: string; reason: string } => typeof r?.provider === 'string' && typeof r?.reason === 'string') : [];
  } catch {
    return [];
  }
}
