// Starts the HTTP door on a host and port (0 picks a free one) and reports the /v1 base URL.
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Gateway } from '../core/gateway.js';
import { buildHttpApp, type HttpOptions } from './app.js';

export interface ServerOptions {
  host: string;
  port: number;
  allowedHosts?: readonly string[];
  logger?: FastifyBaseLogger;
  studio?: HttpOptions['studio'];
  allowAnonymous?: boolean;
}

export interface RunningServer {
  app: FastifyInstance;
  port: number;
  /** The public API base, e.g. http://127.0.0.1:8787/v1 */
  baseUrl: string;
  /** The studio page URL with the owner token in its fragment (never sent to the server). */
  studioUrl: string | null;
  close(): Promise<void>;
}

export async function startHttpServer(gateway: Gateway, options: ServerOptions): Promise<RunningServer> {
  const app = await buildHttpApp(gateway, {
    ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.studio ? { studio: options.studio } : {}),
    ...(options.allowAnonymous ? { allowAnonymous: true } : {}),
  });
  await app.listen({ host: options.host, port: options.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  const studioUrl = options.studio ? `http://${host}:${port}/studio/#token=${options.studio.ownerToken}` : null;
  return { app, port, baseUrl: `http://${host}:${port}/v1`, studioUrl, close: () => closeGracefully(app) };
}

const IDLE_SWEEP_MS = 25;

/**
 * Lets requests in flight finish, then stops. Node closes the keep-alive connections that are
 * idle when close() is called, once; a connection whose last response was still being written
 * at that moment (a file piped out, its end a read away) would then sit out the whole 72 s
 * keep-alive timeout. Sweeping idle connections until the server is closed ends those too.
 */
async function closeGracefully(app: FastifyInstance): Promise<void> {
  const sweep = setInterval(() => app.server.closeIdleConnections(), IDLE_SWEEP_MS);
  try {
    await app.close();
  } finally {
    clearInterval(sweep);
  }
}
