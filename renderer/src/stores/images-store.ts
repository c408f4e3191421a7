// Image generation, edits and the persisted gallery they feed.
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { GalleryItem, StudioInput } from '../../../shared/studio-contract';
import { toStudioFile, type EncodeFile } from '../lib/files';
import type { StudioCaller } from '../transport/client';
import { formatError } from '../transport/studio-error';
import { coalesce } from './coalesce';

export const GALLERY_LIMIT = 60;

/** An edit as the view asks for it: the picked files, encoded by the store once it is busy. */
export type EditRequest = Omit<StudioInput<'images.edit'>, 'images'> & { files: readonly File[] };

export interface ImagesState {
  gallery: GalleryItem[];
  galleryLoaded: boolean;
  galleryError: string | null;
  generating: boolean;
  generated: GalleryItem | null;
  generateError: string | null;
  /** True from the click until the edit's answer, encoding included: one click, one request. */
  editing: boolean;
  /** The references are being encoded (large files take a moment). */
  preparing: boolean;
  edited: GalleryItem | null;
  editError: string | null;
  loadGallery(): Promise<void>;
  generate(input: StudioInput<'images.generate'>): Promise<GalleryItem | null>;
  edit(input: EditRequest): Promise<GalleryItem | null>;
  /** The inputs changed: an error about the previous ones no longer applies. */
  clearEditError(): void;
  remove(id: string): Promise<void>;
}

export type ImagesStore = StoreApi<ImagesState>;

/** Newest first, without duplicates (a reload may race with a fresh result). */
function prepend(gallery: GalleryItem[], item: GalleryItem): GalleryItem[] {
  return [item, ...gallery.filter((existing) => existing.id !== item.id)];
}

export function createImagesStore(client: StudioCaller, encode: EncodeFile = toStudioFile): ImagesStore {
  return createStore<ImagesState>()((set, get) => ({
    gallery: [],
    galleryLoaded: false,
    galleryError: null,
    generating: false,
    generated: null,
    generateError: null,
    editing: false,
    preparing: false,
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

    async edit({ files, ...input }) {
      // Busy before the first await: a second click while the files encode is ignored.
      if (get().editing) return null;
      set({ editing: true, preparing: true, editError: null });
      try {
        const images = await Promise.all(files.map(encode));
        set({ preparing: false });
        const { item } = await client.call('images.edit', { ...input, images });
        set({ editing: false, edited: item, gallery: prepend(get().gallery, item) });
        return item;
      } catch (error) {
        set({ editing: false, preparing: false, editError: formatError(error) });
        return null;
      }
    },

    clearEditError() {
      if (get().editError !== null) set({ editError: null });
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
