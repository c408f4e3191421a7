// The HTTP pieces of the A1111 / Forge emulator that are not generation: Basic auth, reading
// base64 images, injected failures, and the listing routes.
// Source followed: fastapi/security/http.py HTTPBasic (no/other scheme -> 401 "Not authenticated";
// undecodable or no ':' -> 401 "Invalid authentication credentials"; both with WWW-Authenticate:
// Basic), modules/api/api.py (Api.auth -> 401 "Incorrect username or password";
// decode_base64_to_image: "data:image/...;base64," prefix stripped, undecodable -> HTTPException
// 500 "Invalid encoded image", URLs with api_forbid_local_requests -> 500 "Request to local
// resource not allowed"; get_upscalers, get_latent_upscale_modes, get_scripts_list, get_embeddings).
import sharp from 'sharp';
import type { IncomingMessage } from 'node:http';
import { type Reply, headerValue, json } from './http-kit.js';
import { type A1111Flavor, LATENT_UPSCALE_MODES, UPSCALERS, samplerTable, schedulerItems } from './a1111-catalog.js';
import { coerce, exceptionError, httpError, validationError } from './a1111-errors.js';
import { HttpError, type InitImage } from './a1111-generate.js';
import { scriptNames } from './a1111-request.js';

/** --api-auth "user:pass[,user2:pass2]" -> user -> password. */
export function parseApiAuth(auth: string | undefined): Map<string, string> {
  const pairs = (auth ?? '').split(',').filter(Boolean);
  return new Map(pairs.map((pair) => [pair.slice(0, pair.indexOf(':')), pair.slice(pair.indexOf(':') + 1)] as const));
}

/** The 401 of HTTPBasic / Api.auth, or undefined when the credentials are right (or no auth is set). */
export function checkBasicAuth(flavor: A1111Flavor, credentials: Map<string, string>, req: IncomingMessage): Reply | undefined {
  if (credentials.size === 0) return undefined;
  // A1111's handle_exception drops the exception's headers; Forge's default handler keeps WWW-Authenticate.
  const deny = (detail: string) => httpError(flavor, 401, detail, { 'www-authenticate': 'Basic' });
  const header = headerValue(req, 'authorization') ?? '';
  const space = header.indexOf(' ');
  const scheme = space === -1 ? header : header.slice(0, space);
  const param = space === -1 ? '' : header.slice(space + 1);
  if (!header || scheme.toLowerCase() !== 'basic') return deny('Not authenticated');
  const decoded = /^[A-Za-z0-9+/]*={0,2}$/.test(param) ? Buffer.from(param, 'base64').toString('latin1') : '';
  const colon = decoded.indexOf(':');
  if (colon === -1 || /[^\x00-\x7f]/.test(decoded)) return deny('Invalid authentication credentials');
  if (credentials.get(decoded.slice(0, colon)) === decoded.slice(colon + 1)) return undefined;
  return deny('Incorrect username or password');
}

/** decode_base64_to_image, plus what the emulator needs of the image (size, a tint). */
export async function decodeImage(encoding: string): Promise<InitImage> {
  if (/^https?:\/\//.test(encoding)) {
    // Guess: the emulator never fetches; loopback/private hosts fail as verify_url makes them fail.
    const host = new URL(encoding).hostname;
    if (/^(localhost|127\.|10\.|192\.168\.|\[?::1)/.test(host)) throw new HttpError(500, 'Request to local resource not allowed');
    throw new HttpError(500, 'Invalid image url');
  }
  const data = encoding.startsWith('data:image/') ? (encoding.split(';')[1]?.split(',')[1] ?? '') : encoding;
  try {
    const image = sharp(Buffer.from(data, 'base64'));
    const meta = await image.metadata();
    const stats = await image.stats();
    const tint = Math.round(stats.channels.reduce((sum, c) => sum + c.mean, 0)) & 0xff;
    return { width: meta.width ?? 0, height: meta.height ?? 0, tint };
  } catch {
    throw new HttpError(500, 'Invalid encoded image');
  }
}

export type A1111FailureKind = 'http' | 'exception' | 'validation';

export interface A1111FailOptions {
  /** Which requests: 'generation' (txt2img/img2img, default), '*' or a route name such as 'GET /sdapi/v1/progress'. */
  route?: string;
  detail?: string;
  /** Python exception class for kind 'exception' (default RuntimeError). */
  exceptionType?: string;
  /** How many matching requests fail (default 1). */
  times?: number;
}

/** failNext(): queued failures answered in the flavor's own error shapes. */
export class FailureQueue {
  private entries: { status: number; kind: A1111FailureKind; opts: A1111FailOptions; left: number }[] = [];

  constructor(private readonly flavor: A1111Flavor) {}

  push(status: number, kind: A1111FailureKind | undefined, opts: A1111FailOptions = {}): void {
    const resolved = kind ?? (status === 422 ? 'validation' : status === 500 ? 'exception' : 'http');
    this.entries.push({ status, kind: resolved, opts, left: opts.times ?? 1 });
  }

  take(route: string): Reply | undefined {
    const index = this.entries.findIndex((f) => {
      const want = f.opts.route ?? 'generation';
      return want === '*' || want === route || (want === 'generation' && /\/sdapi\/v1\/(txt2img|img2img)$/.test(route));
    });
    const entry = this.entries[index];
    if (!entry) return undefined;
    entry.left -= 1;
    if (entry.left <= 0) this.entries.splice(index, 1);
    const { status, kind, opts } = entry;
    if (kind === 'validation') {
      const result = coerce('steps', 'int', opts.detail ?? 'twenty');
      return { ...validationError(this.flavor, 'issue' in result ? [result.issue] : []), status };
    }
    if (kind === 'exception') {
      return { ...exceptionError(this.flavor, opts.exceptionType ?? 'RuntimeError', opts.detail ?? 'CUDA out of memory. Tried to allocate 2.00 GiB'), status };
    }
    return httpError(this.flavor, status, opts.detail ?? (status === 404 ? 'Not Found' : 'Internal Server Error'));
  }
}

/** GET routes that only list what is installed. */
export function listingReplies(flavor: A1111Flavor): Record<string, () => Reply> {
  const upscalers = UPSCALERS.map((name) => ({ name, model_name: ['None', 'Lanczos', 'Nearest'].includes(name) ? null : name, model_path: null, model_url: null, scale: 4 }));
  return {
    'GET /sdapi/v1/samplers': () => json(200, samplerTable(flavor).map(([name, aliases, options]) => ({ name, aliases, options }))),
    'GET /sdapi/v1/schedulers': () => json(200, schedulerItems()),
    'GET /sdapi/v1/upscalers': () => json(200, upscalers),
    'GET /sdapi/v1/latent-upscale-modes': () => json(200, LATENT_UPSCALE_MODES.map((name) => ({ name }))),
    // A1111 lists VAEs at /sd-vae; Forge replaced it with /sd-modules (VAEs and text encoders).
    [flavor === 'forge' ? 'GET /sdapi/v1/sd-modules' : 'GET /sdapi/v1/sd-vae']: () => json(200, []),
    'GET /sdapi/v1/scripts': () => json(200, { txt2img: scriptNames(flavor, 'txt2img'), img2img: scriptNames(flavor, 'img2img') }),
    'GET /sdapi/v1/embeddings': () => json(200, { loaded: {}, skipped: {} }),
    'POST /sdapi/v1/refresh-checkpoints': () => json(200, null),
    'POST /sdapi/v1/unload-checkpoint': () => json(200, {}),
    'POST /sdapi/v1/reload-checkpoint': () => json(200, {}),
  };
}
