// Bearer authentication for /v1 image and video routes. Runs in onRequest, before any body is
// read, so unauthenticated callers cannot make the gateway parse large uploads.
import type { FastifyRequest } from 'fastify';
import type { Principal } from '../core/access/principal.js';
import type { KeyService } from '../core/access/key-service.js';
import { GatewayError } from '../core/errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

export function makeAuthenticate(keys: KeyService) {
  return async function authenticate(request: FastifyRequest): Promise<void> {
    const header = request.headers.authorization;
    const token = bearerToken(header);
    if (!token) {
      if (header && header.trim() !== '' && !/^Bearer\s*$/i.test(header.trim())) {
        throw new GatewayError('invalid_api_key', 'The Authorization header must be "Bearer <API key>".');
      }
      throw new GatewayError('missing_api_key', 'Missing API key: send "Authorization: Bearer <API key>".');
    }
    request.principal = await keys.authenticate(token);
  };
}

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new GatewayError('missing_api_key', 'Missing API key.');
  return request.principal;
}
