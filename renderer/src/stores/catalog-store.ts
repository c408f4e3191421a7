// The live model catalog (catalog.list), reloaded on catalog.changed.
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { CatalogModel, CatalogRoute, StudioInput } from '../../../shared/studio-contract';
import type { StudioCaller } from '../transport/client';
import { formatError } from '../transport/studio-error';
import { coalesce } from './coalesce';

export interface CatalogState {
  models: CatalogModel[];
  loaded: boolean;
  error: string | null;
  /** The id being removed, and the last removal's error. */
  removing: string | null;
  removeError: string | null;
  load(): Promise<void>;
  /** Removes a model from the catalog; true when it is gone. */
  remove(id: string): Promise<boolean>;
  clearRemoveError(): void;
  /** The model whose routes are being set, and the last such attempt's error. */
  routing: string | null;
  routesError: string | null;
  /** Sets a model's routes in the order they are tried; true when they are stored. */
  setRoutes(id: string, routes: CatalogRoute[]): Promise<boolean>;
  /** A ComfyUI workflow being made a model, and the last such attempt's error. */
  puttingWorkflow: boolean;
  workflowError: string | null;
  /** Puts a workflow as a model; the model's id when it is in the catalog. */
  putWorkflow(input: StudioInput<'catalog.putWorkflow'>): Promise<string | null>;
}

export type CatalogStore = StoreApi<CatalogState>;

export function createCatalogStore(client: StudioCaller): CatalogStore {
  return createStore<CatalogState>()((set, get) => ({
    models: [],
    loaded: false,
    error: null,
    removing: null,
    removeError: null,
    routing: null,
    routesError: null,
    setRoutes: async (id, routes) => {
      if (get().routing) return false;
      set({ routing: id, routesError: null });
      try {
        const { model } = await client.call('catalog.setRoutes', { id, routes: routes.map((r) => ({ provider: r.provider, upstream_model: r.upstream_model })) });
        set({ models: get().models.map((m) => (m.record.id === id ? model : m)) });
        return true;
      } catch (error) {
        set({ routesError: formatError(error) });
        return false;
      } finally {
        set({ routing: null });
      }
    },
    puttingWorkflow: false,
    workflowError: null,
    putWorkflow: async (input) => {
      if (get().puttingWorkflow) return null;
      set({ puttingWorkflow: true, workflowError: null });
      try {
        const { model } = await client.call('catalog.putWorkflow', input);
        set({ models: [...get().models.filter((m) => m.record.id !== model.record.id), model] });
        return model.record.id;
      } catch (error) {
        set({ workflowError: formatError(error) });
        return null;
      } finally {
        set({ puttingWorkflow: false });
      }
    },
    load: coalesce(async () => {
      try {
        const { models } = await client.call('catalog.list', {});
        set({ models, loaded: true, error: null });
      } catch (error) {
        set({ loaded: true, error: formatError(error) });
      }
    }),
    remove: async (id) => {
      if (get().removing) return false;
      set({ removing: id, removeError: null });
      try {
        await client.call('catalog.remove', { id });
        // Gone from the list at once; catalog.changed reloads it as well.
        set({ models: get().models.filter((m) => m.record.id !== id) });
        return true;
      } catch (error) {
        set({ removeError: formatError(error) });
        return false;
      } finally {
        set({ removing: null });
      }
    },
    clearRemoveError: () => set({ removeError: null }),
  }));
}
