// The one failover loop, for images and videos alike. A request goes to its model's routes in
// order, skipping providers whose breaker is open (route-health.ts); it moves on only when a
// route failed before doing any work that could cost money (failover-reason.ts), and answers
// any other failure at once. When every route it tried failed, the skipped ones are tried too,
// in order (never refuse while a route might work); then the client gets the last failure.
// Money is not this loop's business: the caller holds once before it and charges once after.
import type { Clock } from '../clock.js';
import { GatewayError } from '../errors.js';
import type { ModelRoute } from '../catalog/model-routes.js';
import { failoverReason, providerFault } from './failover-reason.js';
import type { Admission, RouteHealth } from './route-health.js';

/** What a request's routes did: which served it, and which failed before, why (the activity log's). */
export interface RouteTrace {
  served: string | null;
  failed: { provider: string; reason: string }[];
}

export const newTrace = (): RouteTrace => ({ served: null, failed: [] });

/** A failure that is answered, not sent on, in the activity log's words: its own message. */
function answeredWith(error: unknown): string {
  return error instanceof GatewayError ? `answered: ${error.message}` : 'answered: failed';
}

/** What one try is given besides its route. */
export interface Attempt {
  route: ModelRoute;
  /** What remains of the request's budget; undefined on the first try of the first route (its own timeout is the budget). */
  timeoutMs: number | undefined;
  /** Called once the upstream took the work (a job it will run): no other route may be tried after. */
  accepted(): void;
}

export interface FailoverOptions {
  trace?: RouteTrace;
  /** The whole request's time across its routes; none: each route's own timeouts only. */
  budgetMs?: number;
  /** The client left: stop, and try nothing more. */
  signal?: AbortSignal;
}

export class Failover {
  constructor(
    private readonly health: RouteHealth,
    private readonly clock: Clock,
  ) {}

  async run<T>(routes: readonly ModelRoute[], attempt: (try_: Attempt) => Promise<T>, options: FailoverOptions = {}): Promise<T> {
    const trace = options.trace ?? newTrace();
    const started = this.clock.now();
    const skipped: ModelRoute[] = [];
    let last: unknown = null;
    let tries = 0;
    const tryRoute = async (route: ModelRoute, admission: Admission): Promise<{ value: T } | null> => {
      const remaining = options.budgetMs === undefined ? undefined : options.budgetMs - (this.clock.now() - started);
      if (options.signal?.aborted || (remaining !== undefined && remaining <= 0)) {
        admission.abandoned();
        throw last ?? new GatewayError('upstream_unavailable', 'The upstream provider is temporarily unavailable (timed out).');
      }
      let accepted = false;
      const at = this.clock.now();
      // The model's first route, tried first, has its provider's own timeout, which is the budget;
      // any other try what is left of it (a first route skipped by its breaker gives no more time).
      const timeoutMs = tries++ === 0 && route === routes[0] ? undefined : remaining;
      try {
        const value = await attempt({ route, timeoutMs, accepted: () => (accepted = true) });
        admission.succeeded(this.clock.now() - at);
        trace.served = route.providerId;
        return { value };
      } catch (error) {
        if (options.signal?.aborted) {
          admission.abandoned();
          throw error;
        }
        const fault = providerFault(error);
        if (fault === null) admission.answered();
        else admission.failed(fault);
        const reason = accepted ? null : failoverReason(error);
        // Answered as it is: the activity log still says which route gave the answer.
        trace.failed.push({ provider: route.providerId, reason: reason ?? answeredWith(error) });
        if (reason === null) throw error;
        last = error;
        return null;
      }
    };
    for (const route of routes) {
      const admission = this.health.admit(route.providerId);
      if (!admission) {
        trace.failed.push({ provider: route.providerId, reason: 'skipped: failing lately (circuit breaker)' });
        skipped.push(route);
        continue;
      }
      const done = await tryRoute(route, admission);
      if (done) return done.value;
    }
    for (const route of skipped) {
      const done = await tryRoute(route, this.health.force(route.providerId));
      if (done) return done.value;
    }
    throw last ?? new GatewayError('upstream_unavailable', 'The model has no route to a provider.');
  }
}
