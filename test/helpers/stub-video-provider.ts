// An in-process video provider whose behaviour a test chooses, for the billing paths that the
// local engine never takes (refusals, upstream failures, stuck tasks, partner URLs).
import { GatewayError } from '../../electron/core/errors.js';
import type { VideoJob, VideoPoll, VideoProvider } from '../../electron/core/providers/provider.js';
import type { Gateway } from '../../electron/core/gateway.js';

export type StubBehaviour = 'stuck' | 'refuse' | 'fail' | 'partner';

export class StubVideoProvider implements VideoProvider {
  readonly kind = 'stub';
  readonly submitted: string[] = [];
  readonly cancelled: string[] = [];
  /** Awaited before each submission decides, so a test can act while a creation is in flight. */
  beforeSubmit: (() => Promise<void>) | null = null;
  constructor(
    readonly id: string,
    public behaviour: StubBehaviour,
  ) {}

  async submitVideo(job: VideoJob): Promise<string> {
    await this.beforeSubmit?.();
    if (this.behaviour === 'refuse') {
      throw new GatewayError('upstream_unavailable', 'The video provider is temporarily unavailable.');
    }
    this.submitted.push(job.taskId);
    return `up-${job.taskId}`;
  }

  async pollVideo(job: VideoJob): Promise<VideoPoll> {
    switch (this.behaviour) {
      case 'fail':
        return { state: 'failed', message: 'The provider could not generate this video.' };
      case 'partner':
        return { state: 'completed', output: { kind: 'url', url: `https://cdn.partner.example/${job.taskId}.mp4` } };
      default:
        return { state: 'in_progress', progress: 42 };
    }
  }

  async cancelVideo(job: VideoJob): Promise<void> {
    this.cancelled.push(job.taskId);
  }
}

/** Registers the stub and a video model record served by it (a copy of local-video's record). */
export async function addStubVideoModel(gateway: Gateway, stub: StubVideoProvider, modelId: string, capabilities: Record<string, unknown> = {}): Promise<void> {
  gateway.providers.register(stub);
  const base = (await gateway.catalog.find('local-video'))!.record;
  await gateway.catalog.put({
    record: {
      ...base,
      id: modelId,
      pricing: { price: 0.1, currency: 'USD', unit: 'second' },
      capabilities: { ...base.capabilities, request_types: ['text-to-video', 'image-to-video'], ...capabilities },
    },
    providerId: stub.id,
    upstreamModel: modelId,
  });
}

export async function waitFor<T>(probe: () => Promise<T | undefined | null | false>, timeoutMs = 30_000, stepMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, stepMs));
  }
}
