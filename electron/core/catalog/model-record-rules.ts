// Rules of a model record that tie fields together, which the TypeBox schema cannot say: how a
// video model is identified (the contract: model_type video, pricing_mode second, video output,
// video_generation true), what each pricing mode needs to be billed, and units billing can read.
import { parseTokenUnit } from '../billing/pricing.js';
import type { SchemaProblem } from '../schema-check.js';
import type { ModelRecordInput } from './model-record-schema.js';

const problem = (param: string, message: string): SchemaProblem => ({ param, message });

export function recordRuleProblem(record: ModelRecordInput): SchemaProblem | null {
  return videoProblem(record) ?? pricingProblem(record);
}

/** A `video` model must carry all four identifying fields and what POST /v1/videos checks against. */
function videoProblem(record: ModelRecordInput): SchemaProblem | null {
  if (record.model_type !== 'video') return null;
  const caps = record.capabilities;
  if (record.pricing_mode !== 'second') return problem('pricing_mode', 'must be "second" for a video model');
  if (!record.modalities.output.includes('video')) return problem('modalities.output', 'must contain "video" for a video model');
  if (caps.video_generation !== true) return problem('capabilities.video_generation', 'must be true for a video model');
  if (!caps.supported_seconds?.length) return problem('capabilities.supported_seconds', 'must list at least one duration for a video model');
  if (!caps.supported_sizes?.length) return problem('capabilities.supported_sizes', 'must list at least one size for a video model');
  return null;
}

function pricingProblem(record: ModelRecordInput): SchemaProblem | null {
  const pricing = record.pricing;
  // Balances, holds and cost_usd are USD: a record in another currency could be listed but
  // never billed (every request to it would be refused), so it is refused when it is written.
  if (pricing.currency.toUpperCase() !== 'USD') return problem('pricing.currency', `must be "USD": balances and charges are in USD (got ${JSON.stringify(pricing.currency.slice(0, 20))})`);
  if (record.pricing_mode === 'token') {
    if (pricing.input === undefined) return problem('pricing.input', 'is required when pricing_mode is "token"');
    if (pricing.output === undefined) return problem('pricing.output', 'is required when pricing_mode is "token"');
    if (parseTokenUnit(pricing.unit) === null) {
      return problem('pricing.unit', 'must be a token count such as "1M tokens", "1K tokens" or "1 token" when pricing_mode is "token"');
    }
    return null;
  }
  if (pricing.unit !== 'second') return problem('pricing.unit', 'must be "second" when pricing_mode is "second"');
  if (pricing.price === undefined && !pricing.route_prices_usd_per_second?.length) {
    return problem('pricing.price', 'or a non-empty pricing.route_prices_usd_per_second is required when pricing_mode is "second"');
  }
  return null;
}
