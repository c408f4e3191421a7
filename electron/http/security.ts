// Loopback safety. The gateway binds 127.0.0.1; a web page could still reach it through DNS
// rebinding (evil.example resolving to 127.0.0.1), so requests must name a loopback host, or a
// host the owner configured, in their Host header. And any page can make the browser post a
// form to 127.0.0.1 without a preflight (CORS only hides the answer), so a request that changes
// something and comes from a page must come from the gateway's own page or a listed origin.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { GatewayError } from '../core/errors.js';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** A Host header: a name or IPv4 address, or a bracketed IPv6 address, and an optional numeric port. */
const HOST = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/;

/** The hostname of a Host header without the port (brackets kept for IPv6), or null when malformed. */
export function hostnameOf(host: string): string | null {
  const match = HOST.exec(host.trim().toLowerCase());
  // Task output URLs are built from the Host: a port no URL can hold (99999) is malformed too.
  if (!match || Number(match[2] ?? 0) > 65_535) return null;
  return match[1]!;
}

/** Whether a Host header names loopback or one of the owner's allowed hosts. */
export function makeHostCheck(allowedHosts: readonly string[]): (host: string | undefined) => boolean {
  const allowed = new Set([...LOOPBACK, ...allowedHosts.map((h) => h.toLowerCase())]);
  return (host) => {
    const name = host === undefined ? null : hostnameOf(host);
    return name !== null && allowed.has(name);
  };
}

/**
 * The authority of an absolute-form request target (`GET http://host:port/path`), which names
 * the host a request is for (RFC 9112 3.2.2); null for the usual origin-form and anything else.
 */
function targetAuthority(url: string): string | null {
  if (url.startsWith('/')) return null;
  return /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(url)?.[1] ?? null;
}

export function makeHostGuard(isAllowedHost: (host: string | undefined) => boolean) {
  // Callback style on purpose: it runs on every request, and Fastify's async hooks cost more.
  return function hostGuard(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
    reply.header('x-request-id', request.id);
    // Both must be ours: the target's authority is the host the request is for, and the Host
    // header is what task output URLs are built from.
    const authority = targetAuthority(request.url);
    if (!isAllowedHost(request.headers.host) || (authority !== null && !isAllowedHost(authority))) {
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

/** Methods that change nothing; a page cannot read their answers without CORS. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether Origin is the page this Host serves (https too: behind the owner's proxy); the Host was checked already. */
function isOwnPage(origin: string, host: string | undefined): boolean {
  const page = /^https?:\/\/(.+)$/i.exec(origin)?.[1];
  return page !== undefined && host !== undefined && page.toLowerCase() === host.toLowerCase();
}

/**
 * Refuses a state-changing request sent by a web page (browsers add Origin to every cross-origin
 * request and to same-origin posts; SDKs and curl send none) unless the page is the gateway's
 * own (Origin = http(s)://<Host>, the headless studio) or `isListedOrigin` (CORS allowedOrigins, /v1).
 */
export function makeOriginGuard(isListedOrigin: (origin: string, url: string) => boolean) {
  return function originGuard(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
    const origin = request.headers.origin;
    if (origin === undefined || SAFE_METHODS.has(request.method)) return done();
    if (isOwnPage(origin, request.headers.host) || isListedOrigin(origin, request.url)) return done();
    done(new GatewayError('invalid_request', `Requests from web pages of another origin (${origin.slice(0, 100)}) are refused; the owner may list the origin in allowedOrigins for /v1.`, 'Origin'));
  };
}
