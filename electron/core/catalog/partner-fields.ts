// partner_video / partner_routes describe how a provider serves a video, so they follow the
// provider, not the owner's word. A fal video model is partner-backed (its content endpoint
// redirects to the partner's URL): it gets partner_video true and, when the record has none, one
// route per request type it supports, {route: <upstream model>, request_type}. On any other known
// provider the gateway serves the MP4 itself, so a record claiming otherwise is refused.
import type { ModelRecord } from '../../../shared/api-types.js';
import { invalid } from '../errors.js';
import { supportedRequestTypes } from '../videos/video-request.js';

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
  const routes = caps.partner_routes ?? supportedRequestTypes(record).map((requestType) => ({ route: upstreamModel, request_type: requestType }));
  return { ...record, capabilities: { ...caps, partner_video: true, partner_routes: routes } };
}
