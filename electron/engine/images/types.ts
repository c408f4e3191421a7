/** Public contract of the built-in local image engine. */

export interface GenerateImageInput {
  prompt: string;
  width: number;
  height: number;
  seed?: number;
}

export interface EngineImage {
  png: Buffer;
  width: number;
  height: number;
}

export interface EditImageInput {
  prompt: string;
  images: Buffer[];
  width?: number;
  height?: number;
}

export interface EditResult extends EngineImage {
  /** Names of the operations actually applied, in order (e.g. ["grayscale", "blur"]). */
  operations: string[];
  /** False when nothing in the prompt was recognised and a fallback stylization was applied. */
  understood: boolean;
}

/**
 * Thrown for caller mistakes (undecodable image, missing references, out-of-range size)
 * so the HTTP layer can map it to a 400 instead of a 500.
 */
export class EngineInputError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EngineInputError';
  }
}

/** Hard limits shared by generation and editing. */
export const GENERATE_MIN_SIDE = 64;
export const GENERATE_MAX_SIDE = 1536;
export const EDIT_MAX_SIDE = 4096;
