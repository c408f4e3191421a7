// Upstream providers: list, add and update (an API key passes straight through to the call and is
// never kept here), remove, and per provider the last connection test and model discovery.
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ProviderHealth } from '../../../shared/provider-health';
import type { ProviderInfo, StudioInput, StudioOutput } from '../../../shared/studio-contract';
import type { StudioCaller } from '../transport/client';
import { formatError } from '../transport/studio-error';
import { coalesce } from './coalesce';

export type ConnectionCheck = StudioOutput<'providers.test'>;
export type Discovery = StudioOutput<'providers.discover'>;
export type ProviderAction = 'test' | 'discover' | 'update' | 'remove';

export interface ProvidersState {
  providers: ProviderInfo[];
  /** What the gateway saw of each provider it routed requests to, by id (absent: none yet). */
  health: Record<string, ProviderHealth>;
  loaded: boolean;
  error: string | null;
  adding: boolean;
  addError: string | null;
  /** Last connection test / discovery per provider id. */
  checks: Record<string, ConnectionCheck>;
  discoveries: Record<string, Discovery>;
  /** The action running per provider id. */
  pending: Record<string, ProviderAction>;
  /** Error of the last test/discover/update/remove, with the provider it concerns. */
  actionError: { id: string; message: string } | null;
  load(): Promise<void>;
  add(input: StudioInput<'providers.add'>): Promise<boolean>;
  test(id: string): Promise<boolean>;
  discover(id: string): Promise<boolean>;
  /** Changes the given fields only (base URL, key or its variable); kind and models stay. */
  update(input: StudioInput<'providers.update'>): Promise<boolean>;
  /** withModels: also remove the catalog models the provider serves (providers.remove's remove_models). */
  remove(id: string, options?: { withModels?: boolean }): Promise<boolean>;
}

export type ProvidersStore = StoreApi<ProvidersState>;

const without = <T>(record: Record<string, T>, id: string): Record<string, T> => {
  const { [id]: _dropped, ...rest } = record;
  return rest;
};

export function createProvidersStore(client: StudioCaller): ProvidersStore {
  return createStore<ProvidersState>()((set, get) => {
    const load = coalesce(async () => {
      try {
        const { providers, health } = await client.call('providers.list', {});
        set({ providers, health: Object.fromEntries(health.map((h) => [h.provider, h])), loaded: true, error: null });
      } catch (error) {
        set({ loaded: true, error: formatError(error) });
      }
    });

    /** Runs one row action; the result goes where `done` puts it, a failure into actionError. */
    const act = async <T>(id: string, action: ProviderAction, run: () => Promise<T>, done: (result: T) => void | Promise<void>): Promise<boolean> => {
      set({ pending: { ...get().pending, [id]: action }, ...(get().actionError?.id === id ? { actionError: null } : {}) });
      try {
        await done(await run());
        return true;
      } catch (error) {
        set({ actionError: { id, message: formatError(error) } });
        return false;
      } finally {
        set({ pending: without(get().pending, id) });
      }
    };

    return {
      providers: [],
      health: {},
      loaded: false,
      error: null,
      adding: false,
      addError: null,
      checks: {},
      discoveries: {},
      pending: {},
      actionError: null,
      load,
      async add(input) {
        set({ adding: true, addError: null });
        try {
          const { provider } = await client.call('providers.add', input);
          // Add never replaces (an existing id is refused), but results may remain from an
          // earlier provider of this id that was removed: they do not hold for the new one.
          set({ adding: false, checks: without(get().checks, provider.id), discoveries: without(get().discoveries, provider.id) });
          await load();
          return true;
        } catch (error) {
          set({ adding: false, addError: formatError(error) });
          return false;
        }
      },
      test: (id) =>
        act(id, 'test', () => client.call('providers.test', { id }), (check) => set({ checks: { ...get().checks, [id]: check } })),
      discover: (id) =>
        act(id, 'discover', () => client.call('providers.discover', { id }), (found) => set({ discoveries: { ...get().discoveries, [id]: found } })),
      update: (input) =>
        act(input.id, 'update', () => client.call('providers.update', input), async () => {
          // The last test and discovery were made with the old URL or key: they no longer hold.
          set({ checks: without(get().checks, input.id), discoveries: without(get().discoveries, input.id) });
          await load();
        }),
      remove: (id, options) =>
        act(id, 'remove', () => client.call('providers.remove', { id, ...(options?.withModels ? { remove_models: true } : {}) }), async () => {
          set({ checks: without(get().checks, id), discoveries: without(get().discoveries, id) });
          await load();
        }),
    };
  });
}
