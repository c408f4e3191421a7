// What a provider kind beyond the built-in openai and fal ones brings, in its own folder: how to
// build its adapter, how to test a connection, how to discover its models and, for kinds that
// run an owner's workflow or template, how to check one when a model is put.
import type { ModelRecord } from '../../../shared/api-types.js';
import type { Logger } from '../logger.js';
import type { DiscoveredModel, Provider, ProviderCheck } from './provider.js';
import type { Workflow } from './templates/placeholders.js';
import type { UpstreamClient, UpstreamProviderConfig } from './upstream/upstream-client.js';

/** Where an owner operation (a connection test, discovery) reaches the provider. */
export interface ProviderTarget {
  id: string;
  baseUrl: string;
  apiKey: string | null;
  timeoutMs: number;
  http: UpstreamClient;
}

export interface EngineKind {
  build(config: UpstreamProviderConfig, http: UpstreamClient, logger: Logger): Provider;
  check(target: ProviderTarget): Promise<ProviderCheck>;
  /** The models it offers (one per checkpoint on a local engine). */
  discover(target: ProviderTarget): Promise<DiscoveredModel[]>;
  /**
   * Checks an owner's workflow or template for a model record (throws an invalid_request naming
   * what is wrong, param "workflow"); kinds that take none leave this out.
   */
  checkWorkflow?(workflow: unknown, record: ModelRecord): Workflow;
}
