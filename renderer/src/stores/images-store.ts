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
  /** The running request's progress as its engine reports it (0-100); null: none reported. */
  progress: number | null;
  /** Names the running request in `images.progress` events. */
  progressId: string | null;
  loadGallery(): Promise<void>;
  /** An `images.progress` event: kept when it is about the running request. */
  applyProgress(progressId: string, percent: number): void;
  generate(input: StudioInput<'images.generate'>): Promise<GalleryItem | null>;
  edit(input: EditRequest): Promise<GalleryItem | null>;
  /** The inputs changed: an error about the previous ones no longer applies. */
  clearEditError(): void;
  remove(id: string): Promise<void>;
}

export type ImagesStore = StoreApi<ImagesState>;

const newProgressId = (): string => `p-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;

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
    progress: null,
    progressId: null,

    applyProgress(progressId, percent) {
      if (get().progressId === progressId) set({ progress: percent });
    },

    loadGallery: coalesce(async () => {
      try {
        const { items } = await client.call('gallery.list', { limit: GALLERY_LIMIT });
        set({ gallery: items, galleryLoaded: true, galleryError: null });
      } catch (error) {
        set({ galleryLoaded: true, galleryError: formatError(error) });
      }
    }),

    async generate(input) {
      const progressId = newProgressId();
      set({ generating: true, generateError: null, progress: null, progressId });
      try {
        const { item } = await client.call('images.generate', { ...input, progress_id: progressId });
        set({ generating: false, generated: item, gallery: prepend(get().gallery, item), progress: null, progressId: null });
        return item;
      } catch (error) {
        set({ generating: false, generateError: formatError(error), progress: null, progressId: null });
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
        const progressId = newProgressId();
        set({ progress: null, progressId });
        const { item } = await client.call('images.edit', { ...input, images, progress_id: progressId });
        set({ editing: false, edited: item, gallery: prepend(get().gallery, item), progress: null, progressId: null });
        return item;
      } catch (error) {
        set({ editing: false, preparing: false, editError: formatError(error), progress: null, progressId: null });
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
