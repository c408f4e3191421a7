// The access table as this gateway applies it. Request windows and daily token quotas of
// anonymous and free callers come from the contract; the paid defaults and the billing period
// are the owner's to change (config.json "limits").
import type { PrincipalAccess } from './principal.js';

export interface WindowLimits {
  perSecond: number;
  perMinute: number;
  perHour: number;
}

export interface LimitSettings {
  requests: Record<PrincipalAccess, WindowLimits>;
  /** Tokens per UTC day for callers who pay no money; paid access has no daily token cap. */
  dailyTokens: { anonymous: number; free: number };
  /** Length of a pro allowance period, in days. */
  billingPeriodDays: number;
}

export const DEFAULT_LIMITS: LimitSettings = {
  requests: {
    anonymous: { perSecond: 1, perMinute: 10, perHour: 60 },
    free: { perSecond: 2, perMinute: 40, perHour: 100 },
    pro: { perSecond: 20, perMinute: 600, perHour: 10_000 },
    balance: { perSecond: 20, perMinute: 600, perHour: 10_000 },
  },
  dailyTokens: { anonymous: 500_000, free: 1_000_000 },
  billingPeriodDays: 30,
};

type DeepPartial<T> = { [K in keyof T]?: T[K] extends object ? DeepPartial<T[K]> : T[K] };

/** The defaults with the owner's overrides laid over them. */
export function resolveLimits(overrides: DeepPartial<LimitSettings> = {}): LimitSettings {
  const requests = { ...DEFAULT_LIMITS.requests };
  for (const access of Object.keys(requests) as PrincipalAccess[]) {
    requests[access] = { ...requests[access], ...(overrides.requests?.[access] ?? {}) };
  }
  return {
    requests,
    dailyTokens: { ...DEFAULT_LIMITS.dailyTokens, ...(overrides.dailyTokens ?? {}) },
    billingPeriodDays: overrides.billingPeriodDays ?? DEFAULT_LIMITS.billingPeriodDays,
  };
}

export type LimitOverrides = DeepPartial<LimitSettings>;

export const dailyTokenQuota = (settings: LimitSettings, access: PrincipalAccess): number | null =>
  access === 'anonymous' ? settings.dailyTokens.anonymous : access === 'free' ? settings.dailyTokens.free : null;
