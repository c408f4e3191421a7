// What OpenAI's own models accept, as the openai SDK types them (resources/videos.ts VideoSeconds
// and VideoSize, resources/images.ts `size` per model). A route to one of these models for a
// record that lists more is refused when it is put; any other model behind an OpenAI-compatible
// server is the owner's to describe.
import type { ModelRecord } from '../../../../shared/api-types.js';
import { integerList, stringList } from '../../catalog/capability-read.js';
import { namedVideoSize } from '../../catalog/video-sizes.js';
import type { RouteProblem } from '../route-problem.js';

const SORA_SECONDS = [4, 8, 12];
const VIDEO_SIZES: Record<string, readonly string[]> = {
  'sora-2': ['720x1280', '1280x720'],
  'sora-2-pro': ['720x1280', '1280x720', '1024x1792', '1792x1024'],
};
const GPT_IMAGE = ['1024x1024', '1024x1536', '1536x1024'];
const IMAGE_SIZES: Record<string, readonly string[]> = {
  'gpt-image-1': GPT_IMAGE,
  'gpt-image-1-mini': GPT_IMAGE,
  'gpt-image-1.5': GPT_IMAGE,
  'dall-e-3': ['1024x1024', '1792x1024', '1024x1792'],
  'dall-e-2': ['256x256', '512x512', '1024x1024'],
};

export function openaiRouteProblem(record: ModelRecord, upstreamModel: string): RouteProblem | null {
  const caps = record.capabilities;
  const videoSizes = VIDEO_SIZES[upstreamModel];
  if (record.model_type === 'video' && videoSizes) {
    const seconds = integerList(caps.supported_seconds).find((s) => !SORA_SECONDS.includes(s));
    if (seconds !== undefined) return { param: 'capabilities.supported_seconds', message: `${upstreamModel} renders ${SORA_SECONDS.join(', ')} seconds, not ${seconds}` };
    const size = stringList(caps.supported_sizes).find((s) => !videoSizes.includes(namedVideoSize(s) ?? s));
    if (size !== undefined) return { param: 'capabilities.supported_sizes', message: `${upstreamModel} renders ${videoSizes.join(', ')}, not ${size}` };
  }
  const imageSizes = IMAGE_SIZES[upstreamModel];
  if (record.model_type === 'image' && imageSizes) {
    const size = stringList(caps.supported_sizes).find((s) => !imageSizes.includes(s));
    if (size !== undefined) return { param: 'capabilities.supported_sizes', message: `${upstreamModel} draws ${imageSizes.join(', ')}, not ${size}` };
  }
  return null;
}
