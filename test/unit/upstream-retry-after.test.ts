// How long an upstream asked the gateway to wait (Retry-After and retry-after-ms), as the
// whole seconds of the Retry-After the gateway's own 429 carries; and how long a failed status
// poll waits before the next (that Retry-After, else exponential backoff with full jitter).
import { describe, expect, it } from 'vitest';
import { errorForStatus, pollRetryDelayMs, retryAfterSeconds, unavailable, upstreamRetryAfter } from '../../electron/core/providers/upstream/upstream-errors.js';

describe('retryAfterSeconds', () => {
  it('reads delta-seconds, rounding fractions up (the OpenAI SDKs read "1.5" as 1.5 s)', () => {
    expect(retryAfterSeconds('7')).toBe(7);
    expect(retryAfterSeconds(' 7 ')).toBe(7);
    expect(retryAfterSeconds('1.5')).toBe(2);
    expect(retryAfterSeconds('2.0')).toBe(2);
    expect(retryAfterSeconds('0.2')).toBe(1);
    expect(retryAfterSeconds('99999')).toBe(3600);
  });

  it('reads an HTTP date as the seconds to it, and nothing else as a date', () => {
    const inTen = new Date(Date.now() + 10_000).toUTCString();
    expect(retryAfterSeconds(inTen)).toBeGreaterThanOrEqual(9);
    expect(retryAfterSeconds(inTen)).toBeLessThanOrEqual(11);
    expect(retryAfterSeconds('Wed, 21 Oct 2015 07:28:00 GMT')).toBe(0);
    for (const junk of ['-3', '1.5.2', '1e3', '', 'soon']) expect(retryAfterSeconds(junk)).toBeNull();
  });
});

describe('upstreamRetryAfter', () => {
  const headers = (given: Record<string, string>) => (name: string) => given[name] ?? null;

  it('prefers Retry-After, else converts retry-after-ms', () => {
    expect(upstreamRetryAfter(headers({ 'retry-after': '3', 'retry-after-ms': '9000' }))).toBe('3');
    expect(upstreamRetryAfter(headers({ 'retry-after-ms': '1500' }))).toBe('1.5');
    expect(upstreamRetryAfter(headers({ 'retry-after-ms': 'x' }))).toBeNull();
    expect(upstreamRetryAfter(headers({}))).toBeNull();
  });

  it("else waits for OpenAI's exhausted limit to reset (x-ratelimit-remaining-* at 0)", () => {
    const limits = { 'x-ratelimit-reset-requests': '1s', 'x-ratelimit-reset-tokens': '6m0s' };
    expect(upstreamRetryAfter(headers({ ...limits, 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-remaining-tokens': '5000' }))).toBe('1');
    expect(upstreamRetryAfter(headers({ ...limits, 'x-ratelimit-remaining-requests': '59', 'x-ratelimit-remaining-tokens': '0' }))).toBe('360');
    expect(upstreamRetryAfter(headers({ ...limits, 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-remaining-tokens': '0' }))).toBe('360');
    expect(upstreamRetryAfter(headers({ 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '1m30.5s' }))).toBe('90.5');
    expect(upstreamRetryAfter(headers({ 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '20ms' }))).toBe('0.02');
    // Nothing exhausted, or a reset that is not a duration: no wait known.
    expect(upstreamRetryAfter(headers({ ...limits, 'x-ratelimit-remaining-requests': '3' }))).toBeNull();
    expect(upstreamRetryAfter(headers({ 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': 'soon' }))).toBeNull();
    expect(upstreamRetryAfter(headers({ 'retry-after': '2', ...limits, 'x-ratelimit-remaining-tokens': '0' }))).toBe('2');
    // A Retry-After that cannot be read gives way to what can.
    expect(upstreamRetryAfter(headers({ 'retry-after': 'soon', 'retry-after-ms': '1500' }))).toBe('1.5');
    expect(upstreamRetryAfter(headers({ 'retry-after': 'soon', ...limits, 'x-ratelimit-remaining-tokens': '0' }))).toBe('360');
  });

  it('gives the 429 a whole-second Retry-After', () => {
    expect(errorForStatus(429, upstreamRetryAfter(headers({ 'retry-after-ms': '1500' }))).headers).toEqual({ 'retry-after': '2' });
    expect(errorForStatus(429, '1.5').headers).toEqual({ 'retry-after': '2' });
    expect(errorForStatus(429, '0.02').headers).toEqual({ 'retry-after': '1' });
  });
});

describe('pollRetryDelayMs', () => {
  const samples = (failures: number) => Array.from({ length: 400 }, () => pollRetryDelayMs(unavailable('reset'), failures, 100, 5_000));

  it("waits the upstream's Retry-After when its 429 named one", () => {
    expect(pollRetryDelayMs(errorForStatus(429, '3'), 1, 100, 5_000)).toBe(3_000);
    expect(pollRetryDelayMs(errorForStatus(429, '3'), 9, 100, 5_000)).toBe(3_000);
  });

  it('else backs off exponentially, capped, with full jitter (waits spread over the whole range)', () => {
    for (const [failures, ceiling] of [[1, 200], [3, 800], [5, 3_200], [9, 5_000]] as const) {
      const waits = samples(failures);
      expect(Math.min(...waits)).toBeGreaterThanOrEqual(100);
      expect(Math.max(...waits)).toBeLessThan(100 + ceiling);
      // Full jitter: not one fixed wait, and both halves of the range are used.
      expect(waits.some((w) => w < 100 + ceiling / 2)).toBe(true);
      expect(waits.some((w) => w >= 100 + ceiling / 2)).toBe(true);
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(mean(samples(4))).toBeGreaterThan(mean(samples(1)) * 3);
  });
});
