// The limiter and access check on the request path (window admission + tier/access policy),
// per request in microseconds, and the memory of 100,000 active keys in the limiter. Measured
// in a child process started with --expose-gc so the heap figure is clean.
import { assertModelAccess } from '../electron/core/access/access-policy.js';
import { DEFAULT_LIMITS } from '../electron/core/access/limits.js';
import type { Principal } from '../electron/core/access/principal.js';
import { RateLimiter } from '../electron/core/access/rate-limiter.js';
import { LOCAL_IMAGE_MODELS } from '../electron/core/providers/local/local-models.js';

export interface AccessBenchResult {
  per_request_us: number;
  target_us: number;
  keys: number;
  heap_mb: number;
  target_mb: number;
}

export function benchAccessCheck(): AccessBenchResult {
  const gc = (globalThis as { gc?: () => void }).gc;
  const record = LOCAL_IMAGE_MODELS[0]!;
  const limiter = new RateLimiter();
  const keys = 100_000;
  const principals: Principal[] = Array.from({ length: keys }, (_, i) => ({
    keyId: `key_${i.toString(36).padStart(12, '0')}`,
    accountId: `acct_${i}`,
    access: i % 2 === 0 ? 'free' : 'balance',
  }));
  gc?.();
  const before = process.memoryUsage().heapUsed;
  let now = Date.parse('2026-11-21T00:00:00Z');
  for (const principal of principals) limiter.admit(principal.keyId, DEFAULT_LIMITS.requests[principal.access], now);
  gc?.();
  const heapMb = (process.memoryUsage().heapUsed - before) / 1024 / 1024;

  // Per request: admission (every window) plus the tier / usage-based check, over all keys.
  const rounds = 1_000_000;
  let admitted = 0;
  const start = process.hrtime.bigint();
  for (let i = 0; i < rounds; i++) {
    const principal = principals[i % keys]!;
    now += 1_000; // a fresh second, so admission does the full work and succeeds
    if (limiter.admit(principal.keyId, DEFAULT_LIMITS.requests[principal.access], now).ok) admitted++;
    assertModelAccess(principal, record);
  }
  const perRequestUs = Number(process.hrtime.bigint() - start) / 1000 / rounds;
  if (admitted === 0) throw new Error('nothing admitted');
  return { per_request_us: Number(perRequestUs.toFixed(3)), target_us: 5, keys, heap_mb: Number(heapMb.toFixed(1)), target_mb: 50 };
}
