// The refusal of a finished ComfyUI video that is not an MP4 (upstream/video-file.ts saves and
// checks it). A workflow may save WebM (SaveWEBM, VHS video/webm), a GIF or a QuickTime file, and
// the fix is in the workflow's output node, so the message says which settings save MP4.
export function notMp4Message(what: string): string {
  return `The engine produced ${what}, not an MP4; change the workflow's output node to save MP4 (H.264): SaveVideo with format mp4, or VHS_VideoCombine with format video/h264-mp4.`;
}
