// CORS, closed unless the owner lists origins (config.json allowedOrigins): then a browser app
// on one of those exact origins may call /v1 (answers carry Access-Control-Allow-Origin, and
// preflights are answered). Every other origin, and the studio, get no CORS header at all.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

const ALLOW_METHODS = 'GET, HEAD, POST, DELETE';
const ALLOW_HEADERS = 'authorization, content-type, idempotency-key';
const EXPOSE_HEADERS = 'x-request-id, x-ratelimit-limit-requests, x-ratelimit-remaining-requests, x-ratelimit-reset-requests, retry-after';
const PREFLIGHT_MAX_AGE_SECONDS = '600';

export interface Cors {
  /** True when this request gets CORS headers: a listed origin calling /v1. */
  answers(origin: string | undefined, url: string | undefined): origin is string;
  install(app: FastifyInstance): void;
}

export function makeCors(allowedOrigins: readonly string[]): Cors {
  const allowed = new Set(allowedOrigins.map((origin) => origin.toLowerCase()));
  const answers = (origin: string | undefined, url: string | undefined): origin is string =>
    origin !== undefined && url !== undefined && allowed.has(origin.toLowerCase()) && url.startsWith('/v1/');
  return {
    answers,
    install: (app) => {
      if (allowed.size > 0) app.addHook('onRequest', (request, reply) => addHeaders(request, reply, answers));
    },
  };
}

/**
 * The request headers a preflight allows: those the page asks for (the OpenAI SDK adds its own
 * x-stainless-* headers to every call), since the origin is one the owner trusts and the
 * credential is a bearer token, never a cookie. A malformed list gets the default set.
 */
function allowedHeaders(requested: string | undefined): string {
  if (requested === undefined || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+(\s*,\s*[!#$%&'*+.^_`|~0-9A-Za-z-]+)*$/.test(requested.trim())) return ALLOW_HEADERS;
  return requested.trim().toLowerCase();
}

/** Headers for an answered origin; a preflight is answered here (Fastify wants the reply returned). */
async function addHeaders(request: FastifyRequest, reply: FastifyReply, answers: Cors['answers']): Promise<FastifyReply | undefined> {
  const origin = request.headers.origin;
  if (!answers(origin, request.url)) return undefined;
  reply.header('access-control-allow-origin', origin).header('vary', 'Origin');
  if (request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined) {
    reply
      .header('vary', 'Origin, Access-Control-Request-Headers')
      .header('access-control-allow-methods', ALLOW_METHODS)
      .header('access-control-allow-headers', allowedHeaders(request.headers['access-control-request-headers']))
      .header('access-control-max-age', PREFLIGHT_MAX_AGE_SECONDS);
    return reply.code(204).send();
  }
  reply.header('access-control-expose-headers', EXPOSE_HEADERS);
  return undefined;
}
