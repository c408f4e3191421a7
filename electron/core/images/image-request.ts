// Validation of image requests against the live catalog record: model kind, prompt, n, size and
// reference images. Each failure names the offending parameter.
import type { ModelRecord } from '../../../shared/api-types.js';
import type { TokenUsage } from '../billing/pricing.js';
import { countOr, stringList } from '../catalog/capability-read.js';
import { supportsImageOperation } from '../catalog/model-capabilities.js';
import type { CatalogEntry, CatalogService } from '../catalog/catalog-service.js';
import { GatewayError, invalid } from '../errors.js';
import { promptTokens } from '../providers/image-usage.js';
import type { ReferenceImage } from '../providers/provider.js';

export const SELECTORS = ['default', 'fast', 'pro'];
export const MAX_PROMPT_CHARS = 32_000;
const SIZE = /^([1-9]\d{0,4})x([1-9]\d{0,4})$/;

export interface ImageSize {
  width: number;
  height: number;
}

export async function resolveImageModel(
  catalog: CatalogService,
  model: string,
  operation: 'generation' | 'edit',
): Promise<CatalogEntry> {
  if (SELECTORS.includes(model)) {
    throw invalid(`Image ${operation} needs a concrete image model ID; the selector "${model}" is not accepted.`, 'model');
  }
  const entry = await catalog.find(model);
  if (!entry) throw invalid(`The model "${model}" does not exist. GET /v1/models lists the available models.`, 'model');
  const { record } = entry;
  if (!supportsImageOperation(record, operation)) {
    const inputs = operation === 'edit' && record.modalities.output.includes('image') && !record.modalities.input.includes('image');
    throw invalid(inputs ? `The model "${model}" does not accept input images.` : `The model "${model}" does not support image ${operation}.`, 'model');
  }
  return entry;
}

export function checkPrompt(prompt: string, record: ModelRecord): void {
  checkPromptText(prompt, Math.min(MAX_PROMPT_CHARS, record.context_window.chars ?? MAX_PROMPT_CHARS));
}

/** Not blank and at most `limit` characters (not UTF-16 units: an emoji is one; counted only when the units run over). */
export function checkPromptText(prompt: string, limit: number = MAX_PROMPT_CHARS): void {
  if (prompt.trim().length === 0) throw invalid('prompt must not be empty.', 'prompt');
  if (prompt.length > limit && [...prompt].length > limit) throw invalid(`prompt is longer than ${limit} characters.`, 'prompt');
}

/**
 * The record's context window bounds the prompt plus the output, in tokens (reference images
 * are input the window does not count). The output is the size asked for, or what the provider
 * expects to return.
 */
export function checkContextWindow(record: ModelRecord, prompt: string, estimate: TokenUsage): void {
  const window = record.context_window.tokens;
  if (window === null || window === undefined) return;
  const needed = promptTokens(prompt) + estimate.output_tokens;
  if (needed > window) {
    throw invalid(`The prompt and the output come to about ${needed} tokens; ${record.id} has a context window of ${window} tokens.`, 'prompt');
  }
}

export function checkN(n: number | undefined): void {
  if (n !== undefined && n !== 1) throw invalid('Only n = 1 is supported.', 'n');
}

/** Parses and checks `size` against the model's supported_sizes; returns the default when absent. */
export function resolveSize(size: string | undefined, record: ModelRecord, operation: 'generation' | 'edit' = 'generation'): ImageSize & { given: boolean } {
  const supported = stringList(record.capabilities.supported_sizes);
  // An edit without a size keeps its reference's size, so it needs no listed default.
  const fallback = operation === 'edit' ? '1024x1024' : undefined;
  const chosen = size ?? (supported.includes('1024x1024') ? '1024x1024' : (supported[0] ?? fallback));
  if (chosen === undefined) throw invalid(`The model "${record.id}" lists no supported sizes.`, 'model');
  const match = SIZE.exec(chosen);
  if (!match) throw invalid(`size must have the form <width>x<height>, for example 1024x1024.`, 'size');
  if (supported.length > 0 && !supported.includes(chosen)) {
    throw invalid(`size ${chosen} is not supported by ${record.id}; supported sizes: ${supported.join(', ')}.`, 'size');
  }
  return { width: Number(match[1]), height: Number(match[2]), given: size !== undefined };
}

/** Count and byte limits of the record; content types were checked when the files were read. */
export function checkReferenceImages(images: ReferenceImage[], record: ModelRecord): void {
  const max = countOr(record.capabilities.max_reference_images, 1);
  if (images.length === 0) throw invalid('At least one image file is required under the field "image".', 'image');
  if (images.length > max) throw invalid(`At most ${max} reference images are accepted by ${record.id}.`, 'image');
  const maxBytes = countOr(record.capabilities.max_reference_image_bytes, undefined);
  for (const image of images) {
    if (maxBytes !== undefined && image.bytes.length > maxBytes) {
      throw new GatewayError(
        'reference_image_too_large',
        `The reference image "${image.filename}" is ${image.bytes.length} bytes; ${record.id} accepts at most ${maxBytes}.`,
        image.field,
      );
    }
  }
}
