// The replicate provider kind: Replicate's HTTP API (default https://api.replicate.com, a Bearer
// key). Any model on Replicate is a catalog model the owner puts with its price, its upstream
// model (owner/name, owner/name:version or a version id) and, when its inputs are not the
// default ones, its input template.
import type { EngineKind } from '../engine-kind.js';
import { checkReplicate, discoverReplicate } from './replicate-admin.js';
import { ReplicateProvider } from './replicate-provider.js';
import { checkTemplate } from './replicate-templates.js';

export const replicateKind: EngineKind = {
  build: (config, http, logger) => new ReplicateProvider(config, http, logger),
  check: checkReplicate,
  discover: discoverReplicate,
  checkWorkflow: checkTemplate,
};
