// The catalog record discovery makes of a local engine's checkpoint: an image model that
// generates and edits, at default prices the owner can change (mgw models put). Local engines
// report no token usage, so they are billed as the built-in engine is: prompt tokens and image
// tokens by size.
import type { ModelRecord } from '../../../shared/api-types.js';
import type { DiscoveredModel } from './provider.js';

/** Sizes every Stable Diffusion family model renders (multiples of 64; SDXL's native buckets). */
export const ENGINE_IMAGE_SIZES = ['512x512', '768x768', '1024x1024', '832x1216', '1216x832', '1024x1536', '1536x1024'];

export function engineImageRecord(model: DiscoveredModel, catalogId: string, providerId: string, created: number): ModelRecord {
  return {
    id: catalogId,
    object: 'model',
    created,
    owned_by: providerId,
    tier: 'turbo',
    model_type: 'image',
    pricing_mode: 'token',
    pricing: { input: 0.5, output: 4, currency: 'USD', unit: '1M tokens' },
    modalities: { input: ['text', 'image'], output: ['image'] },
    context_window: { tokens: 32_768, chars: 32_000 },
    usage_based_only: false,
    stream: false,
    json_mode: false,
    reasoning: false,
    tools_calling: false,
    capabilities: {
      image_generation: true,
      image_edit: model.maxReferenceImages > 0,
      supported_sizes: ENGINE_IMAGE_SIZES,
      max_reference_images: model.maxReferenceImages,
      max_reference_image_bytes: 8_388_608,
    },
  };
}
