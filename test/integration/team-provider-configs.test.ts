// Team mode's providers against a real PostgreSQL: two stores opened on one database are two
// instances, each with its ProviderConfigs and its DatabaseSecretStore. What one instance writes
// (rows, and keys sealed with MGW_SECRET_KEY) the other reads, through the change feed.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { systemClock } from '../../electron/core/clock.js';
import type { ProviderInfo } from '../../shared/studio-contract.js';
import { ProviderConfigs } from '../../electron/core/providers/provider-configs.js';
import { DatabaseSecretStore } from '../../electron/core/secrets/sealed-secrets.js';
import type { Store } from '../../electron/core/store/database.js';
import { openPostgresStore } from '../../electron/core/store/postgres-store.js';
import { sharedPostgres } from '../helpers/postgres.js';

const TEAM_KEY = 'team-secret-key-shared-by-every-instance';
const NO_SECRET_KEY_MESSAGE =
  'Team mode keeps provider keys sealed with MGW_SECRET_KEY, which is not set for this instance: set the same MGW_SECRET_KEY on every instance, or name an environment variable with --api-key-env.';

interface Instance {
  store: Store;
  secrets: DatabaseSecretStore;
  configs: ProviderConfigs;
}

let url: string;
let stores: Store[];

beforeEach(async () => {
  url = await (await sharedPostgres()).createDatabase('team_providers');
  stores = [];
});
afterEach(async () => {
  for (const store of stores) await store.close();
});

async function instance(secretKey: string | null = TEAM_KEY): Promise<Instance> {
  const store = await openPostgresStore(url);
  stores.push(store);
  const secrets = new DatabaseSecretStore(store, secretKey);
  const configs = new ProviderConfigs(store, secrets, systemClock);
  await configs.init();
  return { store, secrets, configs };
}

