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

export interface JobMessage {
  type: 'job';
  id: number;
  job: EncodeJob;
}

export type WorkerMessage =
  | { type: 'progress'; id: number; percent: number }
  | { type: 'done'; id: number; mp4: Uint8Array }
  /** `input` errors are the caller's fault (undecodable reference); others are engine failures. */
  | { type: 'error'; id: number; message: string; input: boolean };
