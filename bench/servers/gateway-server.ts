// The gateway as the benchmarks measure it: a fresh data dir, default settings, the scheduler
// running, and one funded key whose token is printed for benches that create tasks.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGateway, startBackgroundWork } from '../../electron/core/gateway.js';
import { startHttpServer } from '../../electron/http/server.js';

/** Load generators are one key: the owner lifts its request windows, as the docs show. */
const BENCH_LIMITS = { requests: { balance: { perSecond: 1_000_000, perMinute: 10_000_000, perHour: 100_000_000 } } };

const gateway = await createGateway({ dataDir: mkdtempSync(join(tmpdir(), 'mgw-bench-')), limits: BENCH_LIMITS });
await startBackgroundWork(gateway);
const { token } = await gateway.keys.create({ access: 'balance', balanceNano: 1_000 * 1_000_000_000, label: 'bench' });
const server = await startHttpServer(gateway, { host: '127.0.0.1', port: 0 });
process.stdout.write(`TOKEN ${token}\nPORT ${server.port}\n`);
