// Image generation, edits and the persisted gallery they feed.
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { GalleryItem, StudioInput } from '../../../shared/studio-contract';
import type { StudioCaller } from '../transport/client';
import { formatError } from '../transport/studio-error';
import { coalesce } from './coalesce';

export const GALLERY_LIMIT = 60;

export interface ImagesState {
  gallery: GalleryItem[];
  galleryLoaded: boolean;
  galleryError: string | null;
  generating: boolean;
  generated: GalleryItem | null;
  generateError: string | null;
  editing: boolean;
  edited: GalleryItem | null;
  editError: string | null;
  loadGallery(): Promise<void>;
  generate(input: StudioInput<'images.generate'>): Promise<GalleryItem | null>;
  edit(input: StudioInput<'images.edit'>): Promise<GalleryItem | null>;
  remove(id: string): Promise<void>;
}

export type ImagesStore = StoreApi<ImagesState>;

/** Newest first, without duplicates (a reload may race with a fresh result). */
function prepend(gallery: GalleryItem[], item: GalleryItem): GalleryItem[] {
  return [item, ...gallery.filter((existing) => existing.id !== item.id)];
}

export function createImagesStore(client: StudioCaller): ImagesStore {
  return createStore<ImagesState>()((set, get) => ({
    gallery: [],
    galleryLoaded: false,
    galleryError: null,
    generating: false,
    generated: null,
    generateError: null,
    editing: false,
    edited: null,
    editError: null,

    loadGallery: coalesce(async () => {
      try {
        const { items } = await client.call('gallery.list', { limit: GALLERY_LIMIT });
        set({ gallery: items, galleryLoaded: true, galleryError: null });
      } catch (error) {
        set({ galleryLoaded: true, galleryError: formatError(error) });
      }
    }),

    async generate(input) {
      set({ generating: true, generateError: null });
      try {
        const { item } = await client.call('images.generate', input);
        set({ generating: false, generated: item, gallery: prepend(get().gallery, item) });
        return item;
      } catch (error) {
        set({ generating: false, generateError: formatError(error) });
        return null;
      }
    },

    async edit(input) {
      set({ editing: true, editError: null });
      try {
        const { item } = await client.call('images.edit', input);
        set({ editing: false, edited: item, gallery: prepend(get().gallery, item) });
        return item;
      } catch (error) {
        set({ editing: false, editError: formatError(error) });
        return null;
      }
    },

    async remove(id) {
      try {
        await client.call('gallery.delete', { id });
        const { generated, edited } = get();
        set({
          gallery: get().gallery.filter((item) => item.id !== id),
          galleryError: null,
          generated: generated?.id === id ? null : generated,
          edited: edited?.id === id ? null : edited,
        });
      } catch (error) {
        set({ galleryError: formatError(error) });
      }
    },
  }));
}
