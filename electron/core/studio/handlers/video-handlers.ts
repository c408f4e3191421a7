import type { StudioVideo } from '../../../../shared/studio-contract.js';
import type { VideoTask } from '../../../../shared/api-types.js';
import { formatUsd, usdToNano } from '../../billing/money.js';
import { integerList } from '../../catalog/capability-read.js';
import { GatewayError, invalid } from '../../errors.js';
import { checkRequestType, resolveVideoModel, type ReferenceField } from '../../videos/video-request.js';
import { pricePerSecond, videoHoldFor } from '../../videos/video-pricing.js';
import type { StudioContext, StudioHandlers } from '../studio-context.js';
import { referenceFromFile } from './image-handlers.js';

/** The studio's reference is one file under `reference`, not /v1's multipart input_reference. */
const STUDIO_REFERENCE: ReferenceField = { param: 'reference', howToSend: 'under reference' };

/** Studio tasks point at their media path; the HTTP content URL is meaningless over IPC. */
const studioUrl = (id: string): string => `studio-media:videos/${id}.mp4`;

export function toStudioVideo(task: VideoTask): StudioVideo {
  const local = task.status === 'completed' && task.outputs[0] === studioUrl(task.id);
  return { ...task, outputs: local ? [] : task.outputs, media: local ? `videos/${task.id}.mp4` : null };
}

export function videoHandlers(ctx: StudioContext): Pick<StudioHandlers, 'videos.quote' | 'videos.create' | 'videos.list' | 'videos.cancel'> {
  const { gateway, owner } = ctx;
  return {
    'videos.quote': async (input) => {
      const entry = await resolveVideoModel(gateway.catalog, input.model);
      const seconds = integerList(entry.record.capabilities.supported_seconds);
      if (!seconds.includes(input.seconds)) {
        throw invalid(`${input.seconds} seconds is not supported by ${entry.record.id}; supported: ${seconds.join(', ')}.`, 'seconds');
      }
      checkRequestType(entry.record, input.request_type);
      return {
        hold_usd: formatUsd(videoHoldFor(owner, entry.record, entry.routes[0]!.upstreamModel, input.request_type, input.seconds)),
        price_per_second_usd: formatUsd(usdToNano(pricePerSecond(entry.record, entry.routes[0]!.upstreamModel, input.request_type))),
      };
    },
    'videos.create': async (input) => {
      const fields: Record<string, unknown> = { model: input.model, prompt: input.prompt, seconds: input.seconds };
      if (input.size !== undefined) fields.size = input.size;
      if (input.request_type !== undefined) fields.request_type = input.request_type;
      const references = input.reference ? [referenceFromFile(input.reference, STUDIO_REFERENCE.param)] : [];
      const task = await gateway.videos.create(
        owner,
        { fields, references, transport: 'multipart', referenceField: STUDIO_REFERENCE },
        input.idempotency_key,
        studioUrl,
      );
      return { video: toStudioVideo(task) };
    },
    'videos.list': async (input) => {
      const list = await gateway.videos.list(owner, { limit: input.limit ?? 50 }, studioUrl);
      return { videos: list.data.map(toStudioVideo) };
    },
    'videos.cancel': async (input) => ({ video: toStudioVideo(await gateway.videos.cancel(owner, input.id, studioUrl)) }),
  };
}

/** The owner's task for a push event, or null when the task is someone else's. */
export async function ownerVideo(ctx: StudioContext, taskId: string): Promise<StudioVideo | null> {
  try {
    return toStudioVideo(await ctx.gateway.videos.get(ctx.owner, taskId, studioUrl));
  } catch (error) {
    if (error instanceof GatewayError && error.code === 'not_found') return null;
    throw error;
  }
}
