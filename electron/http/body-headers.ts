// What a request's headers say about its body, read once before any byte of it is (preParsing:
// after the onRequest guards, before Fastify picks a parser by Content-Type).
// - A compressed body (Content-Encoding: gzip, br, ...) is refused as what it is: read as sent it
//   would be taken for JSON that is "not valid UTF-8" or for a broken form.
// - A route that takes no body (DELETE /v1/videos/{id}, POST /studio/session) reads an empty
//   request as no body, whatever Content-Type it names: the OpenAI Python SDK sends
//   `Content-Type: application/json` on every call, its bodiless DELETE included, and Fastify
//   would hand that nothing to the JSON parser ("the request body is empty").
import type { FastifyInstance } from 'fastify';
import { invalid } from '../core/errors.js';

export function installBodyHeaderChecks(app: FastifyInstance): void {
  // A callback hook, not an async one: it runs on every request, and nearly all pass.
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const headers = request.headers;
    const hasBody = headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
    if (!hasBody) {
      // Routes that take a body name its type (config.contentType); only the others are eased.
      if (headers['content-type'] !== undefined && request.routeOptions.config?.contentType === undefined) delete request.raw.headers['content-type'];
      return done(null, payload);
    }
    const coding = headers['content-encoding'];
    if (coding === undefined || /^\s*identity\s*$/i.test(coding)) return done(null, payload);
    done(invalid(`Content-Encoding ${JSON.stringify(coding.slice(0, 40))} is not supported: send the request body uncompressed.`));
  });
}
