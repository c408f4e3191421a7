// The Fastify app: security hooks, the error boundary, and thin /v1 routes over the core.
import multipart from '@fastify/multipart';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Gateway } from '../core/gateway.js';
import { newId } from '../core/ids.js';
import { installErrorBoundary, type KnownRoute } from './error-boundary.js';
import { registerImageRoutes } from './routes/images.js';
import { registerModelRoutes } from './routes/models.js';
import { makeHostGuard } from './security.js';

export interface HttpOptions {
  /** Extra Host header names to answer besides loopback (DNS-rebinding defense). */
  allowedHosts?: readonly string[];
  logger?: FastifyBaseLogger;
}

export async function buildHttpApp(gateway: Gateway, options: HttpOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    genReqId: () => newId('req', 20),
    requestIdHeader: false,
    bodyLimit: 1024 * 1024,
    return503OnClosing: true,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false, allErrors: false } },
  });
  app.decorateRequest('principal', null);

  const knownRoutes: KnownRoute[] = [];
  app.addHook('onRoute', (route) => {
    const pattern = new RegExp(`^${route.url.replace(/:[^/]+/g, '[^/]+')}$`);
    for (const method of [route.method].flat()) knownRoutes.push({ method, pattern });
  });

  app.addHook('onRequest', makeHostGuard(options.allowedHosts ?? []));
  installErrorBoundary(app, () => knownRoutes);
  await app.register(multipart, { throwFileSizeLimit: true });

  registerModelRoutes(app, gateway);
  registerImageRoutes(app, gateway);
  return app;
}
