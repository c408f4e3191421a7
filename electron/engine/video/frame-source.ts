/** What the encode loop needs from a frame producer. */
import type { YuvFrame } from './yuv-frame.js';

export interface FrameSource {
  /** Paint frame `index` (0-based) completely into `frame`. */
  render(index: number, frame: YuvFrame): void;
}

/** Linear ramp from black over the first `fadeIn` s and to black over the last `fadeOut` s. */
export function fadeLevel(time: number, duration: number, fadeIn: number, fadeOut: number): number {
  let k = 1;
  if (fadeIn > 0 && time < fadeIn) k = Math.min(k, time / fadeIn);
  if (fadeOut > 0 && duration - time < fadeOut) k = Math.min(k, Math.max(0, duration - time) / fadeOut);
  return k < 0 ? 0 : k;
}
