// Model record fields for `mgw models put` in CLI tests: a token-priced image model, everything
// but its id (the command's argument).
export const IMAGE_RECORD = {
  tier: 'turbo', model_type: 'image', pricing_mode: 'token',
  pricing: { input: 1, output: 10, currency: 'USD', unit: '1M tokens' },
  modalities: { input: ['text'], output: ['image'] }, context_window: { tokens: null, chars: 32000 },
  usage_based_only: false, stream: false, json_mode: false, reasoning: false, tools_calling: false,
  capabilities: { image_generation: true, supported_sizes: ['1024x1024'] },
};
