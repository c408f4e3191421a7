/** Public contract of the built-in local video engine. */

export interface RenderVideoInput {
  prompt: string;
  /** Even numbers; resolveVideoSize maps "480p" -> 854x480, "720p" -> 1280x720, ... */
  width: number;
  height: number;
  /** Clip length, 1..20 seconds. */
  seconds: number;
  /** Frames per second, integer 1..60 (default 24). */
  fps?: number;
  /** PNG/JPEG/WebP bytes: image-to-video when present. */
  reference?: Buffer;
  seed?: number;
}

export interface RenderedVideo {
  path: string;
  bytes: number;
  width: number;
  height: number;
  frames: number;
  fps: number;
  seconds: number;
}

export interface RenderVideoOptions {
  /** Called with increasing integers 0..100; 100 only once the file is in place. */
  onProgress?: (percent: number) => void;
  signal?: AbortSignal;
}

export const VIDEO_MIN_SIDE = 16;
export const VIDEO_MAX_SIDE = 1920;
/** 1920x1080 (either orientation) is the largest frame area accepted. */
export const VIDEO_MAX_PIXELS = 1920 * 1080;
export const VIDEO_MIN_SECONDS = 1;
export const VIDEO_MAX_SECONDS = 20;
export const VIDEO_DEFAULT_FPS = 24;
export const VIDEO_MAX_FPS = 60;
export const VIDEO_MAX_REFERENCE_BYTES = 50 * 1024 * 1024;
