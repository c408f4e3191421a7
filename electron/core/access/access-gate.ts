// The access checks every image and video request passes, whichever door it came through:
// request windows per principal, daily token quotas for callers who pay no money, and usage
// recording. Refusals raise 429 rate_limit_exceeded with Retry-After.
import type { Clock } from '../clock.js';
import { GatewayError } from '../errors.js';
import { dailyTokenQuota, type LimitSettings } from './limits.js';
import type { Principal } from './principal.js';
import { RateLimiter, type Admission, type RateState } from './rate-limiter.js';
import type { SharedWindows } from './shared-windows.js';
import { utcDay, type UsageLedger, type UsageRecord } from './usage-ledger.js';
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

/** Ends a daily-token hold, counting the tokens the request used (none when it failed). */
export type TokenRelease = (usedTokens?: number) => void | Promise<void>;

export class AccessGate {
  readonly limiter = new RateLimiter();
  /** Estimated tokens of quota-bound requests still running, per principal. */
  private readonly tokensInFlight = new Tally();

  constructor(
    readonly settings: LimitSettings,
    readonly usage: UsageLedger,
    private readonly clock: Clock,
    /** Team mode: windows and daily tokens counted in the shared database, not in this process. */
    readonly shared: SharedWindows | null = null,
  ) {}

  /** Counts a request against the principal's windows, or refuses it with 429 (a promise in team mode). */
  admit(principal: Principal): RateTicket | Promise<RateTicket> {
    const now = this.clock.now();
    const limits = this.settings.requests[principal.access];
    if (this.shared) return this.shared.admit(principal.keyId, limits, now).then((result) => this.ticket(principal, now, result));
    return this.ticket(principal, now, this.limiter.admit(principal.keyId, limits, now));
  }

  private ticket(principal: Principal, now: number, result: Admission): RateTicket {
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
  peek(principal: Principal): RateState | Promise<RateState> {
    const limits = this.settings.requests[principal.access];
    if (this.shared) return this.shared.peek(principal.keyId, limits, this.clock.now());
    return this.limiter.peek(principal.keyId, limits, this.clock.now());
  }

  /** Gives a refused request's slot back (see REFUNDED_STATUSES). */
  refund(ticket: RateTicket): void | Promise<void> {
    if (this.shared) return this.shared.refund(ticket.principal, ticket.countedAt);
    this.limiter.refund(ticket.principal, ticket.countedAt);
  }

  /**
   * Refuses with 429 when `tokens` more would pass the principal's daily quota; else holds them
   * until the returned release() (after the usage is recorded, or on failure), so requests in
   * flight at once cannot pass the quota together. Paid access has no quota: nothing is held.
   */
  async reserveDailyTokens(principal: Principal, tokens: number): Promise<TokenRelease> {
    const quota = dailyTokenQuota(this.settings, principal.access);
    if (quota === null) return () => {};
    const now = this.clock.now();
    if (this.shared) return this.holdSharedTokens(principal, tokens, quota, now);
    const used = (await this.usage.tokensToday(principal.keyId, now)) + this.tokensInFlight.get(principal.keyId);
    if (used + tokens > quota) throw quotaReached(principal, quota, used, now);
    this.tokensInFlight.add(principal.keyId, tokens);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.tokensInFlight.add(principal.keyId, -tokens);
    };
  }

  private async holdSharedTokens(principal: Principal, tokens: number, quota: number, now: number): Promise<TokenRelease> {
    const shared = this.shared!;
    const day = utcDay(now);
    const held = await shared.holdTokens(principal.keyId, day, tokens, quota);
    if (!held.ok) throw quotaReached(principal, quota, held.used, now);
    let open = true;
    return async (usedTokens = 0) => {
      if (!open) return;
      open = false;
      await shared.settleTokens(principal.keyId, day, tokens, usedTokens);
    };
  }

  record(usage: Omit<UsageRecord, 'requests'> & { requests?: number }): void {
    this.usage.record({ requests: 1, ...usage }, this.clock.now());
  }
}

function quotaReached(principal: Principal, quota: number, used: number, now: number): GatewayError {
  const midnight = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), new Date(now).getUTCDate() + 1);
  const seconds = Math.max(1, Math.ceil((midnight - now) / 1000));
  return new GatewayError(
    'rate_limit_exceeded',
    `Daily token quota reached: ${principal.access} access allows ${quota} tokens per UTC day (${used} used); it resets at 00:00 UTC.`,
    null,
    { 'retry-after': String(seconds) },
  );
}
