// The circuit breaker of each provider routes go to, and what the Providers view says about it.
// A provider that failed `failures` times in a row (failures that are its own: see
// failover-reason.ts) is skipped for `skipSeconds`; then one request is let through as a trial:
// its success closes the breaker, its failure skips the provider again. Kept per provider, not
// per route: an outage or a rate limit is the provider's, whichever model asked.
//
// The state lives in memory (routing decisions must not wait on the database) and is written to
// provider_health, so `mgw providers list`, another process, can show it: at once when the
// provider's state changes (a failure, a skip, a recovery), at most once a second when only its
// latency does. A start reads it back: a restart keeps a provider skipped, and every view agrees.
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { Store } from '../store/database.js';
import type { ProviderHealthRow } from '../store/schema.js';
import { WriteRetry } from '../store/write-retry.js';
import type { ProviderHealth } from '../../../shared/provider-health.js';
import { DEFAULT_BREAKER, type BreakerSettings } from './breaker-settings.js';

/** Successful calls whose median is the provider's latency. */
const LATENCY_SAMPLES = 20;
const FLUSH_MS = 1_000;

interface State {
  failures: number;
  skippedUntil: number | null;
  /** A trial request is out: others keep skipping the provider until it ends. */
  trialOut: boolean;
  lastError: string | null;
  lastErrorAt: number | null;
  lastOkAt: number | null;
  latencies: number[];
}

/** Leave to try a provider, and the report of how it went (exactly one of these, once). */
export interface Admission {
  succeeded(latencyMs: number): void;
  /** The provider answered, and the request was at fault: it is up. */
  answered(): void;
  failed(reason: string): void;
  /** The try ended for reasons of the caller's (it left): nothing learnt. */
  abandoned(): void;
}

