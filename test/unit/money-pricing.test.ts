import { describe, expect, it } from 'vitest';
import { ceilToCostGrid, formatUsd, parseUsd, usdToNano } from '../../electron/core/billing/money.js';
import { MAX_USD_AMOUNT, USD_FORMAT_PROBLEM, USD_MAX_PROBLEM, usdAmountProblem } from '../../shared/usd-amount.js';
import { perSecondCostNano, tokenCostNano, tokensPerUnit } from '../../electron/core/billing/pricing.js';

describe('money', () => {
  it('parses decimal USD exactly into nano-USD and rejects everything else', () => {
    expect(parseUsd('12')).toBe(12_000_000_000);
    expect(parseUsd('0.5')).toBe(500_000_000);
    expect(parseUsd('3.000000001')).toBe(3_000_000_001);
    for (const bad of ['-1', '1e3', 'ten', '', '1.0000000001', '0x10', '1,5']) expect(parseUsd(bad)).toBeNull();
  });

  it('formats with eight decimals', () => {
    expect(formatUsd(0)).toBe('0.00000000');
    expect(formatUsd(1_250_000)).toBe('0.00125000');
    expect(formatUsd(12_345_678_910)).toBe('12.34567891');
    expect(formatUsd(5)).toBe('0.00000001'); // half up
    expect(formatUsd(4)).toBe('0.00000000');
    expect(formatUsd(-1_000_000_000)).toBe('-1.00000000');
  });

  it('keeps charges on the 8-decimal grid', () => {
    expect(ceilToCostGrid(1)).toBe(10);
    expect(ceilToCostGrid(10)).toBe(10);
    expect(ceilToCostGrid(11)).toBe(20);
    expect(usdToNano(0.1 + 0.2)).toBe(300_000_000);
  });
});

describe('per-second pricing (video holds)', () => {
  it('is seconds x price, rounded up to the cost grid, never down', () => {
    expect(perSecondCostNano(0.05, 4)).toBe(200_000_000);
    // 11 nano-USD a second for 3 s is 33 nano: held as 40 (0.00000004), not 30.
    expect(perSecondCostNano(0.000000011, 3)).toBe(40);
    expect(perSecondCostNano(0.000000011, 1)).toBe(20);
    expect(perSecondCostNano(0.00000001, 7)).toBe(70);
  });
});

describe('token pricing', () => {
  const pricing = { input: 2.5, output: 10, currency: 'USD', unit: '1M tokens' };

  it('applies (in * input + out * output) / 1M', () => {
    // 1000 * 2.5 + 500 * 10 = 7500 USD per 1M -> 0.0075 USD
    expect(tokenCostNano(pricing, { input_tokens: 1000, output_tokens: 500 })).toBe(7_500_000);
  });

  it('applies the minimum request price', () => {
    expect(tokenCostNano({ ...pricing, minimum_request_price_usd: 0.02 }, { input_tokens: 1, output_tokens: 1 })).toBe(20_000_000);
    expect(tokenCostNano({ ...pricing, minimum_request_price_usd: 0.001 }, { input_tokens: 1000, output_tokens: 500 })).toBe(7_500_000);
  });

  it('honours the unit and minimum cache tokens', () => {
    expect(tokensPerUnit('1M tokens')).toBe(1_000_000);
    expect(tokensPerUnit('1K tokens')).toBe(1000);
    expect(tokenCostNano({ ...pricing, unit: '1K tokens' }, { input_tokens: 1000, output_tokens: 0 })).toBe(2_500_000_000);
    const cached = { ...pricing, minimum_cache_tokens: 1024 };
    expect(tokenCostNano(cached, { input_tokens: 0, output_tokens: 0, cache_tokens: 10 })).toBe(tokenCostNano(pricing, { input_tokens: 1024, output_tokens: 0 }));
    expect(tokenCostNano(cached, { input_tokens: 0, output_tokens: 0 })).toBe(0);
  });

  it('rounds up to the cost grid and never overflows for large counts', () => {
    expect(tokenCostNano(pricing, { input_tokens: 1, output_tokens: 0 })).toBe(2500);
    expect(tokenCostNano({ ...pricing, input: 0.000001 }, { input_tokens: 1, output_tokens: 0 })).toBe(10);
    expect(tokenCostNano(pricing, { input_tokens: 50_000_000, output_tokens: 50_000_000 })).toBe(625 * 1_000_000_000);
  });

  it('refuses a cost billing cannot hold exactly (a record stored before prices were bounded) as 400, not a RangeError', () => {
    const outOfRange = { code: 'invalid_request', param: 'model', message: 'The price of this request is out of range.' };
    const usage = { input_tokens: 10, output_tokens: 1024 };
    expect(() => tokenCostNano({ ...pricing, output: 1e300 }, usage)).toThrow(expect.objectContaining(outOfRange));
    expect(() => tokenCostNano({ ...pricing, minimum_request_price_usd: 1e300 }, usage)).toThrow(expect.objectContaining(outOfRange));
    expect(() => tokenCostNano({ ...pricing, minimum_cache_tokens: 0.5 }, { ...usage, cache_tokens: 0 })).toThrow(expect.objectContaining(outOfRange));
    // Each price fits, the product does not: 1024 tokens at $9,000,000 per token.
    expect(() => tokenCostNano({ ...pricing, output: 9_000_000, unit: '1 token' }, usage)).toThrow(expect.objectContaining(outOfRange));
  });

  it('refuses non-USD pricing instead of misbilling', () => {
    expect(() => tokenCostNano({ ...pricing, currency: 'EUR' }, { input_tokens: 1, output_tokens: 1 })).toThrow(/USD/);
  });
});

describe('usdAmountProblem (the rule the studio checks as typed and the core names when refusing)', () => {
  it('agrees with parseUsd on every input, and says which rule an amount breaks', () => {
    const samples = ['12', '0.5', '3.000000001', '0', MAX_USD_AMOUNT, '9007199.254740992', '10000000', '999999999999', '1e2', '-1', ' 7 ', '1.0000000001', 'ten', '', '1000000000000', '9'.repeat(40), '0000000000005.5', `${'0'.repeat(30)}${MAX_USD_AMOUNT}`];
    for (const text of samples) expect(usdAmountProblem(text) === null, text).toBe(parseUsd(text) !== null);
    // Digits only, however many: too large, not "not a plain decimal".
    for (const text of ['1000000000000', '9'.repeat(40), '9'.repeat(100_000)]) expect(usdAmountProblem(text), text).toBe(USD_MAX_PROBLEM);
    expect(parseUsd('0000000000005.5')).toBe(5_500_000_000);
    expect(parseUsd(MAX_USD_AMOUNT)).toBe(Number.MAX_SAFE_INTEGER);
    expect(usdAmountProblem('1e2')).toBe(USD_FORMAT_PROBLEM);
    expect(usdAmountProblem('10000000')).toBe(USD_MAX_PROBLEM);
    expect(USD_MAX_PROBLEM).toContain('9007199.254740991');
  });
});
