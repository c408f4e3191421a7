// Runway's outputs brought into the gateway: its output URLs are signed links on its storage
// host that expire within 24-48 hours ("download the assets and store them in your own storage",
// the tasks reference), so a finished video is copied into the data dir at once and an image
// fetched at once. They are fetched without the key (another host), following a CDN's redirects.
import type { UpstreamClient } from '../upstream/upstream-client.js';
import { invalidResponse } from '../upstream/upstream-errors.js';
import { EMPTY_FILE, notAnMp4Video, saveMp4 } from '../upstream/video-file.js';
import { RUNWAY } from './runway-mapping.js';

const MAX_VIDEO_BYTES = 2 * 1024 * 1024 * 1024;
/** A large video on a slow link may take longer than an API call. */
const DOWNLOAD_TIMEOUT_MS = 600_000;

/**
 * Saves the video at `url` at `outputPath` (upstream/video-file.ts: streamed, checked to be an
 * MP4). Resolves null when the MP4 is in place, or the reason it is not one; a failed fetch
 * throws (its GatewayError), and so does an empty answer, which a fresh URL may mend.
 */
export async function saveVideo(http: UpstreamClient, url: string, outputPath: string): Promise<string | null> {
  const stream = await http.open({ method: 'GET', url, followRedirects: 3, timeoutMs: DOWNLOAD_TIMEOUT_MS }, MAX_VIDEO_BYTES);
  const what = await saveMp4(stream.body, outputPath);
  if (what === EMPTY_FILE) throw invalidResponse('the video at the output URL is empty');
  return what === null ? null : notAnMp4Video(RUNWAY, what);
}
