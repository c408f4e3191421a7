// Recent requests through the gateway; activity.added prepends live entries.
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ActivityEntry } from '../../../shared/studio-contract';
import type { StudioCaller } from '../transport/client';
import { formatError } from '../transport/studio-error';
import { coalesce } from './coalesce';

export const ACTIVITY_LIMIT = 100;

export interface ActivityState {
  entries: ActivityEntry[];
  loaded: boolean;
  error: string | null;
  load(): Promise<void>;
  add(entry: ActivityEntry): void;
}

export type ActivityStore = StoreApi<ActivityState>;

export function createActivityStore(client: StudioCaller): ActivityStore {
  return createStore<ActivityState>()((set, get) => ({
    entries: [],
    loaded: false,
    error: null,
    load: coalesce(async () => {
      try {
        const { entries } = await client.call('activity.list', { limit: ACTIVITY_LIMIT });
        set({ entries, loaded: true, error: null });
      } catch (error) {
        set({ loaded: true, error: formatError(error) });
      }
    }),
    add(entry) {
      const rest = get().entries.filter((existing) => existing.id !== entry.id);
      set({ entries: [entry, ...rest].slice(0, ACTIVITY_LIMIT) });
    },
  }));
}
