// The provider kinds that live each in its own folder, by kind. A new engine is a new folder and
// one line here.
import type { ProviderKind } from '../../../shared/provider-kinds.js';
import type { EngineKind } from './engine-kind.js';
import { a1111Kind } from './a1111/a1111-kind.js';
import { comfyuiKind } from './comfyui/comfyui-kind.js';
import { geminiKind } from './gemini/gemini-kind.js';
import { replicateKind } from './replicate/replicate-kind.js';
import { runwayKind } from './runway/runway-kind.js';
import { sdcppKind } from './sdcpp/sdcpp-kind.js';

export const ENGINE_KINDS: Partial<Record<ProviderKind, EngineKind>> = {
  a1111: a1111Kind,
  comfyui: comfyuiKind,
  gemini: geminiKind,
  replicate: replicateKind,
  runway: runwayKind,
  sdcpp: sdcppKind,
};
