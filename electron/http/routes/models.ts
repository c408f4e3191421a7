import type { FastifyInstance } from 'fastify';
import type { Gateway } from '../../core/gateway.js';
import { routeNotFound } from '../error-boundary.js';
import { ModelIdParams, ModelList, ModelRecord } from '../schemas.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * GET /v1/models: the live catalog, no auth. The body is pre-serialized by the catalog; the
 * common case (cache fresh) answers synchronously, without a promise per request.
 */
export function registerModelRoutes(app: FastifyInstance, gateway: Gateway): void {
  app.get(
    '/v1/models',
    {
      config: {
        openapi: {
          operationId: 'listModels',
          summary: 'The live model catalog (no token needed)',
          auth: 'none',
          responses: { 200: { description: 'Every model record.', schema: ModelList } },
          errors: [],
        },
      },
    },
    (_request, reply) => {
      const body = gateway.catalog.freshBody();
      if (body) {
        reply.header('content-type', JSON_TYPE).send(body);
        return;
      }
      return gateway.catalog.listBody().then((fresh) => reply.header('content-type', JSON_TYPE).send(fresh));
    },
  );

  // GET /v1/models/{id}: one record of that list (the OpenAI SDKs' models.retrieve), no auth
  // either. A wildcard, as ids may hold slashes (fal-ai/veo3), sent as they are or as %2F.
  app.get<{ Params: ModelIdParams }>(
    '/v1/models/*',
    {
      schema: { params: ModelIdParams },
      config: {
        openapi: {
          operationId: 'retrieveModel',
          summary: 'One model record (no token needed)',
          description: 'An id with a slash (fal-ai/veo3) may be sent as it is or as %2F.',
          auth: 'none',
          responses: { 200: { description: 'The model record.', schema: ModelRecord } },
          errors: ['not_found'],
        },
      },
    },
    async (request) => {
      const id = request.params['*'];
      if (id === '') throw routeNotFound(request); // GET /v1/models/ is no model, as /v1/videos/ is no task
      return gateway.catalog.listed(id);
    },
  );
}
