// Every /v1 request that reaches a route is written to the activity log (key, endpoint, model,
// status, latency, cost) after its response is sent. The catalog (fast path or not) and the
// OpenAPI document are not logged: they are anonymous and would drown the log.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ActivityLog } from '../core/activity/activity-log.js';
import type { RouteTrace } from '../core/routing/failover.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by routes that know the model and the charged amount. */
    activity: { model?: string; costNano?: number; status?: number; routes?: RouteTrace } | null;
  }
}

export function installActivityHook(app: FastifyInstance, log: ActivityLog): void {
  app.decorateRequest('activity', null);
  app.addHook('onResponse', (request, reply, done) => {
    recordActivity(log, request, reply);
    done();
  });
  // onResponse fires for every response that finished, hijacked ones (a relayed image) too, but
  // never for one that did not: the client left (499), or a relay was cut after its 200 (its
  // route set the status first).
  app.addHook('onRequest', (request, reply, done) => {
    reply.raw.once('close', () => {
      if (reply.raw.writableFinished) return;
      if (request.activity) request.activity.status ??= 499;
      else request.activity = { status: 499 };
      recordActivity(log, request, reply);
    });
    done();
  });
}

const recorded = new WeakSet<FastifyRequest>();
/** Anonymous reads of public documents: logging them would drown the log. */
const UNLOGGED = new Set(['/v1/models', '/v1/openapi.json']);

/** Writes one request to the log, once (onResponse and the close listener may both see it). */
function recordActivity(log: ActivityLog, request: FastifyRequest, reply: FastifyReply): void {
  const url = request.routeOptions.url;
  if (!url?.startsWith('/v1/') || UNLOGGED.has(url) || recorded.has(request)) return;
  recorded.add(request);
  log.record({
    at: Date.now(),
    key_id: request.principal?.keyId ?? null,
    method: request.method,
    endpoint: url,
    model: request.activity?.model ?? null,
    // Cut short: 499 when the client left, or the error a relayed image met after its 200.
    status: request.activity?.status ?? reply.statusCode,
    latency_ms: reply.elapsedTime,
    cost_nano: request.activity?.costNano ?? 0,
    route: request.activity?.routes?.served ?? null,
    failed_routes: request.activity?.routes?.failed.length ? JSON.stringify(request.activity.routes.failed) : null,
  });
}
