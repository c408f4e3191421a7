// Request bodies are read as sent: a compressed one (Content-Encoding: gzip, br, ...) would be
// taken for JSON that is "not valid UTF-8" or for a broken form. It is refused as what it is,
// after auth (preParsing runs after the onRequest guards) and before any byte is read.
import type { FastifyInstance } from 'fastify';
import { invalid } from '../core/errors.js';

export function installContentEncodingGuard(app: FastifyInstance): void {
  app.addHook('preParsing', async (request) => {
    const coding = request.headers['content-encoding'];
    if (coding === undefined || /^\s*identity\s*$/i.test(coding)) return;
    const hasBody = request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;
    if (!hasBody) return;
    throw invalid(`Content-Encoding ${JSON.stringify(coding.slice(0, 40))} is not supported: send the request body uncompressed.`);
  });
}
