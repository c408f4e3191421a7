// JSON bodies, parsed like Fastify's default parser (prototype-poisoning keys refused), but the
// refusal names the key: `{"__proto__": ...}` is valid JSON with a field this API does not
// have, so it gets the usual 400 with `param`, not "not valid JSON". The bytes must be UTF-8
// (RFC 8259): a lenient decode would turn them into U+FFFD, a prompt the caller never wrote.
import type { FastifyInstance } from 'fastify';
import { GatewayError, invalid } from '../core/errors.js';

// fatal: invalid sequences throw; the default ignoreBOM: false drops a leading byte order mark,
// as Fastify's own parser does.
const utf8 = new TextDecoder('utf-8', { fatal: true });

export function installJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    let text: string;
    try {
      text = utf8.decode(body as Buffer);
    } catch {
      return done(invalid('The request body is not valid UTF-8; JSON must be sent as UTF-8.'), undefined);
    }
    if (text.length === 0) return done(invalid('The request body is empty; send a JSON object.'), undefined);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return done(invalid('The request body is not valid JSON.'), undefined);
    }
    // Cheap guard first: only bodies that spell one of the keys are walked.
    const poisoned = (text.includes('__proto__') || text.includes('prototype')) && poisonedPath(value, '');
    if (poisoned) return done(new GatewayError('invalid_request', `Unsupported field ${poisoned}.`, poisoned), undefined);
    done(null, value);
  });
}

/** The path of the first `__proto__` key or `constructor.prototype` pair, or null. */
function poisonedPath(value: unknown, path: string): string | null {
  if (value === null || typeof value !== 'object') return null;
  for (const key of Object.keys(value)) {
    const here = path ? `${path}.${key}` : key;
    const child = (value as Record<string, unknown>)[key];
    if (key === '__proto__') return here;
    if (key === 'constructor' && child !== null && typeof child === 'object' && Object.hasOwn(child, 'prototype')) return `${here}.prototype`;
    const found = poisonedPath(child, here);
    if (found) return found;
  }
  return null;
}
