// The provider kinds that live each in its own folder, by kind. A new engine is a new folder and
// one line here.
import type { ProviderKind } from '../../../shared/provider-kinds.js';
import type { EngineKind } from './engine-kind.js';

export const ENGINE_KINDS: Partial<Record<ProviderKind, EngineKind>> = {};
