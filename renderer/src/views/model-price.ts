// Short, readable price lines from a record's pricing (display only, no arithmetic).
import type { ModelRecord } from '../../../shared/api-types';
import { formatUsd } from '../lib/format';

const usd = (n: number | undefined) => (n === undefined ? '—' : formatUsd(String(n)));

export function priceSummary(r: ModelRecord): string {
  const p = r.pricing;
  if (r.pricing_mode === 'token') return `in ${usd(p.input)} · out ${usd(p.output)} per ${p.unit}`;
  const routes = p.route_prices_usd_per_second;
  if (routes && routes.length > 0) {
    return routes.map((rp) => `${usd(rp.public_price_usd_per_second)}/s ${rp.request_type}`).join(' · ');
  }
  return `${usd(p.price)} per ${p.unit}`;
}

export { usd };
