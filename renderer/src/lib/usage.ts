// The daily token quota of a key's usage as the panel shows it: "of 1,000,000" and how full it is.
// Paid access (pro, balance) has no daily token cap: null.
import type { KeyUsage } from '../../../shared/studio-contract';
import { formatCount } from './format';

export interface QuotaView {
  used: number;
  quota: number;
  /** 0-100, for the progress bar. */
  percent: number;
  /** "of 1,000,000" */
  text: string;
}

export function dailyQuota(usage: Pick<KeyUsage, 'tokens_today' | 'daily_token_quota'>): QuotaView | null {
  const quota = usage.daily_token_quota;
  if (quota === null) return null;
  const used = usage.tokens_today;
  const percent = quota > 0 ? Math.min(100, (used / quota) * 100) : 100;
  return { used, quota, percent, text: `of ${formatCount(quota)}` };
}
