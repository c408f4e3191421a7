// The upstream setup of upstreams.ts (providers "up" and "fal", their catalog models), with both
// emulators in processes of their own: the gateway's event loop and the upstream's are then
// independent, as with a real provider, so a timeout test measures the gateway's own deadline
// (not a loop both share). The emulators are driven over IPC: await every inject.
import { startEmulatorProcess, type RemoteEmulator } from '../emulators/index.js';
import type { TestGateway } from './gateway.js';
import { startUpstreams, type UpstreamOptions, type UpstreamSetup } from './upstreams.js';

export interface RemoteUpstreamSetup {
  t: TestGateway;
  openai: RemoteEmulator;
  fal: RemoteEmulator;
  logs: UpstreamSetup['logs'];
  close(): Promise<void>;
}

export async function startRemoteUpstreams(options: UpstreamOptions = {}): Promise<RemoteUpstreamSetup> {
  const [openai, fal] = await Promise.all([
    startEmulatorProcess('openai', { exactSize: true, videoDurationMs: options.openaiVideoMs ?? 200, stuckVideos: options.stuck ?? false }),
    startEmulatorProcess('fal', { durationMs: options.falMs ?? 200, stuck: options.stuck ?? false }),
  ]);
  // The same gateway, providers and models as startUpstreams, its providers pointed at the other processes.
  const local = await startUpstreams(options);
  await Promise.all([local.openai.close(), local.fal.close()]);
  await local.t.gateway.providerConfigs.update({ id: 'up', baseUrl: openai.baseUrl, apiKey: openai.apiKey });
  await local.t.gateway.providerConfigs.update({ id: 'fal', baseUrl: fal.baseUrl, apiKey: fal.apiKey });
  return {
    t: local.t,
    openai,
    fal,
    logs: local.logs,
    async close() {
      await local.t.close();
      await Promise.all([openai.close(), fal.close()]);
    },
  };
}
