// The access checks every image and video request passes, whichever door it came through:
// request windows per principal, daily token quotas for callers who pay no money, and usage
// recording. Refusals raise 429 rate_limit_exceeded with Retry-After.
import type { Clock } from '../clock.js';
import { GatewayError } from '../errors.js';
import { dailyTokenQuota, type LimitSettings } from './limits.js';
import type { Principal } from './principal.js';
import { RateLimiter, type RateState } from './rate-limiter.js';
import type { UsageLedger, UsageRecord } from './usage-ledger.js';
import { Tally } from '../tally.js';

/** Refusals cost nothing, not even a window slot: a counted request ending with one of these made nothing. */
export const REFUNDED_STATUSES: ReadonlySet<number> = new Set([400, 401, 402, 413, 429]);

export interface RateTicket {
  principal: string;
  countedAt: number;
  state: RateState;
}

/** The rate-limit headers of SPEC-DECISIONS (the tightest window). */
export function rateHeaders(state: RateState): Record<string, string> {
  return {
    'x-ratelimit-limit-requests': String(state.limit),
    'x-ratelimit-remaining-requests': String(state.remaining),
    'x-ratelimit-reset-requests': `${Math.max(1, Math.ceil(state.resetMs / 1000))}s`,
  };
}

export class AccessGate {
  readonly limiter = new RateLimiter();
  /** Estimated tokens of quota-bound requests still running, per principal. */
  private readonly tokensInFlight = new Tally();

  constructor(
    readonly settings: LimitSettings,
    readonly usage: UsageLedger,
    private readonly clock: Clock,
  ) {}

  /** Counts a request against the principal's windows, or refuses it with 429. */
  admit(principal: Principal): RateTicket {
    const now = this.clock.now();
    const result = this.limiter.admit(principal.keyId, this.settings.requests[principal.access], now);
    if (!result.ok) {
      const seconds = Math.max(1, Math.ceil(result.retryAfterMs / 1000));
      throw new GatewayError('rate_limit_exceeded', `Rate limit reached for ${principal.access} access; retry in ${seconds} s.`, null, {
        ...rateHeaders(result.state),
        'retry-after': String(seconds),
      });
    }
    return { principal: principal.keyId, countedAt: now, state: result.state };
  }

  /** The window state for headers of responses that are not counted (polls, lists, downloads). */
  peek(principal: Principal): RateState {
    return this.limiter.peek(principal.keyId, this.settings.requests[principal.access], this.clock.now());
  }

  /** Gives a refused request's slot back (see REFUNDED_STATUSES). */
  refund(ticket: RateTicket): void {
    this.limiter.refund(ticket.principal, ticket.countedAt);
  }

  /**
   * Refuses with 429 when `tokens` more would pass the principal's daily quota; else holds them
   * until the returned release() (after the usage is recorded, or on failure), so requests in
   * flight at once cannot pass the quota together. Paid access has no quota: nothing is held.
   */
  async reserveDailyTokens(principal: Principal, tokens: number): Promise<() => void> {
    const quota = dailyTokenQuota(this.settings, principal.access);
    if (quota === null) return () => {};
    const now = this.clock.now();
    const used = (await this.usage.tokensToday(principal.keyId, now)) + this.tokensInFlight.get(principal.keyId);
    if (used + tokens > quota) {
      const midnight = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), new Date(now).getUTCDate() + 1);
      const seconds = Math.max(1, Math.ceil((midnight - now) / 1000));
      throw new GatewayError(
        'rate_limit_exceeded',
        `Daily token quota reached: ${principal.access} access allows ${quota} tokens per UTC day (${used} used); it resets at 00:00 UTC.`,
        null,
        { 'retry-after': String(seconds) },
      );
    }
    this.tokensInFlight.add(principal.keyId, tokens);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.tokensInFlight.add(principal.keyId, -tokens);
    };
  }

  record(usage: Omit<UsageRecord, 'requests'> & { requests?: number }): void {
    this.usage.record({ requests: 1, ...usage }, this.clock.now());
  }
}
