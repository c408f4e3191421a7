// Starts the HTTP door on a host and port (0 picks a free one) and reports the /v1 base URL.
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { UploadBudget } from './upload-budget.js';
import type { Gateway } from '../core/gateway.js';
import { buildHttpApp, type HttpOptions } from './app.js';
import { closeGracefully, trackSockets } from './graceful-close.js';

export interface ServerOptions {
  host: string;
  port: number;
  allowedHosts?: readonly string[];
  allowedOrigins?: readonly string[];
  logger?: FastifyBaseLogger;
  studio?: HttpOptions['studio'];
  allowAnonymous?: boolean;
  /** How long close() lets requests in flight finish before cutting them (default 10 s). */
  closeGraceMs?: number;
  idleTimeoutMs?: number;
  uploadBudgetBytes?: number;
  /** The bound itself, shared (a test watches what it holds). */
  uploadBudget?: UploadBudget;
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
    ...(options.allowedOrigins ? { allowedOrigins: options.allowedOrigins } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.studio ? { studio: options.studio } : {}),
    ...(options.allowAnonymous ? { allowAnonymous: true } : {}),
    ...(options.idleTimeoutMs ? { idleTimeoutMs: options.idleTimeoutMs } : {}),
    ...(options.uploadBudgetBytes ? { uploadBudgetBytes: options.uploadBudgetBytes } : {}),
    ...(options.uploadBudget ? { uploadBudget: options.uploadBudget } : {}),
  });
  const sockets = trackSockets(app.server);
  await app.listen({ host: options.host, port: options.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const host = urlHost(options.host);
  const studioUrl = options.studio ? `http://${host}:${port}/studio/#token=${options.studio.ownerToken}` : null;
  return { app, port, baseUrl: `http://${host}:${port}/v1`, studioUrl, close: () => closeGracefully(app, sockets, options.closeGraceMs) };
}

/**
 * The host of the URLs announced for a bind address. A wildcard bind (0.0.0.0, ::) is reached
 * over loopback; its own address is no URL to open, and the Host check refuses it.
 */
function urlHost(bind: string): string {
  if (bind === '0.0.0.0') return '127.0.0.1';
  if (bind === '::') return '[::1]';
  return bind.includes(':') ? `[${bind}]` : bind;
}
