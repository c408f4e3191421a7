/** Messages between the pool (main thread) and encode workers. */

export interface EncodeJob {
  prompt: string;
  width: number;
  height: number;
  fps: number;
  frames: number;
  seed: number;
  /** Reference image bytes for image-to-video (copied by structured clone). */
  reference: Uint8Array | null;
}

/** Re-encode a video file another engine produced (an MJPEG AVI, an animated WebP) to H.264 MP4. */
export interface TranscodeJob {
  inputPath: string;
}

/** What a transcode found in its input (a render knows these beforehand). */
export interface TranscodedInfo {
  width: number;
  height: number;
  fps: number;
  frames: number;
}

export type JobMessage = { type: 'job'; id: number; job: EncodeJob } | { type: 'transcode'; id: number; job: TranscodeJob };

export type WorkerMessage =
  | { type: 'progress'; id: number; percent: number }
  | { type: 'done'; id: number; mp4: Uint8Array; info?: TranscodedInfo }
  /** `input` errors are the caller's fault (undecodable reference); others are engine failures. */
  | { type: 'error'; id: number; message: string; input: boolean };
