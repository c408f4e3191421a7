// Price formulas of the contract (Billing formulas), computed in integer nano-USD.
import type { Pricing } from '../../../shared/api-types.js';
import { invalid, type GatewayError } from '../errors.js';
import { ceilToCostGrid, usdToNano } from './money.js';

export interface TokenUsage {
  input_tokens: number;
  output_tokens: number;
  /** Cache tokens the provider reported, if any. */
  cache_tokens?: number;
}

const UNIT = /^\s*(\d+(?:\.\d+)?)\s*([kKmM]?)\s*tokens?\s*$/;

/**
 * How many tokens a `unit` prices ("1M tokens" -> 1e6, "1K tokens" -> 1e3, "1 token" -> 1), or
 * null when billing cannot read it (no count, or under one token). The catalog refuses such units.
 */
export function parseTokenUnit(unit: string): number | null {
  const match = UNIT.exec(unit);
  if (!match) return null;
  const scale = match[2]?.toLowerCase() === 'm' ? 1_000_000 : match[2]?.toLowerCase() === 'k' ? 1_000 : 1;
  const tokens = Math.round(Number(match[1]) * scale);
  return tokens >= 1 && Number.isSafeInteger(tokens) ? tokens : null;
}

/** parseTokenUnit, with 1M for a unit it cannot read (a record stored before units were checked). */
export function tokensPerUnit(unit: string): number {
  return parseTokenUnit(unit) ?? 1_000_000;
}

function assertUsd(pricing: Pricing): void {
  if (pricing.currency.toUpperCase() !== 'USD') {
    throw invalid(`This model is priced in ${pricing.currency}; only USD pricing can be billed.`, 'model');
  }
}

/**
 * Token models: (input_tokens * input + output_tokens * output) / tokens-per-unit, then
 * max(cost, minimum_request_price_usd). Cache tokens are billed at the input price and, when
 * the provider reports any, counted as at least `minimum_cache_tokens`.
 */
export function tokenCostNano(pricing: Pricing, usage: TokenUsage): number {
  assertUsd(pricing);
  const perUnit = BigInt(Math.round(tokensPerUnit(pricing.unit)));
  const inputNano = usdToNano(pricing.input ?? 0);
  const outputNano = usdToNano(pricing.output ?? 0);
  const minimum = pricing.minimum_request_price_usd !== undefined ? usdToNano(pricing.minimum_request_price_usd) : 0;
  let cacheTokens = usage.cache_tokens ?? 0;
  if (usage.cache_tokens !== undefined && pricing.minimum_cache_tokens !== undefined) {
    cacheTokens = Math.max(cacheTokens, pricing.minimum_cache_tokens);
  }
  // A record stored before prices were bounded may hold one billing cannot represent (Infinity
  // for 1e300, a fractional cache floor): a refusal, not a RangeError answered as a 500.
  if (![inputNano, outputNano, minimum, cacheTokens].every(Number.isSafeInteger)) throw outOfRange();
  const weighted =
    BigInt(usage.input_tokens + cacheTokens) * BigInt(inputNano) + BigInt(usage.output_tokens) * BigInt(outputNano);
  // Round up to the nano, then up to the 8-decimal grid of cost_usd.
  const nano = Number((weighted + perUnit - 1n) / perUnit);
  const cost = ceilToCostGrid(Math.max(nano, minimum));
  if (!Number.isSafeInteger(cost)) throw outOfRange();
  return cost;
}

/** Video models: seconds * price per second (route prices are chosen by the caller). */
export function perSecondCostNano(pricePerSecondUsd: number, seconds: number): number {
  const nano = ceilToCostGrid(usdToNano(pricePerSecondUsd) * seconds);
  if (!Number.isSafeInteger(nano)) throw outOfRange('seconds');
  return nano;
}

function outOfRange(param = 'model'): GatewayError {
  return invalid('The price of this request is out of range.', param);
}
