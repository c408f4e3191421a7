// Per-principal request windows (a second, a minute, an hour), as fixed windows aligned to the
// clock. One small record per active principal, swept when idle, so 100,000 active keys fit in
// a few megabytes and a check is a handful of arithmetic operations.
import type { WindowLimits } from './limits.js';

const SPANS = [1_000, 60_000, 3_600_000] as const;

interface Entry {
  /** Window start and count for each span, flattened: [start0, count0, start1, count1, start2, count2]. */
  w: [number, number, number, number, number, number];
}

export interface RateState {
  limit: number;
  remaining: number;
  /** Milliseconds until the tightest window resets. */
  resetMs: number;
}

export type Admission = { ok: true; state: RateState } | { ok: false; retryAfterMs: number; state: RateState };

export class RateLimiter {
  private readonly entries = new Map<string, Entry>();
  private lastSweep = 0;

  /** Counts one request if every window has room; otherwise says how long to wait. */
  admit(principal: string, limits: WindowLimits, now: number): Admission {
    const entry = this.entry(principal, now);
    const caps = [limits.perSecond, limits.perMinute, limits.perHour];
    let retryAfterMs = 0;
    for (let i = 0; i < 3; i++) {
      if (entry.w[i * 2 + 1]! >= caps[i]!) retryAfterMs = Math.max(retryAfterMs, entry.w[i * 2]! + SPANS[i]! - now);
    }
    if (retryAfterMs > 0) return { ok: false, retryAfterMs, state: this.state(entry, caps, now) };
    for (let i = 0; i < 3; i++) entry.w[i * 2 + 1]! += 1;
    this.sweep(now);
    return { ok: true, state: this.state(entry, caps, now) };
  }

  /** The current state without counting (for headers on responses that do not count). */
  peek(principal: string, limits: WindowLimits, now: number): RateState {
    return this.state(this.entry(principal, now), [limits.perSecond, limits.perMinute, limits.perHour], now);
  }

  /** Gives back a counted request (it was refused for another reason, and refusals cost nothing). */
  refund(principal: string, countedAt: number): void {
    const entry = this.entries.get(principal);
    if (!entry) return;
    for (let i = 0; i < 3; i++) {
      const start = countedAt - (countedAt % SPANS[i]!);
      if (entry.w[i * 2] === start && entry.w[i * 2 + 1]! > 0) entry.w[i * 2 + 1]! -= 1;
    }
  }

  get size(): number {
    return this.entries.size;
  }

  private entry(principal: string, now: number): Entry {
    let entry = this.entries.get(principal);
    if (!entry) {
      entry = { w: [0, 0, 0, 0, 0, 0] };
      this.entries.set(principal, entry);
    }
    for (let i = 0; i < 3; i++) {
      const start = now - (now % SPANS[i]!);
      if (entry.w[i * 2] !== start) {
        entry.w[i * 2] = start;
        entry.w[i * 2 + 1] = 0;
      }
    }
    return entry;
  }

  /** The tightest window: the one with the fewest requests left. */
  private state(entry: Entry, caps: number[], now: number): RateState {
    let best = 0;
    for (let i = 1; i < 3; i++) {
      if (caps[i]! - entry.w[i * 2 + 1]! < caps[best]! - entry.w[best * 2 + 1]!) best = i;
    }
    return {
      limit: caps[best]!,
      remaining: Math.max(0, caps[best]! - entry.w[best * 2 + 1]!),
      resetMs: entry.w[best * 2]! + SPANS[best]! - now,
    };
  }

  /** Drops principals idle for over an hour, at most once a minute. */
  private sweep(now: number): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [principal, entry] of this.entries) if (entry.w[4] + SPANS[2] <= now) this.entries.delete(principal);
  }
}
