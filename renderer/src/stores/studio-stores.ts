// Builds every store around one client and wires the pushed events into them. No React here,
// so unit tests drive the same wiring with a fake client.
import type { StudioClient, StudioCaller } from '../transport/client';
import { createActivityStore, type ActivityStore } from './activity-store';
import { createBillingStore, type BillingStore } from './billing-store';
import { createCatalogStore, type CatalogStore } from './catalog-store';
import { createImagesStore, type ImagesStore } from './images-store';
import { createKeysStore, type KeysStore } from './keys-store';
import { createProvidersStore, type ProvidersStore } from './providers-store';
import { createUiStore, type Theme, type UiStore, type ViewId } from './ui-store';
import { isActive } from './video-merge';
import { createVideosStore, type VideosStore } from './videos-store';

export interface StudioStores {
  catalog: CatalogStore;
  images: ImagesStore;
  videos: VideosStore;
  billing: BillingStore;
  keys: KeysStore;
  providers: ProvidersStore;
  activity: ActivityStore;
  ui: UiStore;
}

export function createStudioStores(client: StudioCaller, ui: { theme: Theme; themeChosen?: boolean; view?: ViewId }): StudioStores {
  return {
    catalog: createCatalogStore(client),
    images: createImagesStore(client),
    videos: createVideosStore(client),
    billing: createBillingStore(client),
    keys: createKeysStore(client),
    providers: createProvidersStore(client),
    activity: createActivityStore(client),
    ui: createUiStore(ui),
  };
}

/** Subscribes the stores to the client's events; returns the unsubscribe. */
export function connectStudioEvents(stores: StudioStores, client: Pick<StudioClient, 'on' | 'onReconnect' | 'onDisconnect'>): () => void {
  const offs = [
    client.on('videos.updated', ({ video }) => {
      const before = stores.videos.getState().videos.find((v) => v.id === video.id);
      stores.videos.getState().applyUpdate(video);
      // A job finishing deserves a notice, wherever the user is in the studio; one the user
      // cancelled does not (whether this event or the cancel's reply arrives first).
      if (before && isActive(before) && !isActive(video) && video.error?.code !== 'cancelled') {
        const ui = stores.ui.getState();
        if (video.status === 'completed') ui.notify(`Video ${video.id} is ready`);
        else ui.notify(`Video ${video.id} ${video.status}: ${video.error?.message ?? 'no output'}`, 'error');
      }
    }),
    client.on('images.progress', ({ progress_id, percent }) => stores.images.getState().applyProgress(progress_id, percent)),
    client.on('catalog.changed', () => void stores.catalog.getState().load()),
    client.on('billing.changed', ({ account_id }) => {
      void stores.billing.getState().load();
      // Key balances are shown in the Keys view: refresh them only once that view was opened.
      if (stores.keys.getState().loaded) void stores.keys.getState().load();
      // A charge settling later (a video) changes the spend of an open usage panel.
      stores.keys.getState().refreshUsage({ accountId: account_id });
    }),
    client.on('activity.added', ({ entry }) => {
      stores.activity.getState().add(entry);
      stores.keys.getState().refreshUsage({ keyId: entry.key_id });
    }),
    client.onDisconnect(() => stores.ui.getState().setConnected(false)),
    // Events may have been lost while the stream was down: reload what is on screen.
    client.onReconnect(() => {
      stores.ui.getState().setConnected(true);
      void stores.catalog.getState().load();
      void stores.billing.getState().load();
      void stores.videos.getState().load();
      if (stores.activity.getState().loaded) void stores.activity.getState().load();
      if (stores.keys.getState().loaded) void stores.keys.getState().load();
      if (stores.keys.getState().usageKeyId) void stores.keys.getState().loadUsage();
      if (stores.providers.getState().loaded) void stores.providers.getState().load();
    }),
  ];
  return () => {
    for (const off of offs) off();
  };
}

/** What the app needs at start: the catalog (model selects) and the balance (header). */
export async function loadInitial(stores: StudioStores): Promise<void> {
  await Promise.all([stores.catalog.getState().load(), stores.billing.getState().load()]);
}
