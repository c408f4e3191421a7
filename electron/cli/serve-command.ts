import pino from 'pino';
import { loadSettings } from '../core/config.js';
import { createGateway, startBackgroundWork } from '../core/gateway.js';
import { createStudio } from '../core/studio/studio.js';
import { loadStudioToken, sharedStudioToken } from '../core/studio/studio-token.js';
import { resolve } from 'node:path';
import { appVersion } from '../project-paths.js';
import { startHttpServer } from '../http/server.js';
import { parse, portArg, stringOpt, UsageError } from './args.js';

const USAGE = 'mgw serve [--host 127.0.0.1] [--port 8787] [--log-level info] [--data-dir DIR] [--database URL] [--files-dir DIR]';
export const DEFAULT_PORT = 8787;
const LOG_LEVELS = ['silent', 'fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;

/** --log-level, else MGW_LOG_LEVEL (empty is unset), else info (per-request lines are debug: off). */
function logLevel(given: string | undefined): string {
  const level = given ?? (process.env.MGW_LOG_LEVEL || 'info');
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    const from = given === undefined ? 'MGW_LOG_LEVEL' : '--log-level';
    throw new UsageError(`${from} must be one of ${LOG_LEVELS.join(', ')} (got "${level}")`);
  }
  return level;
}

/** Runs the gateway until SIGINT/SIGTERM. Logs go to stderr as JSON lines; stdout is for people. */
export async function serveCommand(argv: string[], dataDir: string, databaseUrl: string | null = null): Promise<void> {
  const args = parse(argv, { host: { type: 'string' }, port: { type: 'string' }, 'log-level': { type: 'string' }, 'files-dir': { type: 'string' } }, { min: 0, max: 0, usage: USAGE });
  const filesDirArg = stringOpt(args, 'files-dir');
  if (filesDirArg === '') throw new UsageError(`--files-dir needs a directory (usage: ${USAGE})`);
  const filesDir = filesDirArg === undefined ? dataDir : resolve(filesDirArg);
  const host = stringOpt(args, 'host') ?? '127.0.0.1';
  // Node binds an empty host on every interface: `--host "$UNSET"` must not open the gateway to the network.
  if (host === '') throw new UsageError(`--host needs a host name or address (usage: ${USAGE})`);
  const port = portArg(stringOpt(args, 'port'), DEFAULT_PORT);
  const level = logLevel(stringOpt(args, 'log-level'));
  const settings = loadSettings(dataDir);
  const logger = pino(
    { level, redact: ['req.headers.authorization', '*.token', '*.api_key'] },
    pino.destination(2),
  );

  const gateway = await createGateway({ dataDir, databaseUrl, filesDir, logger, limits: settings.limits, circuitBreaker: settings.circuitBreaker, leaseSeconds: settings.team.leaseSeconds });
  try {
    await startBackgroundWork(gateway);
  } catch (error) {
    await gateway.close(); // a refused claim (the data dir is served already) leaves nothing open
    throw error;
  }
  let apiBaseUrl: string | null = null;
  const studio = await createStudio(gateway, { version: appVersion(), apiBaseUrl: () => apiBaseUrl });
  // A team's instances share one owner token (in the database): the studio works against any of them.
  const ownerToken = gateway.team ? await sharedStudioToken(gateway.store) : loadStudioToken(dataDir);
  const server = await startHttpServer(gateway, {
    host,
    port,
    allowedHosts: settings.allowedHosts,
    allowedOrigins: settings.allowedOrigins,
    allowAnonymous: settings.allowAnonymous,
    logger,
    studio: { studio, ownerToken },
  });
  apiBaseUrl = server.baseUrl;

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await server.close();
    studio.dispose();
    await gateway.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  // Announced once a stop signal is handled: whoever reads these lines may stop it at once.
  const where = gateway.team ? `data dir ${dataDir}, database ${gateway.store.path}, files ${filesDir}, instance ${gateway.team.id}` : `data dir ${dataDir}`;
  process.stdout.write(`mgw: listening on ${server.baseUrl} (${where})\n`);
  process.stdout.write(`mgw: studio ${server.studioUrl}\n`);
}
