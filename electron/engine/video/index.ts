/**
 * Built-in offline video engine: prompt-driven animated scenes (text-to-video) or a
 * Ken Burns move over a reference image (image-to-video), encoded to H.264 MP4 in
 * worker threads. Call shutdownVideoWorkers() on app exit / after tests.
 */
export { renderVideo, shutdownVideoWorkers } from './render.js';
export { resolveVideoSize } from './size.js';
export {
  VIDEO_DEFAULT_FPS, VIDEO_MAX_FPS, VIDEO_MAX_PIXELS, VIDEO_MAX_SECONDS, VIDEO_MAX_SIDE, VIDEO_MIN_SECONDS, VIDEO_MIN_SIDE,
} from './types.js';
export type { RenderedVideo, RenderVideoInput, RenderVideoOptions } from './types.js';
export { transcodeToMp4, VideoTranscodeError } from './transcode.js';
export type { TranscodedVideo, TranscodeOptions } from './transcode.js';
