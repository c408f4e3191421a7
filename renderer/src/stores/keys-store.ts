// API keys: list, create (the token is kept only until dismissed), revoke, top up; plus the API
// base URL from system.info for the ready-to-paste curl snippet.
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { StudioInput, StudioOutput } from '../../../shared/studio-contract';
import type { StudioCaller } from '../transport/client';
import { formatError } from '../transport/studio-error';
import { coalesce } from './coalesce';

export type KeyRow = StudioOutput<'keys.list'>['keys'][number];
export type CreatedKey = StudioOutput<'keys.create'>;

export interface KeysState {
  keys: KeyRow[];
  loaded: boolean;
  error: string | null;
  apiBaseUrl: string | null;
  /** The studio's own key: revoking it from here would cut the studio off. */
  ownerKeyId: string | null;
  created: CreatedKey | null;
  creating: boolean;
  createError: string | null;
  /** Error of the last revoke/top-up, with the key it concerns. */
  actionError: { id: string; message: string } | null;
  load(): Promise<void>;
  create(input: StudioInput<'keys.create'>): Promise<boolean>;
  revoke(id: string): Promise<boolean>;
  topUp(id: string, usd: string): Promise<boolean>;
  dismissCreated(): void;
}

export type KeysStore = StoreApi<KeysState>;

export function createKeysStore(client: StudioCaller): KeysStore {
  return createStore<KeysState>()((set, get) => {
    let infoLoaded = false;
    const load = coalesce(async () => {
      try {
        const [{ keys }, info] = await Promise.all([
          client.call('keys.list', {}),
          infoLoaded ? null : client.call('system.info', {}),
        ]);
        if (info) infoLoaded = true;
        set({ keys, loaded: true, error: null, ...(info ? { apiBaseUrl: info.api_base_url, ownerKeyId: info.owner_key_id } : {}) });
      } catch (error) {
        set({ loaded: true, error: formatError(error) });
      }
    });

    const act = async (id: string, run: () => Promise<unknown>): Promise<boolean> => {
      try {
        await run();
        set({ actionError: null });
        await load();
        return true;
      } catch (error) {
        set({ actionError: { id, message: formatError(error) } });
        return false;
      }
    };

    return {
      keys: [],
      loaded: false,
      error: null,
      apiBaseUrl: null,
      ownerKeyId: null,
      created: null,
      creating: false,
      createError: null,
      actionError: null,
      load,
      async create(input) {
        set({ creating: true, createError: null, created: null });
        try {
          const created = await client.call('keys.create', input);
          set({ creating: false, created });
          await load();
          return true;
        } catch (error) {
          set({ creating: false, createError: formatError(error) });
          return false;
        }
      },
      revoke: (id) => act(id, () => client.call('keys.revoke', { id })),
      topUp: (id, usd) => act(id, () => client.call('keys.topUp', { id, usd })),
      dismissCreated: () => set({ created: null }),
    };
  });
}
