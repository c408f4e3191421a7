// The circuit breaker and the failover loop on a clock the test moves: 3 failures in a row skip
// a provider for its pause; then exactly one request is its trial (others keep skipping it until
// the trial ends); a failed trial skips it again, a good one closes it; skipped routes are tried
// last, in order; a 4xx is an answer; what was seen is written where the CLI reads it.
import { rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ModelRoute } from '../../electron/core/catalog/model-routes.js';
import { GatewayError } from '../../electron/core/errors.js';
import { ProviderUnreached } from '../../electron/core/providers/upstream/upstream-errors.js';
import { Failover, newTrace } from '../../electron/core/routing/failover.js';
import { readHealth, RouteHealth } from '../../electron/core/routing/route-health.js';
import { openStore, type Store } from '../../electron/core/store/database.js';
import { silentLogger } from '../../electron/core/logger.js';
import { tempDir } from '../helpers/gateway.js';

let now = 1_000_000;
const clock = { now: () => now };
let dir: string;
let store: Store;
let health: RouteHealth;

beforeEach(async () => {
  dir = tempDir('mgw-health-');
  store = await openStore(dir);
  health = new RouteHealth(store, clock, silentLogger, { failures: 3, skipSeconds: 30 });
});
afterEach(async () => {
  await health.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const route = (providerId: string): ModelRoute => ({ providerId, upstreamModel: 'm', workflow: null });
const fail = (id: string) => health.admit(id)!.failed('could not connect');
const skipped = (id: string) => health.report().find((h) => h.provider === id)?.state === 'skipped';

describe('the breaker of one provider', () => {
  it('counts reported failures only: an admission left unreported changes nothing', () => {
    fail('a');
    fail('a');
    expect(health.admit('a')).not.toBeNull();
    expect(health.report()).toMatchObject([{ provider: 'a', state: 'failing', consecutive_failures: 2 }]);
    // The admission above was never reported: leaving it open must not count.
    fail('a');
    expect(health.report()).toMatchObject([{ provider: 'a', state: 'skipped', consecutive_failures: 3 }]);
  });

  it('opens on the third failure in a row, and a success in between starts the count again', () => {
    fail('a');
    fail('a');
    health.admit('a')!.succeeded(12);
    fail('a');
    fail('a');
    expect(skipped('a')).toBe(false);
    fail('a');
    expect(skipped('a')).toBe(true);
    expect(health.admit('a')).toBeNull();
    expect(health.report()[0]).toMatchObject({ state: 'skipped', skipped_until: now + 30_000, last_error: 'could not connect', latency_ms: 12 });
  });

  it('after the pause: one trial; others skip it while it is out; a failed trial skips it 30 s more', () => {
    for (let i = 0; i < 3; i++) fail('a');
    now += 30_000;
    const trial = health.admit('a');
    expect(trial).not.toBeNull();
    expect(health.admit('a')).toBeNull();
    trial!.failed('unavailable (503)');
    expect(health.report()[0]).toMatchObject({ state: 'skipped', skipped_until: now + 30_000, consecutive_failures: 4 });
    now += 29_999;
    expect(health.admit('a')).toBeNull();
    now += 1;
    health.admit('a')!.succeeded(40);
    expect(health.report()[0]).toMatchObject({ state: 'healthy', consecutive_failures: 0, skipped_until: null });
    expect(health.admit('a')).not.toBeNull();
  });

  it('a trial the caller abandoned (the client left) frees the trial for the next request', () => {
    for (let i = 0; i < 3; i++) fail('a');
    now += 30_000;
    health.admit('a')!.abandoned();
    expect(health.admit('a')).not.toBeNull();
  });

  it('writes what it saw where another process (the CLI) reads it', async () => {
    for (let i = 0; i < 3; i++) fail('a');
    health.admit('b')!.succeeded(250);
    await health.close();
    const stored = await readHealth(store, now);
    expect(stored.sort((x, y) => x.provider.localeCompare(y.provider))).toMatchObject([
      { provider: 'a', state: 'skipped', consecutive_failures: 3, last_error: 'could not connect' },
      { provider: 'b', state: 'healthy', latency_ms: 250 },
    ]);
    // Once the pause is over, it reads as failing (its trial is due), not as skipped.
    expect((await readHealth(store, now + 30_000)).find((h) => h.provider === 'a')!.state).toBe('failing');
  });

  it('writes a change of state without waiting out the latency throttle', async () => {
    fail('a');
    // The next turn, not a second later: `mgw providers list` right after a failed request sees it.
    await new Promise((resolve) => setImmediate(resolve));
    await expect.poll(async () => (await readHealth(store, now)).find((h) => h.provider === 'a')?.consecutive_failures, { timeout: 500, interval: 20 }).toBe(1);
  });

  it('a restart takes up what was written: a skipped provider stays skipped, every view agrees', async () => {
    for (let i = 0; i < 3; i++) fail('a');
    health.admit('b')!.succeeded(40);
    await health.close();
    const restarted = new RouteHealth(store, clock, silentLogger, { failures: 3, skipSeconds: 30 });
    await restarted.load();
    try {
      expect(restarted.admit('a')).toBeNull();
      expect(restarted.report().sort((x, y) => x.provider.localeCompare(y.provider))).toEqual((await readHealth(store, now)).sort((x, y) => x.provider.localeCompare(y.provider)));
      now += 30_000;
      expect(restarted.admit('a')).not.toBeNull(); // its trial, after the pause
    } finally {
      await restarted.close();
    }
  });
});

describe('the failover loop', () => {
  const unreachable = () => new ProviderUnreached('could not connect');

  it('moves on only after a failure before any work; a 4xx is answered at once', async () => {
    const failover = new Failover(health, clock);
    const asked: string[] = [];
    const trace = newTrace();
    const value = await failover.run(
      [route('a'), route('b')],
      async ({ route: r }) => {
        asked.push(r.providerId);
        if (r.providerId === 'a') throw unreachable();
        return 'image';
      },
      { trace },
    );
    expect(value).toBe('image');
    expect(asked).toEqual(['a', 'b']);
    expect(trace).toEqual({ served: 'b', failed: [{ provider: 'a', reason: 'could not connect' }] });

    const refused = new GatewayError('upstream_bad_request', 'The upstream provider rejected the request.');
    asked.length = 0;
    await expect(failover.run([route('a'), route('b')], async ({ route: r }) => (asked.push(r.providerId), Promise.reject(refused)))).rejects.toBe(refused);
    expect(asked).toEqual(['a']);
  });

  it('a job the upstream accepted is never sent on, whatever the failure after', async () => {
    const failover = new Failover(health, clock);
    const asked: string[] = [];
    const after = unreachable();
    await expect(
      failover.run([route('a'), route('b')], async ({ route: r, accepted }) => {
        asked.push(r.providerId);
        accepted();
        throw after;
      }),
    ).rejects.toBe(after);
    expect(asked).toEqual(['a']);
  });

  it('tries skipped routes last, in order, when the others failed; the last failure is answered', async () => {
    for (let i = 0; i < 3; i++) fail('a');
    const failover = new Failover(health, clock);
    const asked: string[] = [];
    const last = new ProviderUnreached('timed out connecting');
    await expect(
      failover.run([route('a'), route('b'), route('c')], async ({ route: r }) => {
        asked.push(r.providerId);
        throw r.providerId === 'a' ? last : unreachable();
      }),
    ).rejects.toBe(last);
    expect(asked).toEqual(['b', 'c', 'a']);
  });

  it('gives a later route only what is left of the budget, and the first its own timeout', async () => {
    const failover = new Failover(health, clock);
    const given: (number | undefined)[] = [];
    await failover.run(
      [route('a'), route('b')],
      async ({ route: r, timeoutMs }) => {
        given.push(timeoutMs);
        now += 700;
        if (r.providerId === 'a') throw unreachable();
        return 'ok';
      },
      { budgetMs: 2_000 },
    );
    expect(given).toEqual([undefined, 1_300]);
  });

  it('a first route skipped by its breaker gives the next one no more than the budget', async () => {
    for (let i = 0; i < 3; i++) fail('a');
    const failover = new Failover(health, clock);
    const given: [string, number | undefined][] = [];
    await expect(
      failover.run(
        [route('a'), route('b')],
        async ({ route: r, timeoutMs }) => {
          given.push([r.providerId, timeoutMs]);
          now += 700;
          throw unreachable();
        },
        { budgetMs: 2_000 },
      ),
    ).rejects.toBeInstanceOf(ProviderUnreached);
    // b is tried first, within the budget; then the skipped a, with what is left.
    expect(given).toEqual([['b', 2_000], ['a', 1_300]]);
  });
});
