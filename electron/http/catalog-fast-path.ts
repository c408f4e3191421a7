// GET /v1/models is what local apps poll most. When the catalog cache is fresh, it is answered
// straight from node:http, before Fastify's routing and hook machinery: the same headers and
// bytes, at the cost of a bare server (npm run bench measures both). Anything else -- another
// method or path, a query string, a foreign Host, a stale cache -- goes through Fastify.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CatalogService } from '../core/catalog/catalog-service.js';

export function makeCatalogFastPath(
  catalog: CatalogService,
  isAllowedHost: (host: string | undefined) => boolean,
  nextRequestId: () => string,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    if (req.method !== 'GET' || req.url !== '/v1/models' || !isAllowedHost(req.headers.host)) return false;
    const body = catalog.freshBody();
    if (!body) return false;
    // The flat array form skips Node's header-object walk.
    res.writeHead(200, ['content-type', 'application/json; charset=utf-8', 'content-length', String(body.length), 'x-request-id', nextRequestId()]);
    res.end(body);
    return true;
  };
}
