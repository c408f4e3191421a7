// Team mode's request windows and daily tokens: the counts live in PostgreSQL, so a key allowed
// 10 requests a minute gets exactly 10 across every instance. Each admission is one statement
// (an upsert whose WHERE is the room check: the row lock makes concurrent ones take turns);
// refusals read the row once more to say when to retry. Instances' clocks align the windows
// (keep them in sync, as NTP does).
import { sql } from 'kysely';
import type { Store } from '../store/database.js';
import type { RateWindowsTable } from '../store/schema.js';
import type { WindowLimits } from './limits.js';
import type { Admission, RateState } from './rate-limiter.js';

const SPANS = [1_000, 60_000, 3_600_000] as const;

type WindowRow = Omit<RateWindowsTable, 'principal'>;

const startsAt = (now: number): number[] => SPANS.map((span) => now - (now % span));

/** Each window's [start, count], a window that has moved on counting 0. */
function counts(row: WindowRow | undefined, now: number): [number, number][] {
  const starts = startsAt(now);
  const stored: [number, number][] = row ? [[row.s_start, row.s_count], [row.m_start, row.m_count], [row.h_start, row.h_count]] : [];
  return starts.map((start, i) => [start, stored[i]?.[0] === start ? stored[i]![1] : 0]);
}

/** The tightest window, as RateLimiter reports it. */
function stateOf(windows: [number, number][], caps: number[], now: number): RateState {
  let best = 0;
  for (let i = 1; i < 3; i++) if (caps[i]! - windows[i]![1] < caps[best]! - windows[best]![1]) best = i;
  return { limit: caps[best]!, remaining: Math.max(0, caps[best]! - windows[best]![1]), resetMs: windows[best]![0] + SPANS[best]! - now };
}

const capsOf = (limits: WindowLimits): number[] => [limits.perSecond, limits.perMinute, limits.perHour];

/** How soon a settle that could not be written (the database away) is tried again. */
const SETTLE_RETRY_MS = 1_000;

interface Settle {
  principal: string;
  day: string;
  tokens: number;
  usedTokens: number;
}

export class SharedWindows {
  /** Settles the database refused: written when it is back, so no hold outlives its request. */
  private readonly unsettled: Settle[] = [];
  private retryTimer: NodeJS.Timeout | null = null;

  constructor(private readonly store: Store) {}

  async admit(principal: string, limits: WindowLimits, now: number): Promise<Admission> {
    const caps = capsOf(limits);
    const [s, m, h] = startsAt(now);
    // A request that read the clock just before a window turned, but lands after one that saw the
    // new window, counts in the new one: a window does not go back to an older start (which would
    // reset its count and let one more through). A stored start more than one span ahead is a
    // clock that went back: the window starts again.
    const ahead = (start: string, span: number) => `r.${start} >= excluded.${start} and r.${start} <= excluded.${start} + ${span}`;
    const counted = (col: string, start: string, span: number) => sql.raw(`case when ${ahead(start, span)} then r.${col} else 0 end`);
    const latest = (start: string, span: number) => sql.raw(`case when ${ahead(start, span)} then r.${start} else excluded.${start} end`);
    const admitted = caps.every((cap) => cap >= 1)
      ? await sql<WindowRow>`
          insert into rate_windows as r (principal, s_start, s_count, m_start, m_count, h_start, h_count)
          values (${principal}, ${s}, 1, ${m}, 1, ${h}, 1)
          on conflict (principal) do update set
            s_count = ${counted('s_count', 's_start', SPANS[0])} + 1, s_start = ${latest('s_start', SPANS[0])},
            m_count = ${counted('m_count', 'm_start', SPANS[1])} + 1, m_start = ${latest('m_start', SPANS[1])},
            h_count = ${counted('h_count', 'h_start', SPANS[2])} + 1, h_start = ${latest('h_start', SPANS[2])}
          where ${counted('s_count', 's_start', SPANS[0])} < ${caps[0]} and ${counted('m_count', 'm_start', SPANS[1])} < ${caps[1]} and ${counted('h_count', 'h_start', SPANS[2])} < ${caps[2]}
          returning s_start, s_count, m_start, m_count, h_start, h_count`.execute(this.store.db)
      : { rows: [] };
    const row = admitted.rows[0];
    if (row) return { ok: true, state: stateOf(counts(row, now), caps, now) };
    const windows = counts(await this.row(principal), now);
    let retryAfterMs = 0;
    windows.forEach(([start, count], i) => {
      if (count >= caps[i]!) retryAfterMs = Math.max(retryAfterMs, start + SPANS[i]! - now);
    });
    return { ok: false, retryAfterMs: Math.max(1, retryAfterMs), state: stateOf(windows, caps, now) };
  }