/** Reads until `ok` (another instance's change arrives through LISTEN/NOTIFY), for at most `ms`. */
async function within<T>(ms: number, read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  const deadline = performance.now() + ms;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (performance.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const listed = (configs: ProviderConfigs, id: string) => async (): Promise<ProviderInfo | undefined> => (await configs.list()).find((p) => p.id === id);

it('a provider added on one instance is listed by the other, its stored key readable there within 1 s', async () => {
  const [a, b] = [await instance(), await instance()];
  expect(await b.configs.list()).toEqual([]);

  const added = await a.configs.add({ id: 'up', kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1/', apiKey: 'sk-team-one' });
  expect(added).toMatchObject({ id: 'up', base_url: 'http://127.0.0.1:9/v1', key_source: 'stored', key_problem: null });

  const started = performance.now();
  const seen = await within(1000, listed(b.configs, 'up'), (info) => info !== undefined);
  expect(performance.now() - started).toBeLessThan(1000);
  expect(seen).toMatchObject({ id: 'up', kind: 'openai', base_url: 'http://127.0.0.1:9/v1', key_source: 'stored', key_problem: null });
  const row = (await b.configs.row('up'))!;
  expect(b.configs.readKey(row)).toEqual({ key: 'sk-team-one', problem: null });
  // The synchronous path (log redaction) reads the same snapshot.
  expect(b.configs.allKeys()).toEqual(['sk-team-one']);

  // The database holds the key sealed, never as given.
  const sealed = await b.store.db.selectFrom('secrets').select(['name', 'sealed']).execute();
  expect(sealed).toHaveLength(1);
  expect(sealed[0]!.name).toBe('provider:up');
  expect(sealed[0]!.sealed).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  expect(sealed[0]!.sealed).not.toContain('sk-team-one');
  expect(Buffer.from(sealed[0]!.sealed.split('.')[3]!, 'base64url').toString('latin1')).not.toContain('sk-team-one');
});

it('a key changed on one instance is the key the other reads within 1 s, and a move to an env variable drops it', async () => {
  const [a, b] = [await instance(), await instance()];
  await a.configs.add({ id: 'up', kind: 'fal', apiKey: 'fal-first' });
  await within(1000, listed(b.configs, 'up'), (info) => info !== undefined);
  const before = (await b.configs.row('up'))!;
  expect(b.configs.readKey(before).key).toBe('fal-first');

  await a.configs.update({ id: 'up', apiKey: 'fal-second' });
  const key = async () => {
    const row = await b.configs.row('up');
    return row ? b.configs.readKey(row).key : null;
  };
  expect(await within(1000, key, (k) => k === 'fal-second')).toBe('fal-second');
  // The registry rebuilds an adapter when updated_at moves.
  expect((await b.configs.row('up'))!.updated_at).toBeGreaterThan(before.updated_at);
  expect(b.configs.allKeys()).toEqual(['fal-second']);

  await a.configs.update({ id: 'up', apiKeyEnv: 'MGW_TEAM_TEST_UNSET_VARIABLE' });
  const moved = await within(1000, listed(b.configs, 'up'), (info) => info?.key_source === 'env:MGW_TEAM_TEST_UNSET_VARIABLE');
  expect(moved).toMatchObject({ key_source: 'env:MGW_TEAM_TEST_UNSET_VARIABLE', key_problem: expect.stringMatching(/MGW_TEAM_TEST_UNSET_VARIABLE, which is not set/) });
  expect(await b.store.db.selectFrom('secrets').selectAll().execute()).toEqual([]);
});

it('an instance given another MGW_SECRET_KEY, or none, reports the key as a problem in its listing (never an exception)', async () => {
  const a = await instance();
  await a.configs.add({ id: 'up', kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-team-one' });

  for (const secretKey of ['a-different-team-key', null]) {
    const other = await instance(secretKey);
    const [info] = await other.configs.list();
    expect(info).toMatchObject({ id: 'up', key_source: 'stored', key_problem: expect.stringContaining('The stored key of provider up cannot be read') });
    expect(info!.key_problem).toMatch(/every instance must be given the same MGW_SECRET_KEY/);
    expect(info!.key_problem).not.toContain('sk-team-one');
    const row = (await other.configs.row('up'))!;
    expect(other.configs.readKey(row).key).toBeNull();
    expect(() => other.configs.apiKey(row)).toThrow(expect.objectContaining({ code: 'upstream_unavailable' }));
    expect(other.configs.allKeys()).toEqual([]);
  }
});

it('a sealed key altered in the database is reported as a problem by every instance', async () => {
  const [a, b] = [await instance(), await instance()];
  await a.configs.add({ id: 'up', kind: 'fal', apiKey: 'fal-key' });
  const { sealed } = await a.store.db.selectFrom('secrets').select('sealed').where('name', '=', 'provider:up').executeTakeFirstOrThrow();
  const [version, iv, tag, ciphertext] = sealed.split('.');
  const flipped = Buffer.from(ciphertext!, 'base64url');
  flipped[0] = flipped[0]! ^ 1;
  await a.store.db.updateTable('secrets').set({ sealed: [version, iv, tag, flipped.toString('base64url')].join('.') }).execute();

  const info = await within(1000, listed(b.configs, 'up'), (p) => p?.key_problem != null);
  expect(info?.key_problem).toMatch(/does not decrypt under this instance's MGW_SECRET_KEY/);
});

it('a stored key is refused without MGW_SECRET_KEY (400, nothing written); a key named by an env variable needs none', async () => {
  const [keyless, other] = [await instance(null), await instance()];
  const refused = await keyless.configs.add({ id: 'up', kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-team-one' }).catch((error: unknown) => error);
  expect(refused).toMatchObject({ code: 'invalid_request', status: 400, param: 'api_key', message: NO_SECRET_KEY_MESSAGE });
  expect(await keyless.configs.row('up')).toBeUndefined();
  expect(await other.configs.list()).toEqual([]);
  expect(await other.store.db.selectFrom('secrets').selectAll().execute()).toEqual([]);

  await keyless.configs.add({ id: 'up', kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKeyEnv: 'OPENAI_API_KEY' });
  expect(await within(1000, listed(other.configs, 'up'), (p) => p !== undefined)).toMatchObject({ key_source: 'env:OPENAI_API_KEY' });
  // Re-keying it with a stored key is refused the same way, and leaves it as it was.
  await expect(keyless.configs.update({ id: 'up', apiKey: 'sk-new' })).rejects.toMatchObject({ status: 400, param: 'api_key', message: NO_SECRET_KEY_MESSAGE });
  expect((await keyless.configs.row('up'))!.api_key_env).toBe('OPENAI_API_KEY');
});

it('of two adds of one id at once on two instances, exactly one succeeds and the other is told the id exists', async () => {
  const [a, b] = [await instance(), await instance()];
  for (let round = 0; round < 5; round++) {
    const id = `dup-${round}`;
    const outcomes = await Promise.allSettled([
      a.configs.add({ id, kind: 'openai', baseUrl: 'http://127.0.0.1:1/v1', apiKey: 'sk-from-a' }),
      b.configs.add({ id, kind: 'openai', baseUrl: 'http://127.0.0.1:2/v1', apiKey: 'sk-from-b' }),
    ]);
    const won = outcomes.findIndex((o) => o.status === 'fulfilled');
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const lost = outcomes[1 - won] as PromiseRejectedResult;
    expect(lost.reason).toMatchObject({
      code: 'invalid_request',
      param: 'id',
      message: `Provider ${id} exists already; pick another id, change it (mgw providers update --id ${id}), or remove it first (mgw providers remove ${id}).`,
    });
    // The loser neither replaced the row nor the winner's key.
    for (const { configs } of [a, b]) {
      const row = (await within(1000, () => configs.row(id), (r) => r !== undefined))!;
      expect(row.base_url).toBe(won === 0 ? 'http://127.0.0.1:1/v1' : 'http://127.0.0.1:2/v1');
      expect(configs.apiKey(row)).toBe(won === 0 ? 'sk-from-a' : 'sk-from-b');
    }
  }
});

it('a provider a model route points at is not removed (from either instance); once the route is gone it is, with its key', async () => {
  const [a, b] = [await instance(), await instance()];
  await a.configs.add({ id: 'up', kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-team-one' });
  await a.store.db.insertInto('models').values({ id: 'm-one', record_json: '{}', source: 'owner', updated_at: Date.now() }).execute();
  await a.store.db.insertInto('model_routes').values({ model_id: 'm-one', position: 0, provider_id: 'up', upstream_model: 'gpt-image-1', workflow_json: null }).execute();

  const stillServes = { code: 'invalid_request', param: 'id', message: 'Provider up still serves m-one; remove those models first (mgw models remove).' };
  await expect(a.configs.remove('up')).rejects.toMatchObject(stillServes);
  await expect(b.configs.remove('up')).rejects.toMatchObject(stillServes);
  expect(await a.configs.row('up')).toBeDefined();
  expect(await a.store.db.selectFrom('secrets').select('name').execute()).toEqual([{ name: 'provider:up' }]);

  await a.store.db.deleteFrom('model_routes').execute();
  await b.configs.remove('up');
  expect(await b.configs.row('up')).toBeUndefined();
  expect(await within(1000, () => a.configs.row('up'), (row) => row === undefined)).toBeUndefined();
  expect(a.configs.allKeys()).toEqual([]);
  expect(await a.store.db.selectFrom('secrets').selectAll().execute()).toEqual([]);
  await expect(a.configs.remove('up')).rejects.toMatchObject({ code: 'not_found', message: 'No provider up.' });
});

it('the listing is in id order and an update of a provider gone meanwhile is not_found', async () => {
  const [a, b] = [await instance(), await instance()];
  for (const id of ['b-2', 'a1', 'b', 'a-1']) await a.configs.add({ id, kind: 'fal', apiKey: `fal-${id}` });
  const ids = await within(1000, async () => (await b.configs.list()).map((p) => p.id), (list) => list.length === 4);
  // Byte order, as SQLite's: whatever the server's collation.
  expect(ids).toEqual(['a-1', 'a1', 'b', 'b-2']);

  // Removed on `b` right before `a` updates it (whether or not `a` heard of it yet): no key is
  // stored again for a provider that is gone.
  await b.configs.remove('b');
  await expect(a.configs.update({ id: 'b', apiKey: 'fal-again' })).rejects.toMatchObject({ code: 'not_found', message: 'No provider b.' });
  expect(await b.store.db.selectFrom('secrets').select('name').where('name', '=', 'provider:b').execute()).toEqual([]);
});
