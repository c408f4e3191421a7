// The owner's account: balance, holds, ledger, spend by day; reloaded on billing.changed.
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { StudioOutput } from '../../../shared/studio-contract';
import type { StudioCaller } from '../transport/client';
import { formatError } from '../transport/studio-error';
import { coalesce } from './coalesce';

export type BillingSummary = StudioOutput<'billing.summary'>;

export interface BillingState {
  summary: BillingSummary | null;
  loaded: boolean;
  error: string | null;
  toppingUp: boolean;
  topUpError: string | null;
  load(): Promise<void>;
  topUp(usd: string): Promise<boolean>;
}

export type BillingStore = StoreApi<BillingState>;

export function createBillingStore(client: StudioCaller): BillingStore {
  return createStore<BillingState>()((set, get) => {
    const load = coalesce(async () => {
      try {
        const summary = await client.call('billing.summary', {});
        set({ summary, loaded: true, error: null });
      } catch (error) {
        set({ loaded: true, error: formatError(error) });
      }
    });
    return {
      summary: null,
      loaded: false,
      error: null,
      toppingUp: false,
      topUpError: null,
      load,
      async topUp(usd) {
        set({ toppingUp: true, topUpError: null });
        try {
          const { balance } = await client.call('billing.topUp', { usd });
          const summary = get().summary;
          // Show the new balance at once; the ledger follows with the reload.
          set({ toppingUp: false, summary: summary ? { ...summary, balance } : summary });
          void load();
          return true;
        } catch (error) {
          set({ toppingUp: false, topUpError: formatError(error) });
          return false;
        }
      },
    };
  });
}
