// Spend per UTC day as an inline SVG bar chart (no chart library; CSP-safe).
import type { SpendPoint } from '../../../shared/studio-contract';
import { formatUsd } from '../lib/format';
import { spendSeries } from '../lib/spend';

const W = 640;
const H = 200;
const PAD = { top: 12, right: 8, bottom: 26, left: 56 };

/** A round axis maximum (1, 2 or 5 times a power of ten) above the largest bar. */
function niceMax(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  const step = [1, 2, 5, 10].find((m) => m * power >= value) ?? 10;
  return step * power;
}

export function SpendChart({ points }: { points: readonly SpendPoint[] }) {
  const series = spendSeries(points);
  const max = niceMax(Math.max(...series.map((s) => s.usd)));
  const innerW = W - PAD.left - PAD.right;
  const innerH = H - PAD.top - PAD.bottom;
  const slot = innerW / series.length;
  const barW = Math.max(4, slot * 0.62);
  const total = series.reduce((sum, s) => sum + s.usd, 0);
  const ticks = [0, 0.5, 1].map((f) => f * max);
  // About seven date labels whatever the window, always including the last day.
  const labelEvery = Math.max(1, Math.ceil(series.length / 7));

  return (
    <svg
      className="chart"
      viewBox={`0 0 ${W} ${H}`}
      role="img"
      aria-label={`Spend over the last ${series.length} days, ${formatUsd(total.toFixed(8))} in total`}
    >
      {ticks.map((t) => {
        const y = PAD.top + innerH - (t / max) * innerH;
        return (
          <g key={t}>
            <line className="chart-grid" x1={PAD.left} x2={W - PAD.right} y1={y} y2={y} />
            <text className="chart-label" x={PAD.left - 8} y={y + 4} textAnchor="end">
              {formatUsd(String(+t.toPrecision(3)))}
            </text>
          </g>
        );
      })}
      {series.map((s, i) => {
        const h = (s.usd / max) * innerH;
        const x = PAD.left + i * slot + (slot - barW) / 2;
        return (
          <g key={s.day}>
            <rect className="chart-bar" x={x} y={PAD.top + innerH - h} width={barW} height={Math.max(h, s.usd > 0 ? 1.5 : 0)} rx={3}>
              <title>{`${s.day}: ${formatUsd(s.raw)}`}</title>
            </rect>
            {(series.length - 1 - i) % labelEvery !== 0 ? null : (
              <text className="chart-label" x={x + barW / 2} y={H - 8} textAnchor="middle">
                {s.day.slice(5)}
              </text>
            )}
          </g>
        );
      })}
    </svg>
  );
}
