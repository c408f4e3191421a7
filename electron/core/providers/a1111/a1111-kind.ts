// The a1111 provider kind: AUTOMATIC1111's stable-diffusion-webui and its fork Forge, started
// with --api (and optionally --api-auth USER:PASS, given as the provider key). Images only.
import type { EngineKind } from '../engine-kind.js';
import { checkA1111, discoverA1111 } from './a1111-admin.js';
import { A1111Provider } from './a1111-provider.js';

export const a1111Kind: EngineKind = {
  build: (config, http, logger) => new A1111Provider(config, http, logger),
  check: checkA1111,
  discover: discoverA1111,
};
