// Test harness: a real gateway on a temp data dir, served over real HTTP on a free port.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import type { AccessType } from '../../shared/api-types.js';
import type { Clock } from '../../electron/core/clock.js';
import { createGateway, startBackgroundWork, type Gateway } from '../../electron/core/gateway.js';
import type { SchedulerOptions } from '../../electron/core/videos/video-scheduler.js';
import type { Logger } from '../../electron/core/logger.js';
import type { LimitOverrides } from '../../electron/core/access/limits.js';
import type { UpstreamTimeouts } from '../../electron/core/providers/upstream/upstream-client.js';
import { startHttpServer, type RunningServer } from '../../electron/http/server.js';
import type { BreakerSettings } from '../../electron/core/routing/breaker-settings.js';
import { registerGateway } from './conformance.js';

export function tempDir(prefix = 'mgw-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export interface TestGateway {
  gateway: Gateway;
  server: RunningServer;
  baseUrl: string;
  dataDir: string;
  /** Creates a key with the given access and balance (USD nano) and returns its token. */
  key(access: AccessType, options?: { balanceNano?: number; allowanceNano?: number }): Promise<{ id: string; token: string; accountId: string }>;
  client(token: string): OpenAI;
  close(): Promise<void>;
}

export interface TestGatewayOptions {
  clock?: Clock;
  allowedHosts?: string[];
  scheduler?: SchedulerOptions;
  /** Start the video scheduler (default true). */
  background?: boolean;
  logger?: Logger;
  upstreamTimeouts?: UpstreamTimeouts;
  allowAnonymous?: boolean;
  limits?: LimitOverrides;
  /** Open this data dir (a restart) instead of a new one. */
  dataDir?: string;
  circuitBreaker?: BreakerSettings;
  /** Team mode: this PostgreSQL database instead of SQLite in the data dir. */
  databaseUrl?: string;
  filesDir?: string;
}

/**
 * The database a test gateway opens: the one given, else a fresh PostgreSQL database when the
 * suite runs in the postgres project (MGW_TEST_DIALECT=postgres, see vitest.config.ts), else SQLite.
 */
async function databaseFor(options: TestGatewayOptions): Promise<string | undefined> {
  if (options.databaseUrl) return options.databaseUrl;
  if (process.env.MGW_TEST_DIALECT !== 'postgres') return undefined;
  const { sharedPostgres } = await import('./postgres.js');
  return (await sharedPostgres()).createDatabase('suite');
}

export async function startTestGateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  const dataDir = options.dataDir ?? tempDir();
  const databaseUrl = await databaseFor(options);
  const gateway = await createGateway({
    dataDir,
    ...(databaseUrl ? { databaseUrl } : {}),
    ...(options.filesDir ? { filesDir: options.filesDir } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    scheduler: options.scheduler ?? { intervalMs: 100 },
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.upstreamTimeouts ? { upstreamTimeouts: options.upstreamTimeouts } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.circuitBreaker ? { circuitBreaker: options.circuitBreaker } : {}),
  });
  if (options.background !== false) await startBackgroundWork(gateway);
  const server = await startHttpServer(gateway, {
    host: '127.0.0.1',
    port: 0,
    ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
    ...(options.allowAnonymous ? { allowAnonymous: true } : {}),
  });
  registerGateway(server.baseUrl);
  return {
    gateway,
    server,
    baseUrl: server.baseUrl,
    dataDir,
    async key(access, opts = {}) {
      const created = await gateway.keys.create({ access, ...opts });
      return { id: created.key.id, token: created.token, accountId: created.key.account_id };
    },
    client(token: string) {
      return new OpenAI({ apiKey: token, baseURL: server.baseUrl, maxRetries: 0, timeout: 30_000 });
    },
    async close() {
      await server.close();
      await gateway.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const USD = 1_000_000_000;