export class RouteHealth {
  private readonly states = new Map<string, State>();
  private readonly dirty = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  /** A write is due on the next turn (a state change). */
  private soon = false;
  private flushing: Promise<void> = Promise.resolve();
  private readonly retry: WriteRetry;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    logger: Logger,
    private readonly settings: BreakerSettings = DEFAULT_BREAKER,
  ) {
    this.retry = new WriteRetry(logger, 'provider health', FLUSH_MS);
  }

  /**
   * Leave to try `providerId` now, or null while its breaker skips it. When the skip is over,
   * the first caller gets the trial; the others are skipped until it ends.
   */
  admit(providerId: string): Admission | null {
    const state = this.state(providerId);
    if (state.skippedUntil === null) return this.admission(providerId, false);
    if (this.clock.now() < state.skippedUntil || state.trialOut) return null;
    state.trialOut = true;
    return this.admission(providerId, true);
  }

  /** Leave to try it even though it is skipped: every route of the request is (see failover.ts). */
  force(providerId: string): Admission {
    return this.admission(providerId, false);
  }

  /** Takes up what the database holds (the last run's, or other instances'), before routing anything. */
  async load(): Promise<void> {
    const rows = await this.store.db.selectFrom('provider_health').selectAll().execute();
    for (const row of rows) {
      this.states.set(row.provider_id, {
        failures: row.consecutive_failures,
        skippedUntil: row.skipped_until,
        trialOut: false,
        lastError: row.last_error,
        lastErrorAt: row.last_error_at,
        lastOkAt: row.last_ok_at,
        latencies: row.latency_ms === null ? [] : [row.latency_ms],
      });
    }
  }

  /** What this process knows of each provider it routed to. */
  report(): ProviderHealth[] {
    return [...this.states.entries()].map(([id, state]) => healthOf(this.row(id, state), this.clock.now()));
  }

  async close(): Promise<void> {
    this.retry.close();
    await this.flush();
  }

  private admission(providerId: string, trial: boolean): Admission {
    let done = false;
    const end = (change: (state: State) => void) => {
      if (done) return;
      done = true;
      const state = this.state(providerId);
      if (trial) state.trialOut = false;
      const before = stateWord(state);
      change(state);
      this.changed(providerId, stateWord(state) !== before);
    };
    return {
      succeeded: (latencyMs) =>
        end((state) => {
          this.markUp(state);
          state.latencies.push(latencyMs);
          if (state.latencies.length > LATENCY_SAMPLES) state.latencies.shift();
        }),
      answered: () => end((state) => this.markUp(state)),
      failed: (reason) =>
        end((state) => {
          const now = this.clock.now();
          state.failures += 1;
          state.lastError = reason;
          state.lastErrorAt = now;
          // A failed trial (or a failure while skipped) skips it again; the Nth in a row trips it.
          if (trial || state.skippedUntil !== null || state.failures >= this.settings.failures) state.skippedUntil = now + this.settings.skipSeconds * 1000;
        }),
      abandoned: () => {
        if (done) return;
        done = true;
        if (trial) this.state(providerId).trialOut = false;
      },
    };
  }

  private markUp(state: State): void {
    state.failures = 0;
    state.skippedUntil = null;
    state.lastOkAt = this.clock.now();
  }

  private state(providerId: string): State {
    let state = this.states.get(providerId);
    if (!state) {
      state = { failures: 0, skippedUntil: null, trialOut: false, lastError: null, lastErrorAt: null, lastOkAt: null, latencies: [] };
      this.states.set(providerId, state);
    }
    return state;
  }

  /** Schedules its write: at once (next turn) when its state moved, else within FLUSH_MS. */
  private changed(providerId: string, moved: boolean): void {
    this.dirty.add(providerId);
    if (moved && !this.soon) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      this.soon = true;
      setImmediate(() => {
        this.soon = false;
        void this.flush();
      }).unref();
      return;
    }
    if (this.soon) return;
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
    this.timer.unref();
  }

  private row(id: string, state: State): ProviderHealthRow {
    return {
      provider_id: id,
      consecutive_failures: state.failures,
      skipped_until: state.skippedUntil,
      last_error: state.lastError,
      last_error_at: state.lastErrorAt,
      last_ok_at: state.lastOkAt,
      latency_ms: median(state.latencies),
      updated_at: this.clock.now(),
    };
  }

  private async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const rows = [...this.dirty].map((id) => this.row(id, this.state(id)));
    this.dirty.clear();
    if (rows.length === 0) return this.flushing;
    this.flushing = this.flushing.then(() => this.write(rows));
    return this.flushing;
  }

  private async write(rows: ProviderHealthRow[]): Promise<void> {
    try {
      await this.store.tx(async (trx) => {
        for (const row of rows) {
          const { provider_id: _id, ...values } = row;
          await trx.insertInto('provider_health').values(row).onConflict((oc) => oc.column('provider_id').doUpdateSet(values)).execute();
        }
      });
      this.retry.succeeded();
    } catch (error) {
      const delay = this.retry.failed(error, rows.length);
      if (delay === null) return;
      // Written again with what is current then.
      for (const row of rows) this.dirty.add(row.provider_id);
      this.timer ??= setTimeout(() => void this.flush(), delay);
      this.timer.unref();
    }
  }
}

/** The stored health of every provider (for a process that does not route: the CLI). */
export async function readHealth(store: Store, now: number): Promise<ProviderHealth[]> {
  const rows = await store.db.selectFrom('provider_health').selectAll().execute();
  return rows.map((row) => healthOf(row, now));
}

function healthOf(row: ProviderHealthRow, now: number): ProviderHealth {
  const skipped = row.skipped_until !== null && now < row.skipped_until;
  const state = skipped ? 'skipped' : row.consecutive_failures > 0 ? 'failing' : row.last_ok_at !== null ? 'healthy' : 'unknown';
  return {
    provider: row.provider_id,
    state,
    skipped_until: skipped ? row.skipped_until : null,
    consecutive_failures: row.consecutive_failures,
    last_error: row.last_error,
    last_error_at: row.last_error_at,
    latency_ms: row.latency_ms,
  };
}

/** What a view would say of it: a change of this is written at once. Any failure counts (its count and error show). */
function stateWord(state: State): string {
  return `${state.failures}|${state.skippedUntil}|${state.lastOkAt === null ? 'never' : 'ok'}|${state.lastErrorAt}`;
}

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.floor(sorted.length / 2)]!);
}
