import type { FastifyInstance } from 'fastify';
import type { Gateway } from '../../core/gateway.js';

/** GET /v1/models: the live catalog, no auth. The body is pre-serialized by the catalog. */
export function registerModelRoutes(app: FastifyInstance, gateway: Gateway): void {
  app.get('/v1/models', async (_request, reply) => {
    const body = await gateway.catalog.listBody();
    return reply.type('application/json; charset=utf-8').send(body);
  });
}
