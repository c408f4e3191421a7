// Reference images: the pre-send checks the UI can make from the model record (type, count,
// bytes), and the File -> StudioFile conversion the contract wants.
import type { StudioFile } from '../../../shared/studio-contract';
import { formatBytes } from './format';
import type { ReferenceLimits } from './models';

export const REFERENCE_MIME = ['image/png', 'image/jpeg', 'image/webp'] as const;
export const REFERENCE_ACCEPT = REFERENCE_MIME.join(',');

export interface FileLike {
  name: string;
  size: number;
  type: string;
}

/** A readable reason the files cannot be sent to this model, or null. */
export function referenceProblem(files: readonly FileLike[], limits: ReferenceLimits): string | null {
  const wrongType = files.find((f) => !(REFERENCE_MIME as readonly string[]).includes(f.type));
  if (wrongType) return `${wrongType.name} is not a PNG, JPEG or WebP image.`;
  if (files.length > limits.maxImages) {
    return `${limits.model} accepts at most ${limits.maxImages} reference image${limits.maxImages === 1 ? '' : 's'} (${files.length} selected).`;
  }
  const tooBig = limits.maxBytes === null ? undefined : files.find((f) => f.size > (limits.maxBytes ?? Infinity));
  if (tooBig && limits.maxBytes !== null) {
    return `${tooBig.name} is ${formatBytes(tooBig.size)}; ${limits.model} accepts reference images up to ${formatBytes(limits.maxBytes)}.`;
  }
  return null;
}

export async function toStudioFile(file: File): Promise<StudioFile> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = '';
  // Chunked: String.fromCharCode(...bytes) overflows the stack on multi-megabyte files.
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return { name: file.name, mime: file.type, base64: btoa(binary) };
}
