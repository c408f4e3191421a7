// Video state arrives from three sources (create/cancel replies, videos.updated events, list
// reloads) in no guaranteed order; never let an older snapshot overwrite a newer one.
import type { VideoStatus } from '../../../shared/api-types';
import type { StudioVideo } from '../../../shared/studio-contract';

const STAGE: Record<VideoStatus, number> = { queued: 0, in_progress: 1, completed: 2, failed: 2, timeout: 2 };

export const isActive = (video: Pick<StudioVideo, 'status'>): boolean =>
  video.status === 'queued' || video.status === 'in_progress';

/** The more advanced of two snapshots of one task; on a tie the incoming one. */
export function newerVideo(current: StudioVideo, incoming: StudioVideo): StudioVideo {
  const a = STAGE[current.status];
  const b = STAGE[incoming.status];
  if (b !== a) return b > a ? incoming : current;
  if (a === 2) return current.status === incoming.status ? incoming : current; // terminal is final
  return incoming.progress >= current.progress ? incoming : current;
}

/** Replaces the task in place (keeping list order), or puts an unknown one first. */
export function upsertVideo(videos: StudioVideo[], incoming: StudioVideo): StudioVideo[] {
  const index = videos.findIndex((video) => video.id === incoming.id);
  if (index < 0) return [incoming, ...videos];
  const merged = newerVideo(videos[index]!, incoming);
  if (merged === videos[index]) return videos;
  const next = videos.slice();
  next[index] = merged;
  return next;
}

/** A fresh list from the server, keeping any newer snapshot we already hold. */
export function mergeList(current: StudioVideo[], fresh: StudioVideo[]): StudioVideo[] {
  const known = new Map(current.map((video) => [video.id, video]));
  return fresh.map((video) => {
    const held = known.get(video.id);
    return held ? newerVideo(held, video) : video;
  });
}
