// The gateway as the catalog benchmark measures it: a fresh data dir, default settings.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGateway } from '../../electron/core/gateway.js';
import { startHttpServer } from '../../electron/http/server.js';

const gateway = await createGateway({ dataDir: mkdtempSync(join(tmpdir(), 'mgw-bench-')) });
const server = await startHttpServer(gateway, { host: '127.0.0.1', port: 0 });
process.stdout.write(`PORT ${server.port}\n`);
