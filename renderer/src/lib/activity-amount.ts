// What the Activity view's money column says for one request. A video creation pays nothing when
// it is made: its amount is the hold, charged only if the video completes (released otherwise).
import type { ActivityEntry } from '../../../shared/studio-contract';
import { formatUsd } from './format';

const isVideoCreation = (e: Pick<ActivityEntry, 'method' | 'endpoint'>): boolean =>
  (e.method === 'POST' && e.endpoint === '/v1/videos') || (e.method === 'STUDIO' && e.endpoint === 'videos.create');

export function activityAmount(e: Pick<ActivityEntry, 'method' | 'endpoint' | 'cost_usd'>): { text: string; title?: string } {
  if (!isVideoCreation(e) || Number(e.cost_usd) === 0) return { text: formatUsd(e.cost_usd) };
  return {
    text: `held ${formatUsd(e.cost_usd)}`,
    title: 'Reserved when the task was created: charged when the video completes, released if it fails or is cancelled.',
  };
}
