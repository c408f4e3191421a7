// API keys: list, create (the token is kept only until dismissed), revoke, top up, change access;
// the usage of the one key whose panel is open; plus the API base URL from system.info for the
// ready-to-paste snippets (the new key's curl call, the Models view's snippets).
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { KeyUsage, StudioInput, StudioOutput } from '../../../shared/studio-contract';
import type { StudioCaller } from '../transport/client';
import { formatError } from '../transport/studio-error';
import { coalesce } from './coalesce';

export type KeyRow = StudioOutput<'keys.list'>['keys'][number];
export type CreatedKey = StudioOutput<'keys.create'>;
export type AccessChange = Omit<StudioInput<'keys.update'>, 'id'>;
/** What a pushed event is about: a key (activity) or an account (billing). */
export type UsageTrigger = { keyId: string | null } | { accountId: string };

export interface KeysState {
  keys: KeyRow[];
  loaded: boolean;
  error: string | null;
  apiBaseUrl: string | null;
  /** system.info has answered (apiBaseUrl null then means the HTTP API is not running). */
  infoLoaded: boolean;
  /** The studio's own key: revoking it from here would cut the studio off. */
  ownerKeyId: string | null;
  created: CreatedKey | null;
  creating: boolean;
  createError: string | null;
  /** Error of the last revoke/top-up/access change, with the key it concerns. */
  actionError: { id: string; message: string } | null;
  /** Keys whose access change is being saved. */
  saving: Record<string, true>;
  /** The key whose usage panel is open, its usage once loaded, and why it could not load. */
  usageKeyId: string | null;
  usage: KeyUsage | null;
  usageError: string | null;
  load(): Promise<void>;
  /** Reads system.info (the API base URL, the owner's key id) once; the Models view needs only this. */
  loadInfo(): Promise<void>;
  create(input: StudioInput<'keys.create'>): Promise<boolean>;
  revoke(id: string): Promise<boolean>;
  topUp(id: string, usd: string): Promise<boolean>;
  update(id: string, change: AccessChange): Promise<boolean>;
  dismissCreated(): void;
  openUsage(id: string): Promise<void>;
  closeUsage(): void;
  loadUsage(): Promise<void>;
  /** Reloads the open usage panel when a pushed event concerns its key. */
  refreshUsage(trigger: UsageTrigger): void;
}

export type KeysStore = StoreApi<KeysState>;

const without = <T>(record: Record<string, T>, id: string): Record<string, T> => {
  const { [id]: _dropped, ...rest } = record;
  return rest;
};

export function createKeysStore(client: StudioCaller): KeysStore {
  return createStore<KeysState>()((set, get) => {
    const fetchInfo = coalesce(async () => {
      if (get().infoLoaded) return;
      const info = await client.call('system.info', {});
      set({ apiBaseUrl: info.api_base_url, ownerKeyId: info.owner_key_id, infoLoaded: true });
    });
    const load = coalesce(async () => {
      try {
        const [{ keys }] = await Promise.all([client.call('keys.list', {}), fetchInfo()]);
        set({ keys, loaded: true, error: null });
      } catch (error) {
        set({ loaded: true, error: formatError(error) });
      }
    });
    // Without the Keys view's error line: until it loads, the snippets say there is no URL yet.
    const loadInfo = () => fetchInfo().catch(() => undefined);

    // One usage load at a time; a reply for a panel closed or switched meanwhile is dropped.
    const loadUsage = coalesce(async () => {
      const id = get().usageKeyId;
      if (!id) return;
      try {
        const { usage } = await client.call('keys.usage', { id });
        if (get().usageKeyId === id) set({ usage, usageError: null });
      } catch (error) {
        if (get().usageKeyId === id) set({ usageError: formatError(error) });
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
      infoLoaded: false,
      ownerKeyId: null,
      created: null,
      creating: false,
      createError: null,
      actionError: null,
      saving: {},
      usageKeyId: null,
      usage: null,
      usageError: null,
      load,
      loadInfo,
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
      async update(id, change) {
        set({ saving: { ...get().saving, [id]: true } });
        try {
          const { key, balance } = await client.call('keys.update', { id, ...change });
          // The reply is the whole row: no list reload needed.
          set({
            keys: get().keys.map((row) => (row.id === id ? { ...key, balance } : row)),
            ...(get().actionError?.id === id ? { actionError: null } : {}),
          });
          // The daily token quota depends on the access type.
          if (get().usageKeyId === id) void loadUsage();
          return true;
        } catch (error) {
          set({ actionError: { id, message: formatError(error) } });
          return false;
        } finally {
          set({ saving: without(get().saving, id) });
        }
      },
      dismissCreated: () => set({ created: null }),
      openUsage(id) {
        if (get().usageKeyId !== id) set({ usageKeyId: id, usage: null, usageError: null });
        return loadUsage();
      },
      closeUsage: () => set({ usageKeyId: null, usage: null, usageError: null }),
      loadUsage,
      refreshUsage(trigger) {
        const id = get().usageKeyId;
        if (!id) return;
        if ('keyId' in trigger) {
          if (trigger.keyId !== id) return;
        } else {
          // Unknown row (list not loaded): reload rather than miss a change.
          const row = get().keys.find((k) => k.id === id);
          if (row && row.account_id !== trigger.accountId) return;
        }
        void loadUsage();
      },
    };
  });
}
