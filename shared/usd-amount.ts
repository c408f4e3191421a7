// The one rule for a USD amount the owner types (top-ups, starting balances, allowances), shared
// so the studio can say what is wrong before sending and the core says the same when it refuses.
// Money is integer nano-USD, so one amount can be at most Number.MAX_SAFE_INTEGER nano-USD.

/** Digits, optionally a dot and up to 9 decimals: no sign, no exponent, no thousands separator. */
export const USD_AMOUNT_PATTERN = '^(\\d+)(?:\\.(\\d{1,9}))?$';
/** Number.MAX_SAFE_INTEGER nano-USD, written in USD. */
export const MAX_USD_AMOUNT = '9007199.254740991';

export const USD_FORMAT_PROBLEM = 'must be a plain decimal amount in USD such as 10 or 2.50 (digits, at most 9 decimals, no exponent)';
export const USD_MAX_PROBLEM = `must be at most ${MAX_USD_AMOUNT} USD, the most a balance holds exactly to the nano-dollar`;

const PATTERN = new RegExp(USD_AMOUNT_PATTERN);

/** Why `text` is not an amount the gateway takes (to follow the field's name), or null. */
export function usdAmountProblem(text: string): string | null {
  const match = PATTERN.exec(text.trim());
  if (!match) return USD_FORMAT_PROBLEM;
  // Far more digits than the maximum has: too large, said without handing BigInt a huge string.
  if (match[1]!.replace(/^0+(?=\d)/, '').length > 16) return USD_MAX_PROBLEM;
  const nano = BigInt(match[1]!) * 1_000_000_000n + BigInt((match[2] ?? '').padEnd(9, '0'));
  return nano > BigInt(Number.MAX_SAFE_INTEGER) ? USD_MAX_PROBLEM : null;
}
