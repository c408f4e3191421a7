// The gemini provider kind: Google's Gemini API (generativelanguage.googleapis.com, an API key).
// Images through generateContent (Gemini image models: "Nano Banana"), videos through Veo's
// predictLongRunning; a model record may carry its request template (gemini-templates.ts).
import type { EngineKind } from '../engine-kind.js';
import { checkGemini, discoverGemini } from './gemini-admin.js';
import { GeminiProvider } from './gemini-provider.js';
import { checkTemplate } from './gemini-templates.js';

export const geminiKind: EngineKind = {
  build: (config, http, logger) => new GeminiProvider(config, http, logger),
  check: checkGemini,
  discover: discoverGemini,
  checkWorkflow: checkTemplate,
};
