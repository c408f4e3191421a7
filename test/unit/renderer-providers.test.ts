import { describe, expect, it } from 'vitest';
import type { ProviderInfo } from '../../shared/studio-contract.js';
import { createProvidersStore } from '../../renderer/src/stores/providers-store.js';
import { connectStudioEvents, createStudioStores } from '../../renderer/src/stores/studio-stores.js';
import { StudioError } from '../../renderer/src/transport/studio-error.js';
import { createFakeClient, flush } from '../../renderer/test-support/fake-client.js';

const provider = (id: string, overrides: Partial<ProviderInfo> = {}): ProviderInfo => ({
  id,
  kind: 'openai',
  base_url: 'http://127.0.0.1:9999/v1',
  key_source: 'stored',
  key_problem: null,
  created_at: '2026-11-20T10:00:00.000Z',
  ...overrides,
});

function setup(initial: ProviderInfo[] = []) {
  const client = createFakeClient();
  let list = [...initial];
  client.handle('providers.list', () => ({ providers: list, health: [] }));
  const store = createProvidersStore(client);
  return { client, store, setList: (next: ProviderInfo[]) => (list = next) };
}

describe('providers store', () => {
  it('keeps each provider\'s health by id, as providers.list reports it', async () => {
    const client = createFakeClient();
    const failing = { provider: 'emu', state: 'skipped' as const, skipped_until: 1_800_000_000_000, consecutive_failures: 3, last_error: 'unavailable (503)', last_error_at: 1, latency_ms: 420 };
    client.handle('providers.list', () => ({ providers: [provider('emu'), provider('other')], health: [failing] }));
    const store = createProvidersStore(client);
    await store.getState().load();
    expect(store.getState().health).toEqual({ emu: failing });
  });

  it('lists the providers, and shows a failed list as "code: message"', async () => {
    const { client, store } = setup([provider('fal', { kind: 'fal', base_url: 'https://queue.fal.run', key_source: 'env:FAL_KEY' }), provider('openai')]);
    expect(store.getState().loaded).toBe(false);
    await store.getState().load();
    expect(store.getState()).toMatchObject({ loaded: true, error: null });
    expect(store.getState().providers.map((p) => [p.id, p.key_source])).toEqual([
      ['fal', 'env:FAL_KEY'],
      ['openai', 'stored'],
    ]);

    client.handle('providers.list', () => {
      throw new StudioError('internal_error', 'The store is locked.');
    });
    await store.getState().load();
    expect(store.getState().error).toBe('internal_error: The store is locked.');
    expect(store.getState().providers).toHaveLength(2);
  });

  it('sends the key with providers.add, keeps it nowhere in its state, and refreshes the list', async () => {
    const key = 'sk-emulator-secret-1234';
    const { client, store, setList } = setup();
    await store.getState().load();
    client.handle('providers.add', (input) => {
      const added = provider(input.id, { base_url: input.base_url ?? '', key_source: input.api_key ? 'stored' : 'none' });
      setList([added]);
      return { provider: added };
    });

    const ok = await store.getState().add({ id: 'emu', kind: 'openai', base_url: 'http://127.0.0.1:9999/v1', api_key: key });
    expect(ok).toBe(true);
    expect(client.calls.find((c) => c.method === 'providers.add')?.input).toEqual({
      id: 'emu',
      kind: 'openai',
      base_url: 'http://127.0.0.1:9999/v1',
      api_key: key,
    });
    expect(client.countCalls('providers.list')).toBe(2);
    expect(store.getState().providers).toEqual([provider('emu')]);
    expect(store.getState()).toMatchObject({ adding: false, addError: null });
    expect(JSON.stringify(store.getState())).not.toContain(key);
  });

  it('shows a refused add as "code: message" and still keeps no key', async () => {
    const key = 'sk-refused-5678';
    const { client, store } = setup();
    client.handle('providers.add', () => {
      throw new StudioError('invalid_request', 'A provider id is 1-40 lowercase letters, digits or dashes, starting with a letter or digit, and not "local".', 'id', 400);
    });
    const ok = await store.getState().add({ id: 'Local!', kind: 'openai', base_url: 'https://api.openai.com/v1', api_key: key });
    expect(ok).toBe(false);
    expect(store.getState().addError).toBe('invalid_request: A provider id is 1-40 lowercase letters, digits or dashes, starting with a letter or digit, and not "local".');
    expect(store.getState().adding).toBe(false);
    expect(client.countCalls('providers.list')).toBe(0);
    expect(JSON.stringify(store.getState())).not.toContain(key);
  });

  it('keeps the last connection test per provider, ok or failed, and marks the row busy meanwhile', async () => {
    const { client, store } = setup([provider('emu'), provider('down')]);
    await store.getState().load();
    let release: () => void = () => {};
    client.handle('providers.test', ({ id }) =>
      id === 'emu'
        ? new Promise((resolve) => (release = () => resolve({ ok: true, message: 'Connected: 2 models listed.', models: ['gpt-image-1', 'sora-2'] })))
        : { ok: false, message: 'The provider could not be reached.', models: [] },
    );

    const running = store.getState().test('emu');
    expect(store.getState().pending).toEqual({ emu: 'test' });
    release();
    expect(await running).toBe(true);
    expect(await store.getState().test('down')).toBe(true);

    const { checks, pending, actionError } = store.getState();
    expect(pending).toEqual({});
    expect(actionError).toBeNull();
    expect(checks.emu).toEqual({ ok: true, message: 'Connected: 2 models listed.', models: ['gpt-image-1', 'sora-2'] });
    expect(checks.down).toMatchObject({ ok: false, message: 'The provider could not be reached.' });

    // A call that throws (the provider is gone) is an error for that row, not a test result.
    client.handle('providers.test', () => {
      throw new StudioError('not_found', 'No provider gone.', 'id', 404);
    });
    expect(await store.getState().test('gone')).toBe(false);
    expect(store.getState().actionError).toEqual({ id: 'gone', message: 'not_found: No provider gone.' });
    expect(store.getState().checks.gone).toBeUndefined();
  });

  it('keeps what a discovery added and skipped', async () => {
    const { client, store } = setup([provider('emu')]);
    client.handle('providers.discover', () => ({ added: ['emu/gpt-image-1'], skipped: ['whisper-1'] }));
    expect(await store.getState().discover('emu')).toBe(true);
    expect(store.getState().discoveries.emu).toEqual({ added: ['emu/gpt-image-1'], skipped: ['whisper-1'] });
  });

  it('updates a provider with providers.update: the new key goes out once, old results go, the list reloads', async () => {
    const key = 'sk-rotated-9999';
    const { client, store, setList } = setup([provider('emu')]);
    await store.getState().load();
    client.handle('providers.test', () => ({ ok: false, message: 'The upstream provider refused the credentials.', models: [] }));
    await store.getState().test('emu');
    let release: () => void = () => {};
    client.handle('providers.update', (input) => {
      const updated = provider('emu', { base_url: input.base_url ?? '' });
      setList([updated]);
      return new Promise((resolve) => (release = () => resolve({ provider: updated })));
    });

    const running = store.getState().update({ id: 'emu', base_url: 'http://127.0.0.1:8888/v1', api_key: key });
    expect(store.getState().pending).toEqual({ emu: 'update' });
    release();
    expect(await running).toBe(true);
    expect(client.calls.find((c) => c.method === 'providers.update')?.input).toEqual({ id: 'emu', base_url: 'http://127.0.0.1:8888/v1', api_key: key });
    expect(store.getState().providers[0]?.base_url).toBe('http://127.0.0.1:8888/v1');
    expect(store.getState().checks.emu).toBeUndefined();
    expect(store.getState().pending).toEqual({});
    expect(JSON.stringify(store.getState())).not.toContain(key);

    // A refusal is the row's error, and keeps the row as it was.
    client.handle('providers.update', () => {
      throw new StudioError('invalid_request', 'base_url must be an http(s) URL.', 'base_url', 400);
    });
    expect(await store.getState().update({ id: 'emu', base_url: 'ftp://x' })).toBe(false);
    expect(store.getState().actionError).toEqual({ id: 'emu', message: 'invalid_request: base_url must be an http(s) URL.' });
    expect(store.getState().providers[0]?.base_url).toBe('http://127.0.0.1:8888/v1');
  });

  it('removes a provider together with its models when asked to', async () => {
    const { client, store, setList } = setup([provider('emu')]);
    await store.getState().load();
    client.handle('providers.remove', () => {
      setList([]);
      return { removed: true, removed_models: ['emu/gpt-image-1'] };
    });
    expect(await store.getState().remove('emu', { withModels: true })).toBe(true);
    expect(client.calls.find((c) => c.method === 'providers.remove')?.input).toEqual({ id: 'emu', remove_models: true });
    expect(store.getState().providers).toEqual([]);
  });

  it('shows a refused remove as "code: message" on its row; a removed provider leaves the list', async () => {
    const { client, store, setList } = setup([provider('emu'), provider('other')]);
    await store.getState().load();
    client.handle('providers.remove', ({ id }) => {
      if (id === 'emu') {
        throw new StudioError(
          'invalid_request',
          'Provider emu still serves emu/gpt-image-1; remove those models first (mgw models remove).',
          'id',
          400,
        );
      }
      setList([provider('emu')]);
      return { removed: true, removed_models: [] };
    });

    expect(await store.getState().remove('emu')).toBe(false);
    expect(store.getState().actionError).toEqual({
      id: 'emu',
      message: 'invalid_request: Provider emu still serves emu/gpt-image-1; remove those models first (mgw models remove).',
    });
    expect(store.getState().providers.map((p) => p.id)).toEqual(['emu', 'other']);

    client.handle('providers.test', () => ({ ok: true, message: 'Connected: 0 models listed.', models: [] }));
    await store.getState().test('other');
    expect(await store.getState().remove('other')).toBe(true);
    expect(store.getState().providers.map((p) => p.id)).toEqual(['emu']);
    expect(store.getState().checks.other).toBeUndefined();
    // The error of another row stays where it was.
    expect(store.getState().actionError?.id).toBe('emu');

    // A new action on the failed row clears its error.
    client.handle('providers.test', () => ({ ok: true, message: 'Connected: 2 models listed.', models: ['a', 'b'] }));
    await store.getState().test('emu');
    expect(store.getState().actionError).toBeNull();
  });

  it('reloads the providers after a reconnect only once the view loaded them', async () => {
    const client = createFakeClient();
    client.handle('catalog.list', () => ({ models: [] }));
    client.handle('videos.list', () => ({ videos: [] }));
    client.handle('billing.summary', () => {
      throw new StudioError('internal_error', 'not needed here');
    });
    client.handle('providers.list', () => ({ providers: [provider('emu')], health: [] }));
    const stores = createStudioStores(client, { theme: 'light' });
    connectStudioEvents(stores, client);

    client.reconnect();
    await flush();
    expect(client.countCalls('providers.list')).toBe(0);

    await stores.providers.getState().load();
    client.reconnect();
    await flush();
    expect(client.countCalls('providers.list')).toBe(2);
  });
});
