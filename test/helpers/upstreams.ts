// A gateway with both emulated upstreams configured as providers, and catalog models on them.
import type { ModelRecord } from '../../shared/api-types.js';
import type { Logger } from '../../electron/core/logger.js';
import { startFalEmulator, startOpenAIEmulator, type FalEmulator, type OpenAIEmulator } from '../emulators/index.js';
import { startTestGateway, type TestGateway, type TestGatewayOptions } from './gateway.js';

export interface UpstreamSetup {
  t: TestGateway;
  openai: OpenAIEmulator;
  fal: FalEmulator;
  logs: { level: string; fields: Record<string, unknown>; message?: string }[];
  close(): Promise<void>;
}

/** A logger that keeps every line, so tests can check what was (and was not) logged. */
export function capturingLogger(lines: UpstreamSetup['logs']): Logger {
  const at = (level: string) => (fields: object, message?: string) => void lines.push({ level, fields: fields as Record<string, unknown>, ...(message ? { message } : {}) });
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

export interface UpstreamOptions extends Omit<TestGatewayOptions, 'logger'> {
  totalTimeoutMs?: number;
  /** queued -> completed time of the emulators' tasks (default 200 ms each). */
  openaiVideoMs?: number;
  falMs?: number;
  /** The emulators' tasks never complete. */
  stuck?: boolean;
  /** max_task_seconds of the up-video and fal-video models (default 60). */
  maxTaskSeconds?: number;
}

export async function startUpstreams(options: UpstreamOptions = {}): Promise<UpstreamSetup> {
  const logs: UpstreamSetup['logs'] = [];
  const { totalTimeoutMs, openaiVideoMs, falMs, stuck, maxTaskSeconds = 60, ...gatewayOptions } = options;
  const t = await startTestGateway({
    upstreamTimeouts: { connectMs: 2_000, totalMs: totalTimeoutMs ?? 10_000 },
    ...gatewayOptions,
    logger: capturingLogger(logs),
  });
  const openai = await startOpenAIEmulator({ exactSize: true, videoDurationMs: openaiVideoMs ?? 200, stuckVideos: stuck ?? false });
  const fal = await startFalEmulator({ durationMs: falMs ?? 200, stuck: stuck ?? false });
  await t.gateway.providerConfigs.add({ id: 'up', kind: 'openai', baseUrl: openai.baseUrl, apiKey: openai.apiKey });
  await t.gateway.providerConfigs.add({ id: 'fal', kind: 'fal', baseUrl: fal.baseUrl, apiKey: fal.apiKey });

  const local = (id: string) => t.gateway.catalog.find(id).then((e) => structuredClone(e!.record));
  const image = await local('local-image');
  const video = await local('local-video');
  const put = (record: ModelRecord, providerId: string, upstreamModel: string) => t.gateway.catalog.put({ record, providerId, upstreamModel });
  await put({ ...image, id: 'up-image', owned_by: 'up', pricing: { input: 10, output: 40, currency: 'USD', unit: '1M tokens' }, capabilities: { ...image.capabilities, supported_sizes: ['1024x1024', '1536x1024', '1024x1536'] } }, 'up', 'gpt-image-1');
  await put(
    { ...video, id: 'up-video', owned_by: 'up', pricing: { price: 0.1, currency: 'USD', unit: 'second' }, capabilities: { ...video.capabilities, supported_seconds: [4, 8], supported_sizes: ['1280x720'], max_task_seconds: maxTaskSeconds } },
    'up',
    'sora-2',
  );
  await put(
    {
      ...video,
      id: 'fal-video',
      owned_by: 'fal',
      pricing: { price: 0.07, currency: 'USD', unit: 'second' },
      capabilities: { ...video.capabilities, supported_seconds: [5, 10], supported_sizes: ['720p'], partner_video: true, partner_routes: [{ route: 'fal-ai/kling-video' }], max_task_seconds: maxTaskSeconds },
    },
    'fal',
    'fal-ai/kling-video/v2/master/text-to-video',
  );
  await put({ ...image, id: 'fal-image', owned_by: 'fal', pricing: { input: 1, output: 20, currency: 'USD', unit: '1M tokens' } }, 'fal', 'fal-ai/flux/dev');
  return {
    t,
    openai,
    fal,
    logs,
    async close() {
      await t.close();
      await openai.close();
      await fal.close();
    },
  };
}
