// The React binding of the vanilla stores: components subscribe to a narrow slice only.
import { useStore as useZustandStore } from 'zustand';
import type { StoreApi } from 'zustand/vanilla';

export function useStore<T, U>(store: StoreApi<T>, selector: (state: T) => U): U {
  return useZustandStore(store, selector);
}
