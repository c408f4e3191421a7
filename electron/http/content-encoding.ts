// Request bodies are read as sent: a compressed one (Content-Encoding: gzip, br, ...) would be
// taken for JSON that is "not valid UTF-8" or for a broken form. It is refused as what it is,
// after auth (preParsing runs after the onRequest guards) and before any byte is read.
import type { FastifyInstance } from 'fastify';
import { invalid } from '../core/errors.js';
import { hasBody } from './empty-bodies.js';

export function installContentEncodingGuard(app: FastifyInstance): void {
  // A callback hook, not an async one: it runs on every request, and nearly all pass.
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const coding = request.headers['content-encoding'];
    if (coding === undefined || /^\s*identity\s*$/i.test(coding)) return done(null, payload);
    if (!hasBody(request.headers)) return done(null, payload);
    done(invalid(`Content-Encoding ${JSON.stringify(coding.slice(0, 40))} is not supported: send the request body uncompressed.`));
  });
}
