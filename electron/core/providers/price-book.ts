// Catalog records for upstream models the gateway knows the public prices of, so discovery can
// add them with real prices. Anything else is listed but not added: the owner adds it with
// mgw models put, prices included.
import type { ModelRecord } from '../../../shared/api-types.js';

type Template = Omit<ModelRecord, 'id' | 'owned_by' | 'created'>;

const common = { object: 'model' as const, stream: false, json_mode: false, reasoning: false, tools_calling: false };

const gptImage = (input: number, output: number): Template => ({
  ...common,
  tier: 'pro',
  model_type: 'image',
  pricing_mode: 'token',
  pricing: { input, output, currency: 'USD', unit: '1M tokens' },
  modalities: { input: ['text', 'image'], output: ['image'] },
  context_window: { tokens: null, chars: 32_000 },
  usage_based_only: true,
  capabilities: {
    image_generation: true,
    image_edit: true,
    supported_sizes: ['1024x1024', '1024x1536', '1536x1024'],
    max_reference_images: 3,
    max_reference_image_bytes: 8_388_608,
  },
});

const sora = (price: number, sizes: string[]): Template => ({
  ...common,
  tier: 'pro',
  model_type: 'video',
  pricing_mode: 'second',
  pricing: { price, currency: 'USD', unit: 'second' },
  modalities: { input: ['text', 'image'], output: ['video'] },
  context_window: { tokens: null, chars: 32_000 },
  usage_based_only: true,
  capabilities: {
    video_generation: true,
    video_async: true,
    supported_seconds: [4, 8, 12],
    supported_sizes: sizes,
    max_reference_images: 1,
    max_reference_image_bytes: 8_388_608,
    requires_reference_image: false,
    request_types: ['text-to-video', 'image-to-video'],
    max_task_seconds: 1800,
  },
});

export const PRICE_BOOK: Record<string, Template> = {
  'gpt-image-1': gptImage(10, 40),
  'gpt-image-1-mini': gptImage(2.5, 8),
  'sora-2': sora(0.1, ['720x1280', '1280x720']),
  // OpenAI charges $0.30/s at 720x1280 and 1280x720 but $0.50/s at 1024x1792 and 1792x1024, and
  // a record has one price per request type, not per size: only the sizes this price covers.
  'sora-2-pro': sora(0.3, ['720x1280', '1280x720']),
};

export function recordFromPriceBook(upstreamModel: string, id: string, ownedBy: string, created: number): ModelRecord | null {
  const template = PRICE_BOOK[upstreamModel];
  return template ? { ...structuredClone(template), id, owned_by: ownedBy, created } : null;
}
