// What a provider kind cannot render, whatever the record says: a route to it for a record that
// asks for more is refused when the model is put (catalog/model-routes.ts), not when a client
// first asks for that size or duration. A kind whose models the gateway cannot know has no entry.
import type { ModelRecord } from '../../../shared/api-types.js';
import { PROVIDER_KIND_INFO, isProviderKind } from '../../../shared/provider-kinds.js';
import { openaiRouteProblem } from './openai/openai-limits.js';
import { runwayRouteProblem } from './runway/runway-limits.js';
import type { RouteProblem } from './route-problem.js';

/** What the catalog knows of a route's provider: its kind, and where it is (built-in adapters: no base URL). */
export interface RouteTarget {
  kind: string;
  baseUrl: string | null;
}

/**
 * Models whose limits the gateway knows, by kind. An OpenAI-compatible server may run anything
 * under any name, so OpenAI's limits hold only at OpenAI's own API.
 */
const KNOWN_MODELS: Record<string, (record: ModelRecord, upstreamModel: string, target: RouteTarget) => RouteProblem | null> = {
  openai: (record, upstreamModel, target) => (isOpenAIHost(target.baseUrl) ? openaiRouteProblem(record, upstreamModel) : null),
  runway: (record, upstreamModel) => runwayRouteProblem(record, upstreamModel),
};

/** The first thing a provider cannot honour in `record` through `upstreamModel`, or null. */
export function routeProblem(target: RouteTarget, record: ModelRecord, upstreamModel: string): RouteProblem | null {
  const { kind } = target;
  const output = record.model_type === 'video' ? 'video' : 'image';
  if (isProviderKind(kind) && !PROVIDER_KIND_INFO[kind].serves.includes(output)) {
    return { param: 'model_type', message: `${PROVIDER_KIND_INFO[kind].label} providers serve no ${output} models` };
  }
  return KNOWN_MODELS[kind]?.(record, upstreamModel, target) ?? null;
}

function isOpenAIHost(baseUrl: string | null): boolean {
  try {
    return baseUrl !== null && new URL(baseUrl).hostname === 'api.openai.com';
  } catch {
    return false;
  }
}
