// The onRequest hooks of /v1 routes: authentication, then the request windows. Creation routes
// (images, POST /videos) spend a window slot; the other task routes only report the headers.
import type { onRequestHookHandler } from 'fastify';
import type { Gateway } from '../core/gateway.js';
import { makeAuthenticate, makeRateLimit } from './auth.js';

export interface RouteGuards {
  creation: onRequestHookHandler[];
  read: onRequestHookHandler[];
}

export function makeRouteGuards(gateway: Gateway, anonymousAccountId: string | null): RouteGuards {
  const authenticate = makeAuthenticate(gateway.keys, { anonymousAccountId }) as onRequestHookHandler;
  return {
    creation: [authenticate, makeRateLimit(gateway.access, true) as onRequestHookHandler],
    read: [authenticate, makeRateLimit(gateway.access, false) as onRequestHookHandler],
  };
}
