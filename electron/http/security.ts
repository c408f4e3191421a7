// Loopback safety. The gateway binds 127.0.0.1; a web page could still reach it through DNS
// rebinding (evil.example resolving to 127.0.0.1), so requests must name a loopback host, or a
// host the owner configured, in their Host header.
import type { FastifyReply, FastifyRequest } from 'fastify';
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

export function makeHostGuard(allowedHosts: readonly string[]) {
  const allowed = new Set([...LOOPBACK, ...allowedHosts.map((h) => h.toLowerCase())]);
  return async function hostGuard(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    reply.header('x-request-id', request.id);
    const host = request.headers.host;
    if (!host || !allowed.has(hostnameOf(host))) {
      throw new GatewayError(
        'invalid_request',
        'This gateway only answers requests addressed to localhost; add the host to allowedHosts to serve it.',
      );
    }
  };
}
