// The studio contract: every method the prompt studio may call, with its input and output, and
// every event the main process pushes. One handler map in the main process implements it
// (electron/core/studio/); it is served over IPC in Electron and over HTTP
// (POST /studio/api/<method>, GET /studio/events) in headless mode. The renderer knows only
// this file and a client that picks the transport. No Node or Electron imports here.
import type { AccessType, BalanceView, KeyInfo, ModelRecord, VideoTask } from './api-types.js';
import type { ProviderHealth } from './provider-health.js';
import type { ProviderKind } from './provider-kinds.js';

/** A file sent from the studio: base64 bytes plus the name and type the user picked. */
export interface StudioFile {
  name: string;
  mime: string;
  base64: string;
}

export interface CatalogModel {
  record: ModelRecord;
  /** The provider of its first route ("local" for the built-in engine). */
  provider: string;
  /** The providers that serve it, in the order they are tried. */
  routes: CatalogRoute[];
}

export interface CatalogRoute {
  provider: string;
  upstream_model: string;
  /** Whether the route runs the owner's workflow or request template. */
  workflow: boolean;
}

export interface GalleryItem {
  id: string;
  kind: 'generation' | 'edit';
  model: string;
  prompt: string;
  width: number;
  height: number;
  cost_usd: string;
  created_at: number;
  /** A media path; the studio client turns it into a URL for its transport. */
  media: string;
}

export interface LedgerEntry {
  id: number;
  kind: string;
  amount_usd: string;
  balance_delta_usd: string;
  allowance_delta_usd: string;
  ref: string | null;
  created_at: number;
}

export interface ActiveHold {
  id: string;
  amount_usd: string;
  purpose: string;
  ref: string | null;
  created_at: number;
}

export interface SpendPoint {
  /** UTC day, YYYY-MM-DD. */
  day: string;
  spend_usd: string;
}

export interface ActivityEntry {
  id: number;
  at: number;
  key_id: string | null;
  key_label: string | null;
  method: string;
  endpoint: string;
  model: string | null;
  status: number;
  latency_ms: number;
  cost_usd: string;
  /** The provider whose route served the request (null: none did, or the request had no model to route). */
  route: string | null;
  /** The routes that failed (or were skipped) before, in order, and why in the gateway's words. */
  failed_routes: { provider: string; reason: string }[];
}

export interface ProviderInfo {
  id: string;
  kind: ProviderKind;
  base_url: string;
  /** The owner's whole-call timeout for one generation, in seconds; null: the kind's default. */
  timeout_seconds: number | null;
  /** "stored", "env:<NAME>" or "none": where the key comes from, never the key. */
  key_source: string;
  /** Why the key cannot be used (an unset or malformed environment variable), or null; never the key. */
  key_problem: string | null;
  created_at: string;
}

/** Per-key usage: totals, and rows by UTC day and model (newest first). */
export interface KeyUsage {
  key_id: string;
  totals: { requests: number; input_tokens: number; output_tokens: number; spend_usd: string };
  tokens_today: number;
  daily_token_quota: number | null;
  by_day: { day: string; model: string; requests: number; input_tokens: number; output_tokens: number; spend_usd: string }[];
}

export interface StudioVideo extends VideoTask {
  /** Media path of the MP4 once completed, else null. */
  media: string | null;
}

