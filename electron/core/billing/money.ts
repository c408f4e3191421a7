// Money is integer nano-USD (1e-9) everywhere. Conversions from decimal text are exact; only
// owner-entered prices (catalog numbers) go through rounding, once, here.

import { USD_AMOUNT_PATTERN } from '../../../shared/usd-amount.js';

export const NANO_PER_USD = 1_000_000_000;
/** `cost_usd` has 8 decimals, so charges are kept on a 10-nano grid: what is shown is what is billed. */
export const COST_GRID_NANO = 10;

const DECIMAL = new RegExp(USD_AMOUNT_PATTERN);

/**
 * Parses a non-negative decimal USD amount ("12", "0.5", "3.000000001") into nano-USD, exactly;
 * null when it is not one or is too large to be exact (usdAmountProblem says which).
 */
export function parseUsd(text: string): number | null {
  const match = DECIMAL.exec(text.trim());
  if (!match) return null;
  const whole = Number(match[1]);
  const fraction = Number((match[2] ?? '').padEnd(9, '0'));
  const nano = whole * NANO_PER_USD + fraction;
  return Number.isSafeInteger(nano) ? nano : null;
}

/** A catalog price (a JS number of USD) to nano-USD, rounded half up. */
export function usdToNano(usd: number): number {
  return Math.round(usd * NANO_PER_USD);
}

/** nano-USD to a decimal string with `decimals` places (default 8, as `usage.cost_usd`). */
export function formatUsd(nano: number, decimals = 8): string {
  const negative = nano < 0;
  const abs = BigInt(Math.abs(Math.round(nano)));
  const scale = 10n ** BigInt(9 - decimals);
  const rounded = (abs + scale / 2n) / scale;
  const unit = 10n ** BigInt(decimals);
  const whole = rounded / unit;
  const fraction = (rounded % unit).toString().padStart(decimals, '0');
  return `${negative ? '-' : ''}${whole}${decimals > 0 ? `.${fraction}` : ''}`;
}

/** Rounds nano-USD up to the 8-decimal grid, so a charge never shows less than was computed. */
export function ceilToCostGrid(nano: number): number {
  return Math.ceil(nano / COST_GRID_NANO) * COST_GRID_NANO;
}
