// What SQLite's data_version is to one file, LISTEN/NOTIFY is to a shared PostgreSQL: triggers
// (migrations.ts) notify `mgw_change` when the catalog, keys, accounts' terms or providers change,
// from any instance or the CLI, and this counter moves when one arrives. Caches compare it as they
// compare data_version (change-watch.ts), so a change shows on every instance within milliseconds.
// While the listening connection is down, nothing can be heard: the counter then moves on every
// read, and caches revalidate against the database each time until it is back.
import pg from 'pg';
import { CHANGE_CHANNEL } from './change-channel.js';

const RETRY_MAX_MS = 2_000;

export class PgChangeFeed {
  private version = 1;
  private client: pg.Client | null = null;
  private listening = false;
  private closed = false;
  private retryMs = 100;
  private retryTimer: NodeJS.Timeout | null = null;

  constructor(private readonly url: string) {}

  async start(): Promise<void> {
    await this.connect();
  }

  /** Moves whenever anything watched changed (or may have, while not listening). */
  current(): number {
    if (!this.listening) this.version++;
    return this.version;
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 5_000 });
    client.on('notification', () => this.version++);
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    this.client = client;
    await client.connect();
    await client.query(`listen ${CHANGE_CHANNEL}`);
    this.listening = true;
    this.retryMs = 100;
    // Whatever changed while nobody listened.
    this.version++;
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = null;
    this.listening = false;
    client.end().catch(() => undefined);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.connect().catch(() => {
        const client = this.client;
        this.client = null;
        this.listening = false;
        client?.end().catch(() => undefined);
        this.retryMs = Math.min(RETRY_MAX_MS, this.retryMs * 2);
        this.scheduleReconnect();
      });
    }, this.retryMs);
    this.retryTimer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = null;
    this.listening = false;
    await client?.end().catch(() => undefined);
  }
}
