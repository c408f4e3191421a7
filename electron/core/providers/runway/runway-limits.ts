// The durations Runway's video models render, as the SDK types them (sdk-node:
// src/resources/image_to_video.ts and text_to_video.ts: veo3 `duration: 8`, veo3.1 and
// veo3.1_fast `4 | 6 | 8`, gen4.5 "an integer from 2 to 10"). A route to one of them for a
// record listing other durations is refused when it is put; ratios are snapped, never refused.
import type { ModelRecord } from '../../../../shared/api-types.js';
import { integerList } from '../../catalog/capability-read.js';
import type { RouteProblem } from '../route-problem.js';

const DURATIONS: Record<string, readonly number[]> = {
  veo3: [8],
  'veo3.1': [4, 6, 8],
  'veo3.1_fast': [4, 6, 8],
  'gen4.5': [2, 3, 4, 5, 6, 7, 8, 9, 10],
};

export function runwayRouteProblem(record: ModelRecord, upstreamModel: string): RouteProblem | null {
  const durations = DURATIONS[upstreamModel];
  if (record.model_type !== 'video' || !durations) return null;
  const seconds = integerList(record.capabilities.supported_seconds).find((s) => !durations.includes(s));
  if (seconds === undefined) return null;
  return { param: 'capabilities.supported_seconds', message: `${upstreamModel} renders ${durations.join(', ')} seconds, not ${seconds}` };
}
