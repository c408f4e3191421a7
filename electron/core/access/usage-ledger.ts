// Usage per principal (key id or anonymous address), UTC day and model: requests, tokens and
// spend. Daily token quotas read today's token total from memory (loaded once per principal and
// day); rows are upserted in small batches off the request path, and a batch that cannot be
// written is kept and tried again (store/write-retry.ts).
import type { Store } from '../store/database.js';
import type { UsageDailyTable } from '../store/schema.js';
import type { Logger } from '../logger.js';
import { WriteRetry } from '../store/write-retry.js';

export interface UsageRecord {
  principal: string;
  model: string;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  spendNano: number;
}

export type UsageRow = Omit<UsageDailyTable, 'principal'>;

const FLUSH_MS = 200;
let dayCache = { start: 0, end: -1, day: '' };

/** YYYY-MM-DD (UTC) of a time; the current day is remembered, since every request asks. */
export function utcDay(ms: number): string {
  if (ms >= dayCache.start && ms < dayCache.end) return dayCache.day;
  const start = ms - (((ms % 86_400_000) + 86_400_000) % 86_400_000);
  dayCache = { start, end: start + 86_400_000, day: new Date(ms).toISOString().slice(0, 10) };
  return dayCache.day;
}

export class UsageLedger {
  private readonly today = new Map<string, { day: string; tokens: number }>();
  private pending = new Map<string, UsageRecord & { day: string }>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private readonly upsert;
  private readonly retry;

  constructor(
    private readonly store: Store,
    logger: Logger,
  ) {
    this.retry = new WriteRetry(logger, 'usage', FLUSH_MS);
    // Team mode has no synchronous driver: it writes the same upsert through Kysely.
    this.upsert = store.dialect !== 'sqlite' ? null : store.raw.prepare(
      `insert into usage_daily (principal, day, model, requests, input_tokens, output_tokens, spend_nano) values (?, ?, ?, ?, ?, ?, ?)
       on conflict (principal, day, model) do update set requests = requests + excluded.requests,
         input_tokens = input_tokens + excluded.input_tokens, output_tokens = output_tokens + excluded.output_tokens,
         spend_nano = spend_nano + excluded.spend_nano`,
    );
  }

  /** Tokens used today by this principal, including what is not yet written. */
  async tokensToday(principal: string, now: number): Promise<number> {
    const day = utcDay(now);
    const cached = this.today.get(principal);
    if (cached && cached.day === day) return cached.tokens;
    const row = await this.store.db
      .selectFrom('usage_daily')
      .select((eb) => eb.fn.sum<number>(eb('input_tokens', '+', eb.ref('output_tokens'))).as('tokens'))
      .where('principal', '=', principal)
      .where('day', '=', day)
      .executeTakeFirst();
    let tokens = Number(row?.tokens ?? 0);
    for (const pending of this.pending.values()) {
      if (pending.principal === principal && pending.day === day) tokens += pending.inputTokens + pending.outputTokens;
    }
    this.today.set(principal, { day, tokens });
    return tokens;
  }

  record(usage: UsageRecord, now: number): void {
    const day = utcDay(now);
    const cached = this.today.get(usage.principal);
    if (cached && cached.day === day) cached.tokens += usage.inputTokens + usage.outputTokens;
    this.queue({ ...usage, day });
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }

  private queue(usage: UsageRecord & { day: string }): void {
    const key = `${usage.principal}\u0000${usage.day}\u0000${usage.model}`;
    const pending = this.pending.get(key);
    if (pending) {
      pending.requests += usage.requests;
      pending.inputTokens += usage.inputTokens;
      pending.outputTokens += usage.outputTokens;
      pending.spendNano += usage.spendNano;
    } else this.pending.set(key, { ...usage });
  }

  /** The last flush at shutdown: what cannot be written then is logged as lost. */
  async close(): Promise<void> {
    this.retry.close();
    await this.flush();
  }

  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    if (batch.length === 0) return this.flushing;
    this.flushing = this.flushing.then(() => this.write(batch));
    return this.flushing;
  }

  /** Usage rows of one principal, newest day first. */
  async rows(principal: string, days = 90): Promise<UsageRow[]> {
    await this.flush();
    return this.store.db
      .selectFrom('usage_daily')
      .select(['day', 'model', 'requests', 'input_tokens', 'output_tokens', 'spend_nano'])
      .where('principal', '=', principal)
      .orderBy('day', 'desc')
      .orderBy('model')
      .limit(days * 20)
      .execute();
  }

  private async writeRows(batch: (UsageRecord & { day: string })[]): Promise<void> {
    const upsert = this.upsert;
    if (!upsert) {
      await this.store.tx(async (trx) => {
        for (const u of batch) {
          await trx
            .insertInto('usage_daily')
            .values({ principal: u.principal, day: u.day, model: u.model, requests: u.requests, input_tokens: u.inputTokens, output_tokens: u.outputTokens, spend_nano: u.spendNano })
            .onConflict((oc) =>
              oc.columns(['principal', 'day', 'model']).doUpdateSet((eb) => ({
                requests: eb('usage_daily.requests', '+', eb.ref('excluded.requests')),
                input_tokens: eb('usage_daily.input_tokens', '+', eb.ref('excluded.input_tokens')),
                output_tokens: eb('usage_daily.output_tokens', '+', eb.ref('excluded.output_tokens')),
                spend_nano: eb('usage_daily.spend_nano', '+', eb.ref('excluded.spend_nano')),
              })),
            )
            .execute();
        }
      });
      return;
    }
    // One synchronous transaction: an async one would make the requests' money moves wait.
    await this.store.txSync(() => {
      for (const u of batch) upsert.run(u.principal, u.day, u.model, u.requests, u.inputTokens, u.outputTokens, u.spendNano);
    });
  }

  private async write(batch: (UsageRecord & { day: string })[]): Promise<void> {
    try {
      await this.writeRows(batch);
      this.retry.succeeded();
    } catch (error) {
      const delay = this.retry.failed(error, batch.length);
      if (delay === null) return;
      for (const usage of batch) this.queue(usage);
      if (this.timer) clearTimeout(this.timer);
      this.timer = setTimeout(() => void this.flush(), delay);
    }
  }
}
