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

/** How a store turns a picked file into what the studio contract carries (tests pass their own). */
export type EncodeFile = (file: File) => Promise<StudioFile>;

/**
 * File -> StudioFile. FileReader encodes off the JS thread: a string loop over the bytes (and
 * btoa) froze the page for seconds on multi-megabyte references.
 */
export function toStudioFile(file: File): Promise<StudioFile> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      const url = String(reader.result);
      resolve({ name: file.name, mime: file.type, base64: url.slice(url.indexOf(',') + 1) });
    };
    reader.onerror = () => reject(reader.error ?? new Error(`Could not read ${file.name}.`));
    reader.readAsDataURL(file);
  });
}
