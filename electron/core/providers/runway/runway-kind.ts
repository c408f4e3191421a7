// The runway provider kind: Runway's API (api.dev.runwayml.com, a key): images through
// text_to_image, videos through image_to_video and text_to_video, each model's request body
// from its template (or the kind's default one).
import type { EngineKind } from '../engine-kind.js';
import { checkRunway, discoverRunway } from './runway-admin.js';
import { RunwayProvider } from './runway-provider.js';
import { checkTemplate } from './runway-templates.js';

export const runwayKind: EngineKind = {
  build: (config, http, logger) => new RunwayProvider(config, http, logger),
  check: checkRunway,
  discover: discoverRunway,
  checkWorkflow: checkTemplate,
};
