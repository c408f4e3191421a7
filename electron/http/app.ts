// The Fastify app: security hooks, the error boundary, and thin /v1 routes over the core.
import multipart from '@fastify/multipart';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Gateway } from '../core/gateway.js';
import type { Studio } from '../core/studio/studio.js';
import { ensureAnonymousAccount } from '../core/access/anonymous.js';
import { installActivityHook } from './activity-hook.js';
import { installRateRefunds } from './auth.js';
import { installBodyHeaderChecks } from './body-headers.js';
import { installJsonBodyParser } from './json-body.js';
import { makeRouteGuards } from './route-guards.js';
import { registerStudioRoutes } from './studio-routes.js';
import { randomId } from '../core/ids.js';
import { GatewayError } from '../core/errors.js';
import { installErrorBoundary, sendGatewayError, type KnownRoute } from './error-boundary.js';
import { registerImageEditRoute, registerImageGenerationRoute } from './routes/images.js';
import { registerModelRoutes } from './routes/models.js';
import { registerVideoRoutes } from './routes/videos.js';
import { makeCatalogFastPath } from './catalog-fast-path.js';
import { collectRoutes, registerOpenApiRoute } from './openapi.js';
import { makeCors } from './cors.js';
import { UploadBudget } from './upload-budget.js';
import { makeHostCheck, makeHostGuard, makeOriginGuard } from './security.js';

export interface HttpOptions {
  /** Extra Host header names to answer besides loopback (DNS-rebinding defense). */
  allowedHosts?: readonly string[];
  logger?: FastifyBaseLogger;
  /** Requests without a token act as the anonymous principal (config.json allowAnonymous). */
  allowAnonymous?: boolean;
  /** Browser origins allowed to call /v1 (CORS); none by default. */
  allowedOrigins?: readonly string[];
  /** The studio door (headless mode): its core and the owner token that guards it. */
  studio?: { studio: Studio; ownerToken: string };
  /** Upload bytes all requests may hold in memory at once (default DEFAULT_UPLOAD_BUDGET_BYTES). */
  uploadBudgetBytes?: number;
  /** The bound itself, shared (a test watches what it holds); else one of uploadBudgetBytes. */
  uploadBudget?: UploadBudget;
  /** How long a connection may go without a byte moving either way (default DEFAULT_IDLE_TIMEOUT_MS). */
  idleTimeoutMs?: number;
}

/**
 * A client that stops reading its answer (a download, the event stream, a relayed image) stalls
 * the send; without this its connection and open file would be held until it goes away. Longer
 * than the longest silence of a live request: an upstream call may take 120 s before its answer.
 */
export const DEFAULT_IDLE_TIMEOUT_MS = 300_000;

