// partner_video / partner_routes describe how a provider serves a video, so they follow the
// provider, not the owner's word. A fal video model is partner-backed (its content endpoint
// redirects to the partner's URL): it gets partner_video true and, when the record has none, one
// route per request type it supports, {route: <upstream model>, request_type}. A route the owner
// gives for a request type is the path its tasks are submitted to (fal serves text- and
// image-to-video of one model at two paths). On any other known provider the gateway serves the
// MP4 itself, so a record claiming otherwise is refused.
import type { ModelRecord } from '../../../shared/api-types.js';
import { invalid } from '../errors.js';
import { supportedRequestTypes } from './model-capabilities.js';
import { hasUnsafeSegment } from './model-path.js';

interface PartnerRoute {
  route?: unknown;
  request_type?: unknown;
}

/** `fal`, `openai`, `local`; undefined for an adapter the catalog does not know the kind of. */
export type ProviderKind = string | undefined;

export function withPartnerFields(record: ModelRecord, kind: ProviderKind, upstreamModel: string): ModelRecord {
  if (kind === undefined) return record;
  const caps = record.capabilities;
  const partner = kind === 'fal' && record.model_type === 'video';
  if (!partner) {
    if (caps.partner_video === true) {
      throw invalid(`Invalid model record: capabilities.partner_video is true only for video models of a fal provider (this one is served by ${kind}).`, 'capabilities.partner_video');
    }
    if (caps.partner_routes !== undefined) {
      throw invalid('Invalid model record: capabilities.partner_routes belongs to partner-backed video models only.', 'capabilities.partner_routes');
    }
    return record;
  }
  if (caps.partner_video === false) {
    throw invalid('Invalid model record: capabilities.partner_video cannot be false on a fal video model: its content redirects to the partner.', 'capabilities.partner_video');
  }
  if (caps.partner_routes !== undefined) checkRoutes(caps.partner_routes as PartnerRoute[], supportedRequestTypes(record));
  const routes = caps.partner_routes ?? supportedRequestTypes(record).map((requestType) => ({ route: upstreamModel, request_type: requestType }));
  return { ...record, capabilities: { ...caps, partner_video: true, partner_routes: routes } };
}

/** A record moved to another provider or upstream model: its partner fields described the old one, so it gets them anew. */
export function withoutPartnerFields(record: ModelRecord): ModelRecord {
  const { partner_video: _video, partner_routes: _routes, ...capabilities } = record.capabilities;
  return { ...record, capabilities };
}

/**
 * The upstream path a task of `requestType` is submitted to: its partner route when the record
 * names one for that request type, else the model's upstream model.
 */
export function upstreamRouteFor(record: ModelRecord, upstreamModel: string, requestType: string): string {
  const routes = (record.capabilities.partner_routes ?? []) as PartnerRoute[];
  const route = routes.find((r) => r.request_type === requestType)?.route;
  return typeof route === 'string' ? route : upstreamModel;
}

/** A route that names a request type is a submission path: a safe one, for a type the model takes, once. */
function checkRoutes(routes: PartnerRoute[], requestTypes: string[]): void {
  const seen = new Set<unknown>();
  routes.forEach((r, i) => {
    const at = `capabilities.partner_routes[${i}]`;
    if (r.request_type === undefined) return; // descriptive only: routes nothing
    if (typeof r.request_type !== 'string' || !requestTypes.includes(r.request_type)) {
      throw invalid(`Invalid model record: ${at}.request_type must be one the model supports (${requestTypes.join(', ')}).`, `${at}.request_type`);
    }
    if (seen.has(r.request_type)) throw invalid(`Invalid model record: ${at} routes ${r.request_type} a second time.`, `${at}.request_type`);
    seen.add(r.request_type);
    if (typeof r.route !== 'string' || r.route === '' || hasUnsafeSegment(r.route)) {
      throw invalid(`Invalid model record: ${at}.route must be an upstream model path, a string without empty, "." or ".." path segments.`, `${at}.route`);
    }
  });
}
