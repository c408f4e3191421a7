// The gateway in front of an OpenAI-compatible upstream (an emulator the bench started):
// provider "up" at MGW_BENCH_UPSTREAM_URL with MGW_BENCH_UPSTREAM_KEY, model "up-image" on it.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGateway, startBackgroundWork } from '../../electron/core/gateway.js';
import { startHttpServer } from '../../electron/http/server.js';

/** Load generators are one key: the owner lifts its request windows, as the README shows. */
const BENCH_LIMITS = { requests: { balance: { perSecond: 1_000_000, perMinute: 10_000_000, perHour: 100_000_000 } } };

const gateway = await createGateway({ dataDir: mkdtempSync(join(tmpdir(), 'mgw-bench-up-')), limits: BENCH_LIMITS });
await gateway.providerConfigs.add({ id: 'up', kind: 'openai', baseUrl: process.env.MGW_BENCH_UPSTREAM_URL!, apiKey: process.env.MGW_BENCH_UPSTREAM_KEY! });
const base = (await gateway.catalog.find('local-image'))!.record;
await gateway.catalog.put({
  record: { ...base, id: 'up-image', capabilities: { ...base.capabilities, supported_sizes: ['256x256', '1024x1024'] } },
  providerId: 'up',
  upstreamModel: 'gpt-image-1',
});
const { token } = await gateway.keys.create({ access: 'balance', balanceNano: 1_000_000 * 1_000_000_000, label: 'bench' });
await startBackgroundWork(gateway);
const server = await startHttpServer(gateway, { host: '127.0.0.1', port: 0 });
process.stdout.write(`TOKEN ${token}\nPORT ${server.port}\n`);