  async peek(principal: string, limits: WindowLimits, now: number): Promise<RateState> {
    return stateOf(counts(await this.row(principal), now), capsOf(limits), now);
  }

  /** Gives back a request counted at `countedAt`, in each window it still counts in. */
  async refund(principal: string, countedAt: number): Promise<void> {
    const [s, m, h] = startsAt(countedAt);
    await sql`
      update rate_windows set
        s_count = case when s_start = ${s} and s_count > 0 then s_count - 1 else s_count end,
        m_count = case when m_start = ${m} and m_count > 0 then m_count - 1 else m_count end,
        h_count = case when h_start = ${h} and h_count > 0 then h_count - 1 else h_count end
      where principal = ${principal}`.execute(this.store.db);
  }

  /**
   * Holds `tokens` of the principal's daily quota for `day` if they fit (tokens charged plus
   * tokens held by requests running, on every instance); returns the tokens used so far when
   * they do not.
   */
  async holdTokens(principal: string, day: string, tokens: number, quota: number): Promise<{ ok: true } | { ok: false; used: number }> {
    if (tokens <= quota) {
      const held = await sql<{ held: number }>`
        insert into daily_tokens as d (principal, day, used, held) values (${principal}, ${day}, 0, ${tokens})
        on conflict (principal, day) do update set held = d.held + excluded.held
        where d.used + d.held + excluded.held <= ${quota}
        returning held`.execute(this.store.db);
      if (held.rows.length > 0) return { ok: true };
    }
    const row = await this.store.db.selectFrom('daily_tokens').select(['used', 'held']).where('principal', '=', principal).where('day', '=', day).executeTakeFirst();
    return { ok: false, used: (row?.used ?? 0) + (row?.held ?? 0) };
  }

  /**
   * Ends a hold of `tokens`, counting `usedTokens` (the request's recorded usage; 0 when it
   * failed). Never throws: one the database refuses is kept and written again until it goes in.
   */
  async settleTokens(principal: string, day: string, tokens: number, usedTokens: number): Promise<void> {
    const settle = { principal, day, tokens, usedTokens };
    await this.writeSettle(settle).catch(() => {
      this.unsettled.push(settle);
      this.retryLater();
    });
  }

  /** Settles still waiting for the database (for tests and the log). */
  get pendingSettles(): number {
    return this.unsettled.length;
  }

  private retryLater(): void {
    if (this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.retryUnsettled();
    }, SETTLE_RETRY_MS);
    this.retryTimer.unref();
  }

  private async retryUnsettled(): Promise<void> {
    while (this.unsettled.length > 0) {
      try {
        await this.writeSettle(this.unsettled[0]!);
        this.unsettled.shift();
      } catch {
        return this.retryLater();
      }
    }
  }

  private async writeSettle({ principal, day, tokens, usedTokens }: Settle): Promise<void> {
    await this.store.db
      .updateTable('daily_tokens')
      .set((eb) => ({ held: eb('held', '-', tokens), used: eb('used', '+', usedTokens) }))
      .where('principal', '=', principal)
      .where('day', '=', day)
      .execute();
  }

  private row(principal: string): Promise<WindowRow | undefined> {
    return this.store.db.selectFrom('rate_windows').select(['s_start', 's_count', 'm_start', 'm_count', 'h_start', 'h_count']).where('principal', '=', principal).executeTakeFirst();
  }
}
