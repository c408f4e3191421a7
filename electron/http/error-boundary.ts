// The one place where failures become HTTP responses: GatewayError -> its status and standard
// body; schema and parser errors -> 400/413 invalid_request with the offending param; anything
// else -> 500 with no internals. Also the 404 / 405 answers for unknown routes.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError, isGatewayError } from '../core/errors.js';
import { storageError } from '../core/store/storage-errors.js';
import { drainRefusedBody } from './refused-body.js';
import { validationToGatewayError } from './validation-errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The body type a route takes, for the Content-Type error message. */
    contentType?: string;
  }
}

export interface KnownRoute {
  method: string;
  pattern: RegExp;
}

/** Fastify's own 4xx errors, reworded in the gateway's terms. */
function fromFastifyError(error: FastifyError, request: FastifyRequest): GatewayError | null {
  const expected = request.routeOptions.config?.contentType;
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_INVALID_MULTIPART_CONTENT_TYPE':
      return new GatewayError('invalid_request', `Unsupported Content-Type; this endpoint takes ${expected ?? 'application/json'}.`);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_PARTS_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return new GatewayError('request_too_large', 'The request body is larger than this endpoint accepts.');
    case 'FST_ERR_CTP_EMPTY_TYPE':
      return new GatewayError('invalid_request', 'The request body is not valid JSON.');
    default:
      break;
  }
  const status = error.statusCode ?? 500;
  if (status === 413) return new GatewayError('request_too_large', 'The request body is larger than this endpoint accepts.');
  if (status >= 400 && status < 500) return new GatewayError('invalid_request', 'The request could not be read.');
  return null;
}

/** The request was aborted by its client: an upload cut short, or a caller gone while it ran. */
function clientLeft(request: FastifyRequest, error: FastifyError): boolean {
  // AbortError: the route's departure signal (the only abort that reaches here; upstream
  // timeouts and cancels are GatewayErrors by then). ECONNRESET "aborted": Node's cut upload.
  if (error.name === 'AbortError') return true;
  return (error.code as string) === 'ECONNRESET' && request.raw.destroyed;
}

/** Every 429 says when to retry (SPEC-DECISIONS); an upstream's that named no wait gets 1 s. */
const DEFAULT_RETRY_AFTER = { 'retry-after': '1' };

export function sendGatewayError(reply: FastifyReply, error: GatewayError): FastifyReply {
  const headers = error.status === 429 && error.headers['retry-after'] === undefined ? { ...DEFAULT_RETRY_AFTER, ...error.headers } : error.headers;
  return reply.code(error.status).headers(headers).type('application/json').send(error.toBody());
}

export function installErrorBoundary(app: FastifyInstance, knownRoutes: () => KnownRoute[]): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    let mapped: GatewayError | null = null;
    if (isGatewayError(error)) mapped = error;
    else if (error.validation) mapped = validationToGatewayError(error.validation);
    else mapped = storageError(error) ?? fromFastifyError(error, request);

    if (!mapped && clientLeft(request, error)) {
      // Not a fault: nobody is waiting for this answer (the activity log records a 499).
      request.log.debug({ requestId: request.id }, 'the client left before its answer');
      mapped = new GatewayError('internal_error', 'The client closed the request.');
    } else if (!mapped) {
      request.log.error({ err: error, requestId: request.id }, 'internal error');
      mapped = new GatewayError('internal_error', `Internal server error (request ${request.id}).`);
    } else if (mapped.status >= 500) {
      request.log.warn({ code: mapped.code, requestId: request.id }, mapped.message);
    }
    // A refusal mid-body (a 413, a form refused at one of its parts) leaves the rest unread.
    if (mapped.code === 'request_too_large' || !request.raw.complete) drainRefusedBody(reply);
    return sendGatewayError(reply, mapped);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const allowed = knownRoutes()
      .filter((route) => route.pattern.test(path))
      .map((route) => route.method);
    if (allowed.length > 0) {
      reply.header('allow', [...new Set(allowed)].join(', '));
      return sendGatewayError(
        reply,
        new GatewayError('method_not_allowed', `Method ${request.method} is not allowed on ${path}.`),
      );
    }
    return sendGatewayError(reply, routeNotFound(request));
  });
}

/** The 404 of a path no route serves; also for a route's empty id segment (`GET /v1/videos/`). */
export function routeNotFound(request: FastifyRequest): GatewayError {
  return new GatewayError('not_found', `No route ${request.method} ${request.url.split('?')[0] ?? ''}.`);
}
