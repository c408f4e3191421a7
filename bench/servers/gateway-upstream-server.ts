// The gateway in front of an OpenAI-compatible upstream (an emulator the bench started):
// provider "up" at MGW_BENCH_UPSTREAM_URL with MGW_BENCH_UPSTREAM_KEY, model "up-image" on it,
// and one balance key. Started as `mgw serve` starts it: the owner's config.json in the data dir
// is read with loadSettings and its limits handed to createGateway. That config.json raises the
// balance request windows (docs: the windows are the owner's to change there), because the
// bench's load generator is one key sending thousands of requests a second.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSettings, settingsPath } from '../../electron/core/config.js';
import { createGateway, startBackgroundWork } from '../../electron/core/gateway.js';
import { startHttpServer } from '../../electron/http/server.js';

const dataDir = mkdtempSync(join(tmpdir(), 'mgw-bench-up-'));
const config = { limits: { requests: { balance: { perSecond: 1_000_000, perMinute: 10_000_000, perHour: 100_000_000 } } } };
writeFileSync(settingsPath(dataDir), `${JSON.stringify(config, null, 2)}\n`);
const settings = loadSettings(dataDir);

const gateway = await createGateway({ dataDir, limits: settings.limits });
await gateway.providerConfigs.add({ id: 'up', kind: 'openai', baseUrl: process.env.MGW_BENCH_UPSTREAM_URL!, apiKey: process.env.MGW_BENCH_UPSTREAM_KEY! });
const base = (await gateway.catalog.find('local-image'))!.record;
await gateway.catalog.put({
  record: { ...base, id: 'up-image', capabilities: { ...base.capabilities, supported_sizes: ['1024x1024'] } },
  providerId: 'up',
  upstreamModel: 'gpt-image-1',
});
const { token } = await gateway.keys.create({ access: 'balance', balanceNano: 1_000_000 * 1_000_000_000, label: 'bench' });
await startBackgroundWork(gateway);
const server = await startHttpServer(gateway, {
  host: '127.0.0.1',
  port: 0,
  allowedHosts: settings.allowedHosts,
  allowedOrigins: settings.allowedOrigins,
  allowAnonymous: settings.allowAnonymous,
});
process.stdout.write(`TOKEN ${token}\nPORT ${server.port}\n`);
