// Video jobs: the list, live updates from videos.updated, the hold quote, create and cancel.
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { StudioInput, StudioOutput, StudioVideo } from '../../../shared/studio-contract';
import { toStudioFile, type EncodeFile } from '../lib/files';
import type { StudioCaller } from '../transport/client';
import { formatError } from '../transport/studio-error';
import { coalesce } from './coalesce';
import { mergeList, upsertVideo } from './video-merge';

export const VIDEOS_LIMIT = 50;

export type QuoteInput = StudioInput<'videos.quote'>;

export interface Quote extends StudioOutput<'videos.quote'> {
  /** Which selection this quote answers, so the view never shows a quote for another one. */
  key: string;
}

/** A creation as the view asks for it: the picked reference, encoded by the store once it is busy. */
export type CreateRequest = Omit<StudioInput<'videos.create'>, 'reference' | 'idempotency_key'> & { file?: File };

export const quoteKey = (input: QuoteInput): string => `${input.model}|${input.seconds}|${input.request_type}`;

export interface VideosState {
  videos: StudioVideo[];
  loaded: boolean;
  error: string | null;
  quote: Quote | null;
  quoteError: string | null;
  /** True from the click until the answer, encoding included: one click, one task and one hold. */
  creating: boolean;
  /** The reference is being encoded. */
  preparing: boolean;
  createError: string | null;
  load(): Promise<void>;
  requestQuote(input: QuoteInput): Promise<void>;
  create(input: CreateRequest): Promise<StudioVideo | null>;
  /** The inputs changed: an error about the previous ones no longer applies. */
  clearCreateError(): void;
  cancel(id: string): Promise<void>;
  applyUpdate(video: StudioVideo): void;
}

export type VideosStore = StoreApi<VideosState>;

export function createVideosStore(client: StudioCaller, encode: EncodeFile = toStudioFile): VideosStore {
  let latestQuote = 0;
  return createStore<VideosState>()((set, get) => ({
    videos: [],
    loaded: false,
    error: null,
    quote: null,
    quoteError: null,
    creating: false,
    preparing: false,
    createError: null,

    load: coalesce(async () => {
      try {
        const { videos } = await client.call('videos.list', { limit: VIDEOS_LIMIT });
        set({ videos: mergeList(get().videos, videos), loaded: true, error: null });
      } catch (error) {
        set({ loaded: true, error: formatError(error) });
      }
    }),

    async requestQuote(input) {
      const ticket = ++latestQuote;
      set({ quoteError: null });
      try {
        const quote = await client.call('videos.quote', input);
        if (ticket === latestQuote) set({ quote: { ...quote, key: quoteKey(input) } });
      } catch (error) {
        if (ticket === latestQuote) set({ quote: null, quoteError: formatError(error) });
      }
    },

    async create({ file, ...input }) {
      // Busy before the first await: a second click while the reference encodes is ignored.
      if (get().creating) return null;
      set({ creating: true, preparing: file !== undefined, createError: null });
      // One key per submit: should the call reach the core twice, it still makes one task and one hold.
      const idempotency_key = `studio-${crypto.randomUUID()}`;
      try {
        const reference = file ? await encode(file) : undefined;
        set({ preparing: false });
        const { video } = await client.call('videos.create', { ...input, ...(reference ? { reference } : {}), idempotency_key });
        set({ creating: false, videos: upsertVideo(get().videos, video) });
        return video;
      } catch (error) {
        set({ creating: false, preparing: false, createError: formatError(error) });
        return null;
      }
    },

    clearCreateError() {
      if (get().createError !== null) set({ createError: null });
    },

    async cancel(id) {
      try {
        const { video } = await client.call('videos.cancel', { id });
        set({ videos: upsertVideo(get().videos, video), error: null });
      } catch (error) {
        set({ error: formatError(error) });
      }
    },

    applyUpdate(video) {
      set({ videos: upsertVideo(get().videos, video) });
    },
  }));
}
