// Provider records against a real SQLite file and secrets file: adds of one id that race.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { systemClock } from '../../electron/core/clock.js';
import { ProviderConfigs } from '../../electron/core/providers/provider-configs.js';
import { FileSecretStore } from '../../electron/core/secret-store.js';
import { openStore, type Store } from '../../electron/core/store/database.js';

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

const configsOn = async () => {
  const store = await openStore(dir);
  stores.push(store);
  return new ProviderConfigs(store, new FileSecretStore(dir), systemClock);
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

it('a refused add leaves the existing provider and its key as they were', async () => {
  const configs = await configsOn();
  await configs.add({ id: 'up', kind: 'fal', apiKey: 'fal-key' });
  await expect(configs.add({ id: 'up', kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'other' })).rejects.toMatchObject({ param: 'id' });
  const row = (await configs.row('up'))!;
  expect(row.kind).toBe('fal');
  expect(configs.apiKey(row)).toBe('fal-key');
});
