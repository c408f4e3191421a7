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

const WINDOWS = ['perSecond', 'perMinute', 'perHour'] as const;
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * What is wrong with the owner's `limits` (config.json), or null. Checked when read: a value the
 * limiter cannot use would otherwise refuse every request (a null window), lift a quota (a null
 * daily count) or renew the allowance on every request (a period of 0 days).
 */
export function limitsProblem(limits: unknown): string | null {
  if (!isObject(limits)) return 'limits must be an object';
  for (const [name, value] of Object.entries(limits)) {
    if (name === 'requests') {
      if (!isObject(value)) return 'limits.requests must be an object';
      for (const [access, windows] of Object.entries(value)) {
        if (!(access in DEFAULT_LIMITS.requests)) return `limits.requests.${access} is not an access type (anonymous, free, pro, balance)`;
        if (!isObject(windows)) return `limits.requests.${access} must be an object`;
        for (const [window, count] of Object.entries(windows)) {
          if (!(WINDOWS as readonly string[]).includes(window)) return `limits.requests.${access}.${window} is not a window (${WINDOWS.join(', ')})`;
          if (!isCount(count, 1)) return `limits.requests.${access}.${window} must be a whole number of requests, at least 1`;
        }
      }
    } else if (name === 'dailyTokens') {
      if (!isObject(value)) return 'limits.dailyTokens must be an object';
      for (const [access, count] of Object.entries(value)) {
        if (!(access in DEFAULT_LIMITS.dailyTokens)) return `limits.dailyTokens.${access} is not an access with a daily quota (anonymous, free)`;
        if (!isCount(count, 0)) return `limits.dailyTokens.${access} must be a whole number of tokens`;
      }
    } else if (name === 'billingPeriodDays') {
      if (!isCount(value, 1)) return 'limits.billingPeriodDays must be a whole number of days, at least 1';
    } else {
      return `limits.${name} is not a setting (requests, dailyTokens, billingPeriodDays)`;
    }
  }
  return null;
}

const isCount = (value: unknown, least: number): boolean => Number.isSafeInteger(value) && (value as number) >= least;
