// Provider records against a real SQLite file and secrets file: adds of one id that race, and
// changes that another process makes in the middle of an update or a remove.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../electron/core/clock.js';
import { ProviderConfigs } from '../../electron/core/providers/provider-configs.js';
import { FileSecretStore, type SecretStore } from '../../electron/core/secret-store.js';
import { openStore, type Store } from '../../electron/core/store/database.js';
import { isBusy } from '../../electron/core/store/lock-wait.js';
import { mgw } from '../helpers/cli.js';

let dir: string;
let stores: Store[];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mgw-provider-configs-'));
  stores = [];
});
afterEach(async () => {
  for (const store of stores) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const configsOn = async (secrets: SecretStore = new FileSecretStore(dir)) => {
  const store = await openStore(dir);
  stores.push(store);
  return new ProviderConfigs(store, secrets, systemClock);
};

it('of two adds of one id at once, one wins and its key is the one kept (two connections, as two processes)', async () => {
  const [a, b] = [await configsOn(), await configsOn()];
  const outcomes = await Promise.allSettled([
    a.add({ id: 'up', kind: 'openai', baseUrl: 'http://127.0.0.1:1/v1', apiKey: 'sk-first' }),
    b.add({ id: 'up', kind: 'openai', baseUrl: 'http://127.0.0.1:2/v1', apiKey: 'sk-second' }),
  ]);
  const won = outcomes.findIndex((o) => o.status === 'fulfilled');
  expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
  const lost = outcomes[1 - won] as PromiseRejectedResult;
  expect(lost.reason).toMatchObject({ code: 'invalid_request', param: 'id' });
  const row = (await a.row('up'))!;
  expect(row.base_url).toBe(won === 0 ? 'http://127.0.0.1:1/v1' : 'http://127.0.0.1:2/v1');
  expect(a.apiKey(row)).toBe(won === 0 ? 'sk-first' : 'sk-second');
});

it('a provider id that does not start with a letter or digit ("-x") is refused in words that say so', async () => {
  const configs = await configsOn();
  const refused = await configs.add({ id: '-x', kind: 'fal', apiKey: 'fal-key' }).catch((error: unknown) => error);
  expect(refused).toMatchObject({ code: 'invalid_request', param: 'id' });
  expect((refused as Error).message).toMatch(/starting with a (lowercase )?letter or digit/);
  expect(await configs.row('-x')).toBeUndefined();
});

it('a refused add leaves the existing provider and its key as they were', async () => {
  const configs = await configsOn();
  await configs.add({ id: 'up', kind: 'fal', apiKey: 'fal-key' });
  await expect(configs.add({ id: 'up', kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'other' })).rejects.toMatchObject({ param: 'id' });
  const row = (await configs.row('up'))!;
  expect(row.kind).toBe('fal');
  expect(configs.apiKey(row)).toBe('fal-key');
});

/**
 * Another process's command, run to completion at one exact point of this process's write of a
 * secret (just before it, or just after it): the interleaving is forced, not hoped for. It runs
 * only if the database's write lock is free at that point; when this process holds it (the
 * secret is written inside the change's transaction), the other process would wait for it, so
 * the command is left out and the call answers false.
 */
function interrupting(when: 'before' | 'after', probe: Store, args: string[]) {
  const file = new FileSecretStore(dir);
  const ran: boolean[] = [];
  let armed = false;
  const interrupt = () => {
    if (!armed) return;
    armed = false;
    try {
      probe.raw.exec('begin immediate');
    } catch (error) {
      if (!isBusy(error)) throw error;
      ran.push(false);
      return;
    }
    probe.raw.exec('rollback');
    const other = mgw([...args, '--data-dir', dir]);
    expect(other.stderr).toBe('');
    ran.push(true);
  };
  const around = (write: () => void) => {
    if (when === 'before') interrupt();
    write();
    if (when === 'after') interrupt();
  };
  const secrets: SecretStore = {
    get: (name) => file.get(name),
    set: (name, value) => around(() => file.set(name, value)),
    delete: (name) => around(() => file.delete(name)),
  };
  return { secrets, arm: () => (armed = true), ran };
}

/** The provider's row and its secret: a row that reads its key from the secret store has one there, and only then. */
async function rowAndSecret(configs: ProviderConfigs, id: string) {
  const row = await configs.row(id);
  const file = join(dir, 'secrets.json');
  const secret = existsSync(file) ? ((JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>)[`provider:${id}`] ?? null) : null;
  return { row: row ? { api_key_env: row.api_key_env } : null, secret };
}

describe('a change another process makes in the middle of one (forced at the secret write)', () => {
  it('update (a new stored key) vs update (a key moved to an environment variable): one after the other, row and secret agreeing', async () => {
    const probe = await openStore(dir);
    stores.push(probe);
    const other = interrupting('after', probe, ['providers', 'update', '--id', 'up', '--api-key-env', 'MGW_MOVED_KEY']);
    const configs = await configsOn(other.secrets);
    await configs.add({ id: 'up', kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-old' });
    other.arm();
    await configs.update({ id: 'up', apiKey: 'sk-new' });
    expect(await rowAndSecret(configs, 'up')).toEqual({ row: { api_key_env: null }, secret: 'sk-new' });
    // The other update could not run between this update's secret and its row: it would wait.
    expect(other.ran).toEqual([false]);
    // Run now, as it would once the lock is free, it wins whole.
    expect(mgw(['providers', 'update', '--id', 'up', '--api-key-env', 'MGW_MOVED_KEY', '--data-dir', dir]).status).toBe(0);
    expect(await rowAndSecret(configs, 'up')).toEqual({ row: { api_key_env: 'MGW_MOVED_KEY' }, secret: null });
  }, 30_000);

  it('update vs remove: the update finds the provider gone or changes it whole, never keys a removed provider', async () => {
    const probe = await openStore(dir);
    stores.push(probe);
    const other = interrupting('before', probe, ['providers', 'remove', 'up']);
    const configs = await configsOn(other.secrets);
    await configs.add({ id: 'up', kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-old' });
    other.arm();
    const updated = await configs.update({ id: 'up', apiKey: 'sk-new' }).catch((error: unknown) => error);
    expect(await rowAndSecret(configs, 'up')).toEqual({ row: { api_key_env: null }, secret: 'sk-new' });
    expect(updated).toMatchObject({ id: 'up', key_source: 'stored', key_problem: null });
    expect(other.ran).toEqual([false]);
    expect(mgw(['providers', 'remove', 'up', '--data-dir', dir]).status).toBe(0);
    expect(await rowAndSecret(configs, 'up')).toEqual({ row: null, secret: null });
  }, 30_000);

  it('remove vs add of the same id: the add comes after, whole, its new key kept', async () => {
    const probe = await openStore(dir);
    stores.push(probe);
    const readd = ['providers', 'add', '--kind', 'openai', '--id', 'up', '--base-url', 'http://127.0.0.1:9/v1', '--api-key', 'sk-readded'];
    const other = interrupting('before', probe, readd);
    const configs = await configsOn(other.secrets);
    await configs.add({ id: 'up', kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-old' });
    other.arm();
    await configs.remove('up');
    expect(await rowAndSecret(configs, 'up')).toEqual({ row: null, secret: null });
    expect(other.ran).toEqual([false]);
    expect(mgw([...readd, '--data-dir', dir]).status).toBe(0);
    expect(await rowAndSecret(configs, 'up')).toEqual({ row: { api_key_env: null }, secret: 'sk-readded' });
  }, 30_000);
});
