// Catalog records of the built-in engine. Prices are defaults the owner can change (mgw models
// put); they are non-zero so billing is visible from the first request.
import type { ModelRecord } from '../../../../shared/api-types.js';

export const LOCAL_PROVIDER_ID = 'local';

export const LOCAL_IMAGE_SIZES = ['256x256', '512x512', '768x768', '1024x1024', '1024x1536', '1536x1024'];

// A fixed creation time keeps the seeded records byte-stable across data dirs.
const CREATED = 1_767_225_600; // 2026-01-01T00:00:00Z

const imageCapabilities = {
  image_generation: true,
  image_edit: true,
  supported_sizes: LOCAL_IMAGE_SIZES,
  max_reference_images: 3,
  max_reference_image_bytes: 8_388_608,
};

const common = {
  object: 'model' as const,
  created: CREATED,
  owned_by: 'mgw-local',
  model_type: 'image',
  pricing_mode: 'token' as const,
  modalities: { input: ['text' as const, 'image' as const], output: ['image' as const] },
  // Room for the longest prompt (32,000 chars ~ 8,000 tokens) and the largest output (4096x4096).
  context_window: { tokens: 32_768, chars: 32_000 },
  stream: false,
  json_mode: false,
  reasoning: false,
  tools_calling: false,
};

export const LOCAL_IMAGE_MODELS: ModelRecord[] = [
  {
    ...common,
    id: 'local-image',
    tier: 'turbo',
    pricing: { input: 0.5, output: 4, currency: 'USD', unit: '1M tokens' },
    usage_based_only: false,
    capabilities: { ...imageCapabilities },
  },
  {
    ...common,
    id: 'local-image-pro',
    tier: 'pro',
    pricing: { input: 2, output: 30, minimum_request_price_usd: 0.01, currency: 'USD', unit: '1M tokens' },
    usage_based_only: true,
    capabilities: { ...imageCapabilities },
  },
];

export const LOCAL_VIDEO_SIZES = ['480p', '720p', '854x480', '1280x720'];

const videoCapabilities = {
  video_generation: true,
  video_async: true,
  supported_seconds: [2, 4, 8],
  supported_sizes: LOCAL_VIDEO_SIZES,
  max_reference_images: 1,
  max_reference_image_bytes: 8_388_608,
  max_task_seconds: 900,
};

const videoCommon = {
  object: 'model' as const,
  created: CREATED,
  owned_by: 'mgw-local',
  tier: 'pro' as const,
  model_type: 'video',
  pricing_mode: 'second' as const,
  context_window: { tokens: null, chars: 32_000 },
  usage_based_only: true,
  stream: false,
  json_mode: false,
  reasoning: false,
  tools_calling: false,
};

export const LOCAL_VIDEO_MODELS: ModelRecord[] = [
  {
    ...videoCommon,
    id: 'local-video',
    pricing: {
      price: 0.05,
      route_prices_usd_per_second: [
        { route: 'local-video', request_type: 'text-to-video', public_price_usd_per_second: 0.05 },
        { route: 'local-video', request_type: 'image-to-video', public_price_usd_per_second: 0.08 },
      ],
      currency: 'USD',
      unit: 'second',
    },
    modalities: { input: ['text', 'image'], output: ['video'] },
    capabilities: { ...videoCapabilities, requires_reference_image: false, request_types: ['text-to-video', 'image-to-video'] },
  },
  {
    ...videoCommon,
    id: 'local-animate',
    pricing: { price: 0.04, currency: 'USD', unit: 'second' },
    modalities: { input: ['text', 'image'], output: ['video'] },
    capabilities: { ...videoCapabilities, requires_reference_image: true, request_types: ['image-to-video'] },
  },
];
