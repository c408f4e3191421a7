// A model's routes: the providers that serve it, in the order they are tried, each with the
// name its provider knows the model by and, where the provider runs one, the owner's workflow or
// request template. The client sees one model (the catalog's record, prices and capabilities),
// so a route is refused when it is put if its provider cannot honour that record.
import type { ModelRecord } from '../../../shared/api-types.js';
import { isProviderKind } from '../../../shared/provider-kinds.js';
import { hasControlChar } from '../control-chars.js';
import { GatewayError, invalid } from '../errors.js';
import { ENGINE_KINDS } from '../providers/engine-kinds.js';
import { routeProblem, type RouteTarget } from '../providers/route-limits.js';
import type { Workflow } from '../providers/templates/placeholders.js';
import { hasUnsafeSegment, UNSAFE_SEGMENT } from './model-path.js';
import { withPartnerFields } from './partner-fields.js';

export interface ModelRoute {
  providerId: string;
  upstreamModel: string;
  /** The owner's workflow or request template for this route (null: the kind's built-in one). */
  workflow: Workflow | null;
}

/** A route as given: its workflow unchecked, or left out (none). */
export interface RoutePut {
  providerId: string;
  upstreamModel: string;
  workflow?: unknown;
}

/** More would only lengthen the time a failing request takes to answer. */
export const MAX_ROUTES = 8;

/**
 * How errors name a route's field: the one-route form (`mgw models put --provider`) by the field
 * alone (`upstream_model`); routes given as a list by their place (`routes[1].upstream_model`).
 */
export type RouteParam = (index: number, field: 'provider' | 'upstream_model' | 'workflow' | null) => string;

export const routeParam =
  (single: boolean): RouteParam =>
  (index, field) =>
    single ? (field ?? 'provider') : `routes[${index}]${field ? `.${field}` : ''}`;

/**
 * The routes checked against the record, and the record with the fields that follow its primary
 * route's provider (partner-fields.ts). `targetOf` gives a configured provider's kind and base
 * URL; undefined for an adapter the catalog does not know the kind of (a built-in one other than `local`).
 */
export async function checkRoutes(
  record: ModelRecord,
  routes: RoutePut[],
  targetOf: (providerId: string) => Promise<RouteTarget | undefined>,
  param: RouteParam,
): Promise<{ record: ModelRecord; routes: ModelRoute[] }> {
  if (routes.length === 0) throw invalid('A model needs at least one route: a provider that serves it.', 'routes');
  if (routes.length > MAX_ROUTES) throw invalid(`A model takes at most ${MAX_ROUTES} routes.`, 'routes');
  const targets = await Promise.all(routes.map((route) => targetOf(route.providerId)));
  const kinds = targets.map((target) => target?.kind);
  routes.forEach((route, i) => {
    checkUpstreamModel(route.upstreamModel, param(i, 'upstream_model'));
    const twin = routes.findIndex((other) => other.providerId === route.providerId && other.upstreamModel === route.upstreamModel);
    if (twin !== i) throw invalid(`Route ${i + 1} repeats route ${twin + 1} (${route.providerId}:${route.upstreamModel}).`, param(i, null));
  });
  checkPartnerMix(record, kinds, param);
  const checked = withPartnerFields(record, kinds[0], routes[0]!.upstreamModel);
  const out = routes.map((route, i): ModelRoute => {
    const kind = kinds[i];
    const target = targets[i];
    if (target !== undefined) {
      const problem = routeProblem(target, checked, route.upstreamModel);
      if (problem) throw invalid(`Route ${route.providerId}:${route.upstreamModel} cannot serve ${record.id}: ${problem.message} (${problem.param}).`, param(i, null));
    }
    return { providerId: route.providerId, upstreamModel: route.upstreamModel, workflow: checkedWorkflow(route, kind, checked, param(i, 'workflow')) };
  });
  return { record: checked, routes: out };
}

function checkUpstreamModel(upstreamModel: string, param: string): void {
  if (hasUnsafeSegment(upstreamModel)) throw invalid(`The upstream model ${JSON.stringify(upstreamModel)} ${UNSAFE_SEGMENT}.`, param);
  if (hasControlChar(upstreamModel)) throw invalid(`The upstream model ${JSON.stringify(upstreamModel)} contains a line break or control character.`, param);
}

/**
 * A fal video model's content redirects to the partner (partner_video), which no other provider
 * does: its record could not be true of both, so fal and other providers do not mix in one.
 */
function checkPartnerMix(record: ModelRecord, kinds: (string | undefined)[], param: RouteParam): void {
  if (record.model_type !== 'video' || !kinds.includes('fal')) return;
  const other = kinds.findIndex((kind) => kind !== 'fal');
  if (other === -1) return;
  throw invalid(
    `A fal video model is served through the partner (its content redirects there): all its routes must be fal providers, and route ${other + 1} is not.`,
    param(other, 'provider'),
  );
}

/**
 * The workflow as the route's kind accepts it (null: none given). A provider that runs no
 * workflows refuses one: it would be stored and silently never used.
 */
function checkedWorkflow(route: RoutePut, kind: string | undefined, record: ModelRecord, param: string): Workflow | null {
  if (route.workflow === undefined || route.workflow === null) return null;
  const engine = isProviderKind(kind) ? ENGINE_KINDS[kind] : undefined;
  if (!engine?.checkWorkflow) throw invalid(`Provider ${route.providerId} (${kind ?? 'unknown'}) takes no workflow or template; leave --workflow out.`, param);
  return renamed(() => engine.checkWorkflow!(route.workflow, record), 'workflow', param);
}

/** The kind's checks name `workflow`; on a route among several, the error names the route's. */
function renamed<T>(check: () => T, from: string, to: string): T {
  try {
    return check();
  } catch (error) {
    if (from !== to && error instanceof GatewayError && error.param === from) throw new GatewayError(error.code, error.message, to, error.headers);
    throw error;
  }
}
