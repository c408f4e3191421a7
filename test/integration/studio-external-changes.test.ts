// Changes made by another process (the mgw CLI on the same data dir) reach an open studio as
// push events, without the studio asking: a price change (catalog.changed) and a top-up of the
// studio's own account (billing.changed).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StudioEvent, StudioEvents } from '../../shared/studio-contract.js';
import { createStudio, type Studio } from '../../electron/core/studio/studio.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { mgw } from '../helpers/cli.js';
import { waitFor } from '../helpers/stub-video-provider.js';

let t: TestGateway;
let studio: Studio;
const events: { event: StudioEvent; payload: unknown }[] = [];
let off: () => void;
/**
 * The studio's change watcher reads data_version once per poll while someone listens, and
 * compares it with the last read in the same (synchronous) timer callback. Nothing else in the
 * studio reads it (the core's caches hold their own reference to the store), so the reads through
 * the gateway the studio is given count the watcher's polls, and a waiter resolved on the n-th
 * read runs after that poll's comparison (and any push it made) is done.
 */
let watcherPolls = 0;
const pollWaiters: { at: number; resolve: () => void }[] = [];
const watcherPolled = (n: number) => new Promise<void>((resolve) => pollWaiters.push({ at: watcherPolls + n, resolve }));

beforeAll(async () => {
  t = await startTestGateway({ background: false });
  const store = t.gateway.store;
  const countedStore = new Proxy(store, {
    get: (target, name) =>
      name === 'dataVersion'
        ? () => {
            const version = target.dataVersion();
            watcherPolls += 1;
            for (const waiter of pollWaiters.filter((w) => w.at <= watcherPolls)) {
              pollWaiters.splice(pollWaiters.indexOf(waiter), 1);
              waiter.resolve();
            }
            return version;
          }
        : Reflect.get(target, name, target),
  });
  const gateway = new Proxy(t.gateway, { get: (target, name) => (name === 'store' ? countedStore : Reflect.get(target, name, target)) });
  studio = await createStudio(gateway, { version: 'test', externalChangeMs: 50 });
  off = studio.events.subscribe((event, payload) => events.push({ event, payload }));
  await studio.dispatch('catalog.list', {}); // the studio has shown the catalog once
});
afterAll(async () => {
  off();
  studio.dispose();
  await t.close();
});

const cli = (...args: string[]) => {
  const result = mgw([...args, '--data-dir', t.dataDir]);
  expect(result.status, result.stderr).toBe(0);
};
const seen = (event: StudioEvent) => events.filter((e) => e.event === event);

describe('changes from another process', () => {
  it('pushes nothing while nothing changed', async () => {
    // Three polls from now: at least two compared data_version with a read made while listened.
    await watcherPolled(3);
    expect(events).toEqual([]);
  });

  it('a CLI price change pushes catalog.changed, and catalog.list then has the new price', async () => {
    cli('models', 'put', 'local-image', '--json', '{"pricing":{"output":9}}');
    await waitFor(async () => seen('catalog.changed').length > 0 || undefined, 5_000);
    const { models } = (await studio.dispatch('catalog.list', {})) as { models: { record: { id: string; pricing: { output?: number } } }[] };
    expect(models.find((m) => m.record.id === 'local-image')?.record.pricing.output).toBe(9);
  });

  it("a CLI top-up of the studio's own key pushes billing.changed for its account", async () => {
    const before = events.length;
    const { owner_key_id } = (await studio.dispatch('system.info', {})) as { owner_key_id: string };
    const balance = async () => ((await studio.dispatch('billing.summary', {})) as { balance: { balance_usd: string } }).balance.balance_usd;
    const was = Number(await balance());
    cli('balance', 'top-up', owner_key_id, '1');
    const pushed = await waitFor(async () => events.slice(before).find((e) => e.event === 'billing.changed'), 5_000);
    expect(pushed.payload).toEqual({ account_id: studio.context.owner.accountId } satisfies StudioEvents['billing.changed']);
    expect(Number(await balance())).toBeCloseTo(was + 1, 8);
  });
});
