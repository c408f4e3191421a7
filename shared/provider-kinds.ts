// The kinds of upstream provider the gateway can front, and what the CLI and the studio's
// Providers view need to know about each to add one. Shared by the main process and the renderer.

export const PROVIDER_KINDS = ['openai', 'fal', 'replicate', 'gemini', 'runway', 'comfyui', 'a1111', 'sdcpp'] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

export interface ProviderKindInfo {
  label: string;
  /** Filled in when the owner gives no base URL; null: the base URL is required. */
  defaultBaseUrl: string | null;
  /** What the key is to this kind (null: the kind takes none). */
  key: 'api-key' | 'basic-auth' | null;
  /** A cloud service that answers nothing without a key (an OpenAI-compatible server may need none). */
  keyRequired: boolean;
  /** A local engine: its models are discovered from its checkpoints, billed like the built-in engine. */
  localEngine: boolean;
  /** The whole-call timeout of an image request when the owner set none. */
  defaultTimeoutMs: number;
  /** What its adapter renders: a model of another type cannot be routed to it. */
  serves: readonly ('image' | 'video')[];
}

const BOTH = ['image', 'video'] as const;
const IMAGES = ['image'] as const;

export const PROVIDER_KIND_INFO: Record<ProviderKind, ProviderKindInfo> = {
  openai: { label: 'OpenAI-compatible', defaultBaseUrl: null, key: 'api-key', keyRequired: false, localEngine: false, defaultTimeoutMs: 120_000, serves: BOTH },
  fal: { label: 'fal queue', defaultBaseUrl: 'https://queue.fal.run', key: 'api-key', keyRequired: true, localEngine: false, defaultTimeoutMs: 120_000, serves: BOTH },
  // Cloud generations that may wait a minute in a queue before they run.
  replicate: { label: 'Replicate', defaultBaseUrl: 'https://api.replicate.com', key: 'api-key', keyRequired: true, localEngine: false, defaultTimeoutMs: 300_000, serves: BOTH },
  gemini: { label: 'Google Gemini API', defaultBaseUrl: 'https://generativelanguage.googleapis.com', key: 'api-key', keyRequired: true, localEngine: false, defaultTimeoutMs: 300_000, serves: BOTH },
  runway: { label: 'Runway', defaultBaseUrl: 'https://api.dev.runwayml.com', key: 'api-key', keyRequired: true, localEngine: false, defaultTimeoutMs: 300_000, serves: BOTH },
  comfyui: { label: 'ComfyUI', defaultBaseUrl: 'http://127.0.0.1:8188', key: null, keyRequired: false, localEngine: true, defaultTimeoutMs: 600_000, serves: BOTH },
  a1111: { label: 'AUTOMATIC1111 / Forge', defaultBaseUrl: 'http://127.0.0.1:7860', key: 'basic-auth', keyRequired: false, localEngine: true, defaultTimeoutMs: 600_000, serves: IMAGES },
  sdcpp: { label: 'stable-diffusion.cpp server', defaultBaseUrl: 'http://127.0.0.1:1234', key: null, keyRequired: false, localEngine: true, defaultTimeoutMs: 600_000, serves: BOTH },
};

export const isProviderKind = (value: unknown): value is ProviderKind => typeof value === 'string' && (PROVIDER_KINDS as readonly string[]).includes(value);

/** "openai, fal, comfyui, a1111 or sdcpp", for messages. */
export const PROVIDER_KIND_LIST = `${PROVIDER_KINDS.slice(0, -1).join(', ')} or ${PROVIDER_KINDS.at(-1)}`;
