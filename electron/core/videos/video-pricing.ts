// The hold of a video task: seconds x the matching route price when the record lists route
// prices, else seconds x pricing.price (the contract's Billing formulas).
import type { ModelRecord } from '../../../shared/api-types.js';
import { paysWithMoney } from '../access/access-policy.js';
import type { Principal } from '../access/principal.js';
import { perSecondCostNano } from '../billing/pricing.js';
import { upstreamRouteFor } from '../catalog/partner-fields.js';
import { namedVideoDimensions } from '../catalog/video-sizes.js';
import { invalid } from '../errors.js';

/** `upstreamModel` is the model's; the request type's partner route, when it has one, is matched instead. */
export function pricePerSecond(record: ModelRecord, upstreamModel: string, requestType: string): number {
  const routes = record.pricing.route_prices_usd_per_second;
  if (routes && routes.length > 0) {
    const route = upstreamRouteFor(record, upstreamModel, requestType);
    const candidates = routes.filter((r) => r.request_type === requestType);
    const exact = candidates.find((r) => r.route === record.id || r.route === route);
    const match = exact ?? (candidates.length === 1 ? candidates[0] : undefined);
    if (!match) throw invalid(`${record.id} has no route price for ${requestType}.`, 'request_type');
    return match.public_price_usd_per_second;
  }
  if (record.pricing.price === undefined) throw invalid(`${record.id} has no per-second price.`, 'model');
  return record.pricing.price;
}

export function videoHoldNano(record: ModelRecord, upstreamModel: string, requestType: string, seconds: number): number {
  if (record.pricing.currency.toUpperCase() !== 'USD') {
    throw invalid(`This model is priced in ${record.pricing.currency}; only USD pricing can be billed.`, 'model');
  }
  return perSecondCostNano(pricePerSecond(record, upstreamModel, requestType), seconds);
}

/**
 * The hold of `principal`'s task: free and anonymous callers pay no money (SPEC-DECISIONS "Who
 * pays"), so theirs is zero, after the same price checks.
 */
export function videoHoldFor(principal: Principal, record: ModelRecord, upstreamModel: string, requestType: string, seconds: number): number {
  const hold = videoHoldNano(record, upstreamModel, requestType, seconds);
  return paysWithMoney(principal) ? hold : 0;
}

/** Named resolutions map to 16:9 frames; exact sizes pass through. */
export function videoDimensions(size: string): { width: number; height: number } {
  const known = namedVideoDimensions(size);
  if (known) return known;
  const match = /^(\d{2,5})x(\d{2,5})$/.exec(size);
  if (!match) throw invalid(`size ${size} is neither a named resolution nor <width>x<height>.`, 'size');
  return { width: Number(match[1]), height: Number(match[2]) };
}
