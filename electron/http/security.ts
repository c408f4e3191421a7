// Loopback safety. The gateway binds 127.0.0.1; a web page could still reach it through DNS
// rebinding (evil.example resolving to 127.0.0.1), so requests must name a loopback host, or a
// host the owner configured, in their Host header.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { GatewayError } from '../core/errors.js';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** The hostname of a Host header, without the port; brackets kept for IPv6. */
export function hostnameOf(host: string): string {
  const value = host.trim().toLowerCase();
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    return end === -1 ? value : value.slice(0, end + 1);
  }
  const colon = value.lastIndexOf(':');
  return colon === -1 ? value : value.slice(0, colon);
}

/** Whether a Host header names loopback or one of the owner's allowed hosts. */
export function makeHostCheck(allowedHosts: readonly string[]): (host: string | undefined) => boolean {
  const allowed = new Set([...LOOPBACK, ...allowedHosts.map((h) => h.toLowerCase())]);
  return (host) => host !== undefined && allowed.has(hostnameOf(host));
}

export function makeHostGuard(isAllowedHost: (host: string | undefined) => boolean) {
  // Callback style on purpose: it runs on every request, and Fastify's async hooks cost more.
  return function hostGuard(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
    reply.header('x-request-id', request.id);
    if (!isAllowedHost(request.headers.host)) {
      done(
        new GatewayError(
          'invalid_request',
          'This gateway only answers requests addressed to localhost; add the host to allowedHosts to serve it.',
        ),
      );
      return;
    }
    done();
  };
}
