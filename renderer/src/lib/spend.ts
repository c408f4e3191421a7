// The spend chart's series: consecutive UTC days ending today (or at the newest point), at least
// `minDays` and at most MAX_DAYS of them, with days that had no spend filled with zero.
import type { SpendPoint } from '../../../shared/studio-contract';

export const SPEND_DAYS = 14;
const MAX_DAYS = 31;
const DAY_MS = 86_400_000;

const dayKey = (d: Date) => d.toISOString().slice(0, 10);

export function spendSeries(
  points: readonly SpendPoint[],
  today = new Date(),
  minDays = SPEND_DAYS,
): { day: string; usd: number; raw: string }[] {
  const byDay = new Map(points.map((p) => [p.day, p.spend_usd]));
  const days = [...byDay.keys()].sort();
  const end = new Date(`${[dayKey(today), ...days].sort().at(-1)}T00:00:00Z`);
  const oldest = days[0] ? new Date(`${days[0]}T00:00:00Z`) : end;
  const span = Math.round((end.getTime() - oldest.getTime()) / DAY_MS) + 1;
  const length = Math.min(MAX_DAYS, Math.max(minDays, span));
  return Array.from({ length }, (_, i) => {
    const d = new Date(end.getTime() - (length - 1 - i) * DAY_MS);
    const raw = byDay.get(dayKey(d)) ?? '0';
    return { day: dayKey(d), usd: Number(raw) || 0, raw };
  });
}
