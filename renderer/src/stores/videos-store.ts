// Video jobs: the list, live updates from videos.updated, the hold quote, create and cancel.
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { StudioInput, StudioOutput, StudioVideo } from '../../../shared/studio-contract';
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

export const quoteKey = (input: QuoteInput): string => `${input.model}|${input.seconds}|${input.request_type}`;

export interface VideosState {
  videos: StudioVideo[];
  loaded: boolean;
  error: string | null;
  quote: Quote | null;
  quoteError: string | null;
  creating: boolean;
  createError: string | null;
  load(): Promise<void>;
  requestQuote(input: QuoteInput): Promise<void>;
  create(input: StudioInput<'videos.create'>): Promise<StudioVideo | null>;
  cancel(id: string): Promise<void>;
  applyUpdate(video: StudioVideo): void;
}

export type VideosStore = StoreApi<VideosState>;

export function createVideosStore(client: StudioCaller): VideosStore {
  let latestQuote = 0;
  return createStore<VideosState>()((set, get) => ({
    videos: [],
    loaded: false,
    error: null,
    quote: null,
    quoteError: null,
    creating: false,
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

    async create(input) {
      set({ creating: true, createError: null });
      try {
        const { video } = await client.call('videos.create', input);
        set({ creating: false, videos: upsertVideo(get().videos, video) });
        return video;
      } catch (error) {
        set({ creating: false, createError: formatError(error) });
        return null;
      }
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
