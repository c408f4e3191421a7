// Requests without a body. A route that takes none (DELETE /v1/videos/{id}, POST /studio/session)
// reads an empty request as what it is, whatever Content-Type it names: the OpenAI Python SDK
// sends `Content-Type: application/json` on every call, its bodiless DELETE included, and Fastify
// would hand that nothing to the JSON parser ("the request body is empty").
import type { FastifyInstance } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';

/** Whether the request carries body bytes (chunked, or a Content-Length above 0). */
export function hasBody(headers: IncomingHttpHeaders): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}

export function installEmptyBodies(app: FastifyInstance): void {
  // preParsing: after the onRequest guards, before Fastify picks a parser by Content-Type.
  app.addHook('preParsing', (request, _reply, payload, done) => {
    // Routes that take a body name its type (config.contentType); only the others are eased.
    if (request.routeOptions.config?.contentType === undefined && request.headers['content-type'] !== undefined && !hasBody(request.headers)) {
      delete request.raw.headers['content-type'];
    }
    done(null, payload);
  });
}
