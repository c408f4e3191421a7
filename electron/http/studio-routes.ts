// The studio's HTTP door (headless mode): the same handler map as IPC, as
// POST /studio/api/<method>, server-sent events at /studio/events, media files, and the built
// React studio itself -- all behind the owner token (a bearer header, or the HttpOnly cookie
// that POST /studio/session sets so <img>, <video> and EventSource can authenticate too).
import { createReadStream, existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../core/errors.js';
import { RENDERER_DIST } from '../project-paths.js';
import type { Studio } from '../core/studio/studio.js';
import { studioCookie, tokenMatches } from '../core/studio/studio-token.js';
import { bearerToken } from './auth.js';
import { sendFileWithRanges } from './send-file-range.js';

const STUDIO_BODY_LIMIT = 48 * 1024 * 1024;
const HEARTBEAT_MS = 15_000;

/** The studio page may load only its own files and media: no inline scripts, no other origins. */
export const STUDIO_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";

function cookieValue(request: FastifyRequest, cookieName: string): string | null {
  const header = request.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === cookieName) {
      try {
        return decodeURIComponent(value.join('='));
      } catch {
        return null; // a malformed cookie is no token
      }
    }
  }
  return null;
}

export function registerStudioRoutes(app: FastifyInstance, studio: Studio, ownerToken: string): void {
  const cookie = studioCookie(ownerToken);
  const guard = async (request: FastifyRequest): Promise<void> => {
    const bearer = bearerToken(request.headers.authorization);
    const session = cookieValue(request, cookie.name);
    if (bearer === null && session === null && request.headers.authorization === undefined) {
      throw new GatewayError('missing_api_key', 'The studio needs the owner token printed by mgw serve.');
    }
    if (!(bearer !== null ? tokenMatches(ownerToken, bearer) : tokenMatches(cookie.value, session))) {
      throw new GatewayError('invalid_api_key', 'The studio needs the owner token printed by mgw serve.');
    }
  };

  app.post('/studio/session', { onRequest: guard }, async (_request, reply) => {
    reply.header('set-cookie', `${cookie.name}=${cookie.value}; HttpOnly; SameSite=Strict; Path=/studio`);
    return reply.code(204).send();
  });
  // GET on the POST-only routes is a wrong method, not a studio file for the page route to look for.
  for (const path of ['/studio/api/*', '/studio/session']) {
    app.get(path, async (request, reply) => {
      reply.header('allow', 'POST');
      throw new GatewayError('method_not_allowed', `Method GET is not allowed on ${request.url.split('?')[0]}.`);
    });
  }

  app.post<{ Params: { method: string } }>(
    '/studio/api/:method',
    { onRequest: guard, bodyLimit: STUDIO_BODY_LIMIT, config: { contentType: 'application/json' } },
    async (request) => studio.dispatch(request.params.method, request.body),
  );

  const streams = new Set<FastifyReply['raw']>();
  app.get('/studio/events', { onRequest: guard }, (request, reply) => streamEvents(request, reply, studio, streams));
  // An event stream never ends by itself: a studio tab left open must not hold the shutdown.
  app.addHook('preClose', (done) => {
    for (const res of streams) res.end();
    done();
  });

  app.get<{ Params: { '*': string } }>('/studio/media/*', { onRequest: guard }, async (request, reply) => {
    const file = await studio.mediaFile(request.params['*']);
    if (!file) throw new GatewayError('not_found', 'No such media file.');
    return sendFileWithRanges(request, reply, file.path, file.type, file.bytes);
  });

  registerStudioPage(app);
}

function streamEvents(request: FastifyRequest, reply: FastifyReply, studio: Studio, streams: Set<FastifyReply['raw']>): void {
  reply.hijack();
  const res = reply.raw;
  streams.add(res);
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    'x-request-id': request.id,
  });
  res.write(': connected\n\n');
  const unsubscribe = studio.events.subscribe((event, payload) => {
    res.write(`event: ${event}\ndata: ${JSON.stringify(payload)}\n\n`);
  });
  const heartbeat = setInterval(() => res.write(': ping\n\n'), HEARTBEAT_MS);
  heartbeat.unref();
  request.raw.on('close', () => {
    clearInterval(heartbeat);
    unsubscribe();
    streams.delete(res);
  });
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

/**
 * The built React studio (dist/renderer), with the strict CSP on every file. A few lines
 * instead of a static-file plugin: the build is a handful of files, and the plugin's load time
 * counted against the gateway's cold start.
 */
function registerStudioPage(app: FastifyInstance): void {
  app.get('/studio', (_request, reply) => reply.redirect('/studio/', 302));
  app.get<{ Params: { '*': string } }>('/studio/*', async (request, reply) => {
    const relative = request.params['*'] || 'index.html';
    const file = normalize(join(RENDERER_DIST, relative));
    const info = file.startsWith(RENDERER_DIST + sep) ? await stat(file).catch(() => null) : null;
    if (!info?.isFile()) {
      if (!existsSync(join(RENDERER_DIST, 'index.html'))) throw new GatewayError('not_found', 'The studio is not built; run npm run build.');
      throw new GatewayError('not_found', 'No such studio file.');
    }
    return reply
      .headers({
        'content-security-policy': STUDIO_CSP,
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
        // Vite fingerprints assets; the page itself must always be re-read.
        'cache-control': relative.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
        'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
        'content-length': info.size,
      })
      .send(createReadStream(file));
  });
}
