// The live model catalog (catalog.list), reloaded on catalog.changed.
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { CatalogModel } from '../../../shared/studio-contract';
import type { StudioCaller } from '../transport/client';
import { formatError } from '../transport/studio-error';
import { coalesce } from './coalesce';

export interface CatalogState {
  models: CatalogModel[];
  loaded: boolean;
  error: string | null;
  load(): Promise<void>;
}

export type CatalogStore = StoreApi<CatalogState>;

export function createCatalogStore(client: StudioCaller): CatalogStore {
  return createStore<CatalogState>()((set) => ({
    models: [],
    loaded: false,
    error: null,
    load: coalesce(async () => {
      try {
        const { models } = await client.call('catalog.list', {});
        set({ models, loaded: true, error: null });
      } catch (error) {
        set({ loaded: true, error: formatError(error) });
      }
    }),
  }));
}
