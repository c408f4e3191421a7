// Which catalog models fit which view, and what a model accepts: UX hints read straight from the
// record (the gateway validates for real).
import type { CatalogModel } from '../../../shared/studio-contract';

export type RequestType = 'text-to-video' | 'image-to-video';
const REQUEST_TYPES: readonly RequestType[] = ['text-to-video', 'image-to-video'];

export const isImageModel = (m: CatalogModel): boolean => m.record.modalities.output.includes('image');
export const isEditModel = (m: CatalogModel): boolean => isImageModel(m) && m.record.capabilities.image_edit !== false;
export const isVideoModel = (m: CatalogModel): boolean => m.record.model_type === 'video';

export const sizesOf = (m: CatalogModel | undefined): string[] => m?.record.capabilities.supported_sizes ?? [];
export const secondsOf = (m: CatalogModel | undefined): number[] => m?.record.capabilities.supported_seconds ?? [];

export function requestTypesOf(m: CatalogModel | undefined): RequestType[] {
  if (!m) return [...REQUEST_TYPES];
  const caps = m.record.capabilities;
  if (caps.requires_reference_image) return ['image-to-video'];
  const listed = caps.request_types?.filter((t): t is RequestType => (REQUEST_TYPES as readonly string[]).includes(t));
  return listed && listed.length > 0 ? listed : [...REQUEST_TYPES];
}

export interface ReferenceLimits {
  model: string;
  maxImages: number;
  maxBytes: number | null;
}

export function referenceLimitsOf(m: CatalogModel | undefined, fallbackMax: number): ReferenceLimits {
  const caps = m?.record.capabilities;
  return {
    model: m?.record.id ?? '',
    maxImages: caps?.max_reference_images ?? fallbackMax,
    maxBytes: caps?.max_reference_image_bytes ?? null,
  };
}

/** Keeps the current choice when still offered, else the preferred one, else the first. */
export function pick<T>(options: readonly T[], current: T | undefined, preferred?: T): T | undefined {
  if (current !== undefined && options.includes(current)) return current;
  if (preferred !== undefined && options.includes(preferred)) return preferred;
  return options[0];
}
