// Bearer authentication for /v1 image and video routes. Runs in onRequest, before any body is
// read, so unauthenticated callers cannot make the gateway parse large uploads.
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { rateHeaders, REFUNDED_STATUSES, type AccessGate, type RateTicket } from '../core/access/access-gate.js';
import { anonymousPrincipal } from '../core/access/anonymous.js';
import type { Principal } from '../core/access/principal.js';
import type { RateState } from '../core/access/rate-limiter.js';
import type { KeyService } from '../core/access/key-service.js';
import { GatewayError } from '../core/errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
    /** Set when the request was counted against its principal's request windows. */
    rateTicket: RateTicket | null;
  }
}

export interface AuthOptions {
  /** When set, requests without a token act as the anonymous principal of this account. */
  anonymousAccountId: string | null;
}

export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

export function makeAuthenticate(keys: KeyService, options: AuthOptions) {
  return async function authenticate(request: FastifyRequest): Promise<void> {
    const header = request.headers.authorization;
    const token = bearerToken(header);
    if (!token) {
      if (header && header.trim() !== '' && !/^Bearer\s*$/i.test(header.trim())) {
        throw new GatewayError('invalid_api_key', 'The Authorization header must be "Bearer <API key>".');
      }
      if (options.anonymousAccountId && !header) {
        request.principal = anonymousPrincipal(options.anonymousAccountId, request.ip);
        return;
      }
      throw new GatewayError('missing_api_key', 'Missing API key: send "Authorization: Bearer <API key>".');
    }
    request.principal = await keys.authenticate(token);
  };
}

/**
 * Request windows: `count` routes (image and video creations) spend a slot, the others only
 * report; both send the rate-limit headers. A refused request gets its slot back (see
 * installRateRefunds).
 */
export function makeRateLimit(access: AccessGate, count: boolean) {
  return function rateLimit(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
    const principal = request.principal;
    if (!principal) return done();
    const apply = (ticket: RateTicket | null, state: RateState): void => {
      if (ticket) request.rateTicket = ticket;
      reply.headers(rateHeaders(state));
      done();
    };
    try {
      // Alone, the windows are counted in memory, at once; in team mode, in the shared database.
      const counted = count ? access.admit(principal) : access.peek(principal);
      if (counted instanceof Promise) {
        counted.then((value) => ('countedAt' in value ? apply(value, value.state) : apply(null, value)), done);
      } else if ('countedAt' in counted) apply(counted, counted.state);
      else apply(null, counted);
    } catch (error) {
      done(error as Error);
    }
  };
}

/** Refusals cost nothing: a counted request that ends with a REFUNDED_STATUSES status gives its slot back. */
export function installRateRefunds(app: FastifyInstance, access: AccessGate): void {
  app.decorateRequest('rateTicket', null);
  // Before the answer goes out, so its remaining-requests header counts the slot given back.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.rateTicket && REFUNDED_STATUSES.has(reply.statusCode)) {
      const refunded = access.refund(request.rateTicket);
      request.rateTicket = null;
      const remaining = Number(reply.getHeader('x-ratelimit-remaining-requests'));
      if (Number.isInteger(remaining)) reply.header('x-ratelimit-remaining-requests', String(remaining + 1));
      if (refunded instanceof Promise) {
        // A refund the database could not take costs the caller one slot, not the answer.
        const send = () => done(null, payload);
        refunded.then(send, send);
        return;
      }
    }
    done(null, payload);
  });
}

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new GatewayError('missing_api_key', 'Missing API key.');
  return request.principal;
}
