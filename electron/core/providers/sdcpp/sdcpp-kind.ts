// The sdcpp provider kind: the stable-diffusion.cpp server (examples/server, default port 1234,
// no key). Images through its OpenAI-style routes; videos through its native jobs, re-encoded to
// H.264 MP4. It runs no workflows: an owner's video model is a plain record on this provider.
import type { EngineKind } from '../engine-kind.js';
import { checkSdcpp, discoverSdcpp } from './sdcpp-admin.js';
import { SdcppProvider } from './sdcpp-provider.js';

export const sdcppKind: EngineKind = {
  build: (config, http, logger) => new SdcppProvider(config, http, logger),
  check: checkSdcpp,
  discover: discoverSdcpp,
};