export async function buildHttpApp(gateway: Gateway, options: HttpOptions = {}): Promise<FastifyInstance> {
  const isAllowedHost = makeHostCheck(options.allowedHosts ?? []);
  const nextRequestId = requestIds();
  const cors = makeCors(options.allowedOrigins ?? []);
  const fastPath = makeCatalogFastPath(gateway.catalog, isAllowedHost, nextRequestId);
  // A request CORS answers goes through the hook that adds its headers.
  const catalogFastPath: typeof fastPath = (req, res) => !cors.answers(req.headers.origin, req.url) && fastPath(req, res);
  const app = Fastify({
    serverFactory: (handler) => {
      // requireHostHeader off: a request without Host then reaches the Host guard, which answers
      // with the standard error body instead of Node's bare 400. joinDuplicateHeaders: Node
      // would keep the first of two Host (or Authorization, ...) headers and drop the other;
      // joined, they are one malformed value the checks refuse (RFC 9112 3.2: several Host
      // headers are a 400).
      const serve = (req: IncomingMessage, res: ServerResponse) => {
        if (!catalogFastPath(req, res)) handler(req, res);
      };
      const server = createServer({ requireHostHeader: false, joinDuplicateHeaders: true }, serve);
      // An Expect other than 100-continue: Node would answer a bare 417 with no body; the
      // expectation is ignored instead (RFC 9110 allows either) and the request served.
      server.on('checkExpectation', serve);
      // CONNECT goes to this event, not the handler; without a listener Node closes the socket
      // unanswered. This is no proxy.
      server.on('connect', (_req: IncomingMessage, socket: Duplex) =>
        writeRawError(socket, nextRequestId(), 405, 'Method Not Allowed', new GatewayError('method_not_allowed', 'Method CONNECT is not allowed: this gateway is not a proxy.')),
      );
      // Fastify's own default; a custom server would otherwise keep Node's 5 s, which races
      // with clients reusing a pooled connection.
      server.keepAliveTimeout = 72_000;
      server.timeout = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
      return server;
    },
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    logController: new QuietRequestLog(),
    genReqId: nextRequestId,
    // Ids longer than this are not ours anyway; they must reach the routes to be 404s, not 414s.
    routerOptions: { maxParamLength: 1_000 },
    // Fastify's own early errors (a malformed URL, ...) get the standard body too.
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id);
      const mapped =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? new GatewayError('not_found', 'No such resource.')
          : new GatewayError('invalid_request', `The request could not be read: ${error.message.replace(/'.*'/, 'the URL')}.`);
      sendGatewayError(reply, mapped);
    },
    // Requests Node's parser refuses (malformed, headers too large) never reach Fastify's routing.
    clientErrorHandler: (error, socket) => answerClientError(error, socket, nextRequestId()),
    requestIdHeader: false,
    bodyLimit: 1024 * 1024,
    return503OnClosing: true,
    // validateSchema off: our schemas are TypeBox-built and compiled in tests; checking each
    // against the JSON Schema meta-schema cost ~30 ms of every cold start.
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false, allErrors: false, allowUnionTypes: true, validateSchema: false } },
  });
  app.decorateRequest('principal', null);
  // Every body this API takes is JSON or multipart: text/plain is an unsupported type, not a
  // string for the schema to call "not an object".
  app.removeContentTypeParser('text/plain');
  installJsonBodyParser(app);
  installBodyHeaderChecks(app);

  const knownRoutes: KnownRoute[] = [];
  app.addHook('onRoute', (route) => {
    const pattern = new RegExp(`^${route.url.replace(/:[^/]+/g, '[^/]+').replace(/\*$/, '.*')}$`);
    for (const method of [route.method].flat()) knownRoutes.push({ method, pattern });
  });

  app.addHook('onRequest', makeHostGuard(isAllowedHost));
  app.addHook('onRequest', makeOriginGuard((origin, url) => cors.answers(origin, url)));
  cors.install(app);
  installErrorBoundary(app, () => knownRoutes);
  installActivityHook(app, gateway.activity);
  installRateRefunds(app, gateway.access);
  const documented = collectRoutes(app);
  const guards = makeRouteGuards(gateway, options.allowAnonymous ? await ensureAnonymousAccount(gateway) : null);

  registerModelRoutes(app, gateway);
  registerOpenApiRoute(app, documented, { allowAnonymous: options.allowAnonymous === true });
  registerImageGenerationRoute(app, gateway, guards);
  // Upload routes get their own context: @fastify/multipart adds per-request hooks that the
  // rest of the API (GET /v1/models above all) should not pay for.
  await app.register(async (uploads) => {
    // Size limits are enforced by multipart-form.ts itself (see readCapped).
    await uploads.register(multipart, { throwFileSizeLimit: false });
    const budget = options.uploadBudget ?? new UploadBudget(options.uploadBudgetBytes);
    registerImageEditRoute(uploads, gateway, guards, budget);
    registerVideoRoutes(uploads, gateway, guards, budget);
  });
  if (options.studio) registerStudioRoutes(app, options.studio.studio, options.studio.ownerToken);
  return app;
}

/** The standard error body for a request that could not be parsed, written straight to the socket. */
function answerClientError(error: Error & { code?: string }, socket: Duplex, requestId: string): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, reason, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'The request headers are too large.']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'The request took too long to arrive.']
        : [400, 'Bad Request', 'The request is not valid HTTP/1.1.'];
  writeRawError(socket, requestId, status, reason, new GatewayError('invalid_request', message));
}

/** The standard error body written straight to a socket Node has not given to Fastify; the connection is closed after it. */
function writeRawError(socket: Duplex, requestId: string, status: number, reason: string, error: GatewayError): void {
  const body = JSON.stringify(error.toBody());
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `x-request-id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** req_<random per process><counter>: unique without drawing random bytes on every request. */
function requestIds(): () => string {
  const prefix = `req_${randomId(10)}`;
  let counter = 0;
  return () => `${prefix}${(counter++).toString(36)}`;
}

/**
 * Per-request lines cost a write each, so they are debug lines, off at the default level
 * (`mgw serve --log-level debug` turns them on). A 5xx is always logged, as a warning.
 */
class QuietRequestLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ method: request.method, url: request.url }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = { res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else if (reply.statusCode >= 500) reply.log.warn(line, 'request completed');
    else request.log.debug(line, 'request completed');
  }
}
