// What a model record says it can do, read the same way by the catalog (when it derives fields
// or checks routes) and by the request rules of images and videos.
import type { ModelRecord } from '../../../shared/api-types.js';
import { stringList } from './capability-read.js';

/** An image model for this operation: image output, token priced, not flagged off; edits take image input. */
export function supportsImageOperation(record: ModelRecord, operation: 'generation' | 'edit'): boolean {
  const capability = operation === 'generation' ? record.capabilities.image_generation : record.capabilities.image_edit;
  if (!record.modalities.output.includes('image') || capability === false || record.pricing_mode !== 'token') return false;
  return operation === 'generation' || record.modalities.input.includes('image');
}

/** A video model: second-priced, video output, video generation flagged on. */
export function isVideoModel(record: ModelRecord): boolean {
  return record.model_type === 'video' && record.pricing_mode === 'second' && record.modalities.output.includes('video') && record.capabilities.video_generation === true;
}

/** Request types a model's route supports: declared, else from its route prices, else from its inputs. */
export function supportedRequestTypes(record: ModelRecord): string[] {
  const declared = stringList(record.capabilities.request_types);
  if (declared.length > 0) return declared;
  const routes = record.pricing.route_prices_usd_per_second;
  if (Array.isArray(routes) && routes.length > 0) return [...new Set(routes.map((r) => r.request_type))];
  const types: string[] = [];
  if (record.capabilities.requires_reference_image !== true) types.push('text-to-video');
  if (record.modalities.input.includes('image')) types.push('image-to-video');
  return types;
}
