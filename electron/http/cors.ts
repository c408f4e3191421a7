// CORS, closed unless the owner lists origins (config.json allowedOrigins): then a browser app
// on one of those exact origins may call /v1 (answers carry Access-Control-Allow-Origin, and
// preflights are answered). Every other origin, and the studio, get no CORS header at all.
import type { FastifyInstance } from 'fastify';

const ALLOW_METHODS = 'GET, HEAD, POST, DELETE';
const ALLOW_HEADERS = 'authorization, content-type, idempotency-key';
const EXPOSE_HEADERS = 'x-request-id, x-ratelimit-limit-requests, x-ratelimit-remaining-requests, x-ratelimit-reset-requests, retry-after';
const PREFLIGHT_MAX_AGE_SECONDS = '600';

export function installCors(app: FastifyInstance, allowedOrigins: readonly string[]): void {
  const allowed = new Set(allowedOrigins.map((origin) => origin.toLowerCase()));
  if (allowed.size === 0) return;
  app.addHook('onRequest', async (request, reply) => {
    const origin = request.headers.origin;
    if (!origin || !allowed.has(origin.toLowerCase()) || !request.url.startsWith('/v1/')) return;
    reply.header('access-control-allow-origin', origin).header('vary', 'Origin');
    if (request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined) {
      reply
        .header('access-control-allow-methods', ALLOW_METHODS)
        .header('access-control-allow-headers', ALLOW_HEADERS)
        .header('access-control-max-age', PREFLIGHT_MAX_AGE_SECONDS);
      return reply.code(204).send();
    }
    reply.header('access-control-expose-headers', EXPOSE_HEADERS);
  });
}
