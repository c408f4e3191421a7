// The registry hands the scheduler's push listener to every provider that pushes video updates,
// configured ones included (a local engine's event stream), and lets go of an adapter it replaces.
import { afterEach, expect, it } from 'vitest';
import { ENGINE_KINDS } from '../../electron/core/providers/engine-kinds.js';
import type { EngineKind } from '../../electron/core/providers/engine-kind.js';
import type { VideoPoll, VideoProvider } from '../../electron/core/providers/provider.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

class PushingProvider implements VideoProvider {
  readonly kind = 'sdcpp';
  readonly listeners: ((taskId: string) => void)[] = [];
  closed = false;
  constructor(readonly id: string) {}
  async submitVideo(): Promise<string> {
    return 'job';
  }
  async pollVideo(): Promise<VideoPoll> {
    return { state: 'queued', progress: 0 };
  }
  async cancelVideo(): Promise<void> {}
  onVideoUpdate(listener: (taskId: string) => void): void {
    this.listeners.push(listener);
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

const built: PushingProvider[] = [];
const fake: EngineKind = {
  build: (config) => {
    const provider = new PushingProvider(config.id);
    built.push(provider);
    return provider;
  },
  check: async () => ({ ok: true, message: 'fake', models: [], facts: [] }),
  discover: async () => [],
};

let t: TestGateway | null = null;
const saved = ENGINE_KINDS.sdcpp;
afterEach(async () => {
  ENGINE_KINDS.sdcpp = saved;
  built.length = 0;
  await t?.close();
  t = null;
});

it('a configured provider built after the listener was given hears it; a replaced one is closed', async () => {
  ENGINE_KINDS.sdcpp = fake;
  t = await startTestGateway({ background: false });
  const heard: string[] = [];
  t.gateway.providers.onVideoUpdate((taskId) => heard.push(taskId));
  await t.gateway.providerConfigs.add({ id: 'gpu', kind: 'sdcpp', baseUrl: 'http://127.0.0.1:9' });

  const first = (await t.gateway.providers.video('gpu')) as PushingProvider;
  expect(first).toBe(built[0]);
  first.listeners.forEach((listener) => listener('video_1'));
  expect(heard).toEqual(['video_1']);

  // A changed row rebuilds the adapter: the new one is wired, the old one let go.
  await t.gateway.providerConfigs.update({ id: 'gpu', baseUrl: 'http://127.0.0.1:10' });
  const second = (await t.gateway.providers.video('gpu')) as PushingProvider;
  expect(second).not.toBe(first);
  await expect.poll(() => first.closed).toBe(true);
  second.listeners.forEach((listener) => listener('video_2'));
  expect(heard).toEqual(['video_1', 'video_2']);

  await t.close();
  t = null;
  expect(second.closed).toBe(true);
});

it('the scheduler, started before the provider is built, gives it its listener once', async () => {
  ENGINE_KINDS.sdcpp = fake;
  t = await startTestGateway();
  await t.gateway.providerConfigs.add({ id: 'gpu', kind: 'sdcpp', baseUrl: 'http://127.0.0.1:9' });
  const provider = (await t.gateway.providers.video('gpu')) as PushingProvider;
  expect(provider.listeners).toHaveLength(1);
});
