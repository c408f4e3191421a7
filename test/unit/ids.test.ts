// Ids are drawn from a pooled CSPRNG buffer: right length and alphabet, no repeats, and every
// character equally likely (bytes past the last whole multiple of 36 are skipped).
import { describe, expect, it } from 'vitest';
import { newId, randomId } from '../../electron/core/ids.js';

describe('randomId', () => {
  it('has the asked length, only lowercase letters and digits, and does not repeat', () => {
    const ids = Array.from({ length: 20_000 }, () => randomId(12));
    for (const id of ids.slice(0, 500)) expect(id).toMatch(/^[a-z0-9]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect(newId('hold')).toMatch(/^hold_[a-z0-9]{16}$/);
  });

  it('uses every character equally often (chi-square under its one-in-a-million critical value)', () => {
    const counts = new Map<string, number>();
    const n = 360_000;
    for (let i = 0; i < n / 20; i++) for (const c of randomId(20)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(36);
    const expected = n / 36;
    const chi = [...counts.values()].reduce((sum, c) => sum + (c - expected) ** 2 / expected, 0);
    // 35 degrees of freedom: p = 1e-6 at about 90. The biased byte % 36 mapping scores ~700.
    expect(chi).toBeLessThan(90);
  });
});
