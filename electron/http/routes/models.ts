import type { FastifyInstance } from 'fastify';
import type { Gateway } from '../../core/gateway.js';
import { routeNotFound } from '../error-boundary.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * GET /v1/models: the live catalog, no auth. The body is pre-serialized by the catalog; the
 * common case (cache fresh) answers synchronously, without a promise per request.
 */
export function registerModelRoutes(app: FastifyInstance, gateway: Gateway): void {
  app.get('/v1/models', (_request, reply) => {
    const body = gateway.catalog.freshBody();
    if (body) {
      reply.header('content-type', JSON_TYPE).send(body);
      return;
    }
    return gateway.catalog.listBody().then((fresh) => reply.header('content-type', JSON_TYPE).send(fresh));
  });

  // GET /v1/models/{id}: one record of that list (the OpenAI SDKs' models.retrieve), no auth
  // either. A wildcard, as ids may hold slashes (fal-ai/veo3), sent as they are or as %2F.
  app.get<{ Params: { '*': string } }>('/v1/models/*', async (request) => {
    const id = request.params['*'];
    if (id === '') throw routeNotFound(request); // GET /v1/models/ is no model, as /v1/videos/ is no task
    return gateway.catalog.listed(id);
  });
}