/** Method name (domain.verb) -> input and output. */
export interface StudioMethods {
  'system.info': {
    input: Record<string, never>;
    output: { version: string; api_base_url: string | null; data_dir: string; owner_key_id: string };
  };
  'catalog.list': { input: Record<string, never>; output: { models: CatalogModel[] } };
  /**
   * A ComfyUI workflow (the text of a file exported with "Export (API)") as a model, as
   * `mgw models put --workflow` does. A new model gets a default record for its output, at
   * default prices; `record` fields (a merge patch) change it. An existing model keeps its record.
   */
  'catalog.putWorkflow': {
    input: { id: string; provider: string; workflow: string; output: 'image' | 'video'; record?: Record<string, unknown> };
    output: { model: CatalogModel; created: boolean };
  };
  /** Removes a model from the catalog, as `mgw models remove` does. */
  'catalog.remove': { input: { id: string }; output: { removed: true } };
  /**
   * Sets a model's routes, in the order they are tried (`mgw models put --route`); a route given
   * again keeps its workflow. The model's record stays as it is.
   */
  'catalog.setRoutes': { input: { id: string; routes: { provider: string; upstream_model: string }[] }; output: { model: CatalogModel } };
  /** progress_id: a name the caller picks; `images.progress` events carry it while an engine reports steps. */
  'images.generate': {
    input: { model: string; prompt: string; size?: string; progress_id?: string };
    output: { item: GalleryItem };
  };
  'images.edit': {
    input: { model: string; prompt: string; size?: string; images: StudioFile[]; progress_id?: string };
    output: { item: GalleryItem };
  };
  'gallery.list': { input: { limit?: number }; output: { items: GalleryItem[] } };
  'gallery.delete': { input: { id: string }; output: { deleted: true } };
  'videos.quote': {
    input: { model: string; seconds: number; request_type: 'text-to-video' | 'image-to-video' };
    output: { hold_usd: string; price_per_second_usd: string };
  };
  'videos.create': {
    input: {
      model: string;
      prompt: string;
      seconds: number;
      size?: string;
      request_type?: 'text-to-video' | 'image-to-video';
      reference?: StudioFile;
      /** As /v1's Idempotency-Key header: a repeat with the same key answers the first task. */
      idempotency_key?: string;
    };
    output: { video: StudioVideo };
  };
  'videos.list': { input: { limit?: number }; output: { videos: StudioVideo[] } };
  'videos.cancel': { input: { id: string }; output: { video: StudioVideo } };
  'billing.summary': {
    input: Record<string, never>;
    output: { balance: BalanceView; holds: ActiveHold[]; ledger: LedgerEntry[]; spend_by_day: SpendPoint[] };
  };
  'billing.topUp': { input: { usd: string }; output: { balance: BalanceView } };
  'keys.list': { input: Record<string, never>; output: { keys: (KeyInfo & { balance: BalanceView })[] } };
  'keys.create': {
    input: { access: AccessType; balance_usd?: string; allowance_usd?: string; label?: string };
    output: { key: KeyInfo; token: string };
  };
  'keys.revoke': { input: { id: string }; output: { key: KeyInfo } };
  'keys.topUp': { input: { id: string; usd: string }; output: { balance: BalanceView } };
  'keys.update': {
    input: { id: string; access?: AccessType; allowance_usd?: string };
    output: { key: KeyInfo; balance: BalanceView };
  };
  'keys.usage': { input: { id: string }; output: { usage: KeyUsage } };
  'activity.list': { input: { limit?: number }; output: { entries: ActivityEntry[] } };
  /** health: what the gateway saw of each provider it routed requests to (none yet: absent). */
  'providers.list': { input: Record<string, never>; output: { providers: ProviderInfo[]; health: ProviderHealth[] } };
  'providers.add': {
    input: { id: string; kind: ProviderKind; base_url?: string; api_key?: string; api_key_env?: string; timeout_seconds?: number };
    output: { provider: ProviderInfo };
  };
  /**
   * Changes a provider's base URL or key (mgw providers update): what is left out stays, and so
   * do its kind and the models it serves. A key given here replaces an environment variable.
   */
  'providers.update': {
    input: { id: string; base_url?: string; api_key?: string; api_key_env?: string; timeout_seconds?: number | null };
    output: { provider: ProviderInfo };
  };
  /**
   * Refused while catalog models still point at the provider, unless remove_models: then those
   * models go first, in the same call (what "Discover models" added can be undone here).
   */
  'providers.remove': { input: { id: string; remove_models?: boolean }; output: { removed: true; removed_models: string[] } };
  /** The verdict, and what a local engine reports about itself (version, GPU, free VRAM, checkpoint). */
  'providers.test': { input: { id: string }; output: { ok: boolean; message: string; models: string[]; facts: { label: string; value: string }[] } };
  'providers.discover': { input: { id: string }; output: { added: string[]; skipped: string[] } };
}

export type StudioMethod = keyof StudioMethods;
export type StudioInput<M extends StudioMethod> = StudioMethods[M]['input'];
export type StudioOutput<M extends StudioMethod> = StudioMethods[M]['output'];

/** Event name -> payload, pushed by the main process (IPC events or server-sent events). */
export interface StudioEvents {
  'videos.updated': { video: StudioVideo };
  'catalog.changed': Record<string, never>;
  'billing.changed': { account_id: string };
  'activity.added': { entry: ActivityEntry };
  /** A running image request's progress (0-100), for engines that report their steps (ComfyUI, A1111). */
  'images.progress': { progress_id: string; percent: number };
}

export type StudioEvent = keyof StudioEvents;

/** The standard error body, as the studio receives it for a failed call. */
export interface StudioErrorBody {
  error: { message: string; type: string; code: string; param: string | null };
}

export const STUDIO_METHODS: readonly StudioMethod[] = [
  'system.info',
  'catalog.list',
  'catalog.putWorkflow',
  'catalog.remove',
  'catalog.setRoutes',
  'images.generate',
  'images.edit',
  'gallery.list',
  'gallery.delete',
  'videos.quote',
  'videos.create',
  'videos.list',
  'videos.cancel',
  'billing.summary',
  'billing.topUp',
  'keys.list',
  'keys.create',
  'keys.revoke',
  'keys.topUp',
  'keys.update',
  'keys.usage',
  'activity.list',
  'providers.list',
  'providers.add',
  'providers.update',
  'providers.remove',
  'providers.test',
  'providers.discover',
];

/** Every event, by name: leaving one out is a compile error (the SSE transport listens to exactly these). */
const EVENT_NAMES: { [E in StudioEvent]: true } = {
  'videos.updated': true,
  'catalog.changed': true,
  'billing.changed': true,
  'activity.added': true,
  'images.progress': true,
};
export const STUDIO_EVENTS = Object.keys(EVENT_NAMES) as readonly StudioEvent[];

/** The one IPC channel for calls, and the one for pushed events. */
export const IPC_CALL_CHANNEL = 'studio:call';
export const IPC_EVENT_CHANNEL = 'studio:event';

/** What the preload exposes as window.studio. */
export interface StudioBridge {
  call<M extends StudioMethod>(method: M, input: StudioInput<M>): Promise<StudioOutput<M>>;
  on<E extends StudioEvent>(event: E, listener: (payload: StudioEvents[E]) => void): () => void;
  /** Resolves a media path (gallery image, video) to a URL the page can load. */
  mediaUrl(path: string): string;
}
