// Replicate's HTTP API as a loopback fake upstream, with fault injection. Written from the
// official client (replicate/replicate-javascript: index.js request() with "Authorization:
// Bearer", lib/predictions.js, lib/files.js, lib/accounts.js, lib/util.js, index.d.ts) and
// Replicate's OpenAPI document and docs:
//   GET    /v1/account                               {type, username, name, github_url}
//   POST   /v1/models/{owner}/{name}/predictions     {input, webhook?, ...}: official models
//   POST   /v1/predictions                           {version, input}: version is a 64-char id,
//                                                    owner/name:id, or owner/name (official)
//     Prefer: wait[=1..60] holds the call until the prediction ends (201) or the wait passes
//     (202, unfinished); without it 201 at once. Cancel-After bounds the prediction's life.
//     Unknown top-level fields: 422 additional_property_not_allowed; an input the model refuses:
//     422 {title, detail, status, invalid_fields}.
//   GET    /v1/predictions/{id}                      the prediction
//   POST   /v1/predictions/{id}/cancel               200, the prediction (cancelled if it ran)
//   POST   /v1/files                                 multipart content (+ metadata): 201 file
//                                                    {id, urls: {get}, ...}; over the cap 413
//   GET    /v1/files/{id}, DELETE /v1/files/{id}     the file object; 204
//   GET    /delivery/{prediction}/{name}             output files, with the key (as
//                                                    replicate.delivery wants the Authorization header)
// Errors are application/problem+json {title, detail, status}; a missing or wrong key is 401
// {title: "Unauthenticated", detail: "You did not pass a valid authentication token"}; an
// injected 429 says "Request was throttled..." (docs/topics/predictions/rate-limits).
// Guesses (not in the docs): an official-model route for a model that is not official answers
// 404; an unparseable Prefer or Cancel-After header 400; a file input that cannot be read fails
// the prediction when it starts; cancel of an ended prediction answers it unchanged.
import type { IncomingMessage } from 'node:http';
import type { Emulator } from './types.js';
import { startEmulatorServer, type RequestContext, type RouteMatch } from './serve.js';
import { bytes, headerValue, json, parseJsonObject, streamed, type Reply } from './http-kit.js';
import { isMultipart, parseMultipart } from './multipart.js';
import { checkInput, fileInputs, findModel, findVersion, type ModelSpec } from './replicate-models.js';
import { parseDuration, ReplicatePrediction, type InputFile, type ReplicateBehaviour } from './replicate-predictions.js';

export interface ReplicateEmulatorOptions extends Partial<ReplicateBehaviour> {
  apiKey?: string;
  /** The largest file POST /v1/files takes (Replicate: 100 MB). */
  maxFileBytes?: number;
}

export interface StoredFile {
  id: string;
  name: string;
  mime: string;
  bytes: Buffer;
  createdAt: string;
}

export interface ReplicateEmulator extends Emulator {
  predictions: Map<string, ReplicatePrediction>;
  files: Map<string, StoredFile>;
  behaviour: ReplicateBehaviour;
  /** Prediction ids passed to POST cancel, in order. */
  cancelCalls: string[];
  /** File ids passed to DELETE, in order. */
  deletedFiles: string[];
  /** The last prediction created. */
  last(): ReplicatePrediction | undefined;
}

export const REPLICATE_ROUTES = ['GET account', 'POST model predictions', 'POST predictions', 'GET prediction', 'POST cancel', 'POST files', 'GET file', 'DELETE file', 'GET output'] as const;

const TOP_LEVEL = ['input', 'version', 'webhook', 'webhook_events_filter', 'stream'];
const STATUS_TITLES: Record<number, string> = { 400: 'Bad request', 401: 'Unauthenticated', 402: 'Insufficient credit', 403: 'Forbidden', 404: 'Not found', 413: 'Content too large', 422: 'Unprocessable entity', 429: 'Too many requests', 500: 'Internal server error', 502: 'Bad gateway', 503: 'Service unavailable' };

/** A problem details answer. */
export function problem(status: number, detail: string, extra: Record<string, unknown> = {}, title = STATUS_TITLES[status] ?? 'Error'): Reply {
  const body = status === 429 ? { detail, status } : { title, detail, status, ...extra };
  return { status, headers: { 'content-type': 'application/problem+json' }, body: Buffer.from(JSON.stringify(body)) };
}

function authorize(apiKey: string, req: IncomingMessage): Reply | undefined {
  const header = headerValue(req, 'authorization') ?? '';
  return header === `Bearer ${apiKey}` || header === `Token ${apiKey}` ? undefined : problem(401, 'You did not pass a valid authentication token');
}

export async function startReplicateEmulator(options: ReplicateEmulatorOptions = {}): Promise<ReplicateEmulator> {
  const apiKey = options.apiKey ?? 'r8_emulator0000000000000000000000000000';
  const maxFileBytes = options.maxFileBytes ?? 100 * 1024 * 1024;
  const behaviour: ReplicateBehaviour = {
    durationMs: options.durationMs ?? 300,
    stuck: options.stuck ?? false,
    fail: options.fail ?? false,
    videoContainer: options.videoContainer ?? 'mp4',
    filesBeforeSucceeded: options.filesBeforeSucceeded ?? false,
    outputTtlMs: options.outputTtlMs ?? null,
    exactSize: options.exactSize ?? false,
    syncWaitMs: options.syncWaitMs ?? null,
  };
  const predictions = new Map<string, ReplicatePrediction>();
  const files = new Map<string, StoredFile>();
  const cancelCalls: string[] = [];
  const deletedFiles: string[] = [];
  let origin = '';
  let fileCount = 0;

  /** The file an input URL names: a data: URL decoded, or a file of the Files API; a problem otherwise. */
  function resolveFile(url: string): InputFile | string {
    const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
    if (data) {
      const decoded = Buffer.from(data[2]!, 'base64');
      return isImage(decoded) ? { url, mime: data[1]!, bytes: decoded } : 'an input file is not an image';
    }
    const prefix = `${origin}/v1/files/`;
    const stored = url.startsWith(prefix) ? files.get(url.slice(prefix.length)) : undefined;
    if (!stored) return 'an input file could not be downloaded';
    return isImage(stored.bytes) ? { url, mime: stored.mime, bytes: stored.bytes } : 'an input file is not an image';
  }

  async function create(ctx: RequestContext, model: ModelSpec | undefined, byVersion: boolean, route: string): Promise<Reply> {
    const body = parseJsonObject(ctx.body);
    if (!body) return problem(400, 'The request body is not a JSON object');
    const extra = Object.keys(body).filter((key) => !TOP_LEVEL.includes(key) || (key === 'version' && !byVersion));
    const fields = extra.map((key) => ({ type: 'additional_property_not_allowed', field: '', description: `Additional property ${key} is not allowed` }));
    if (typeof body.input !== 'object' || body.input === null || Array.isArray(body.input)) fields.unshift({ type: 'required', field: '', description: 'input is required' });
    if (fields.length > 0) return problem(422, fields.map((f) => `- ${f.description}`).join('\n'), { invalid_fields: fields }, 'Input validation failed');
    let target = model;
    if (byVersion) {
      target = versionTarget(String(body.version ?? ''));
      if (!target) return problem(422, 'The specified version does not exist (or perhaps you don\u2019t have permission to use it?)', {}, 'Invalid version');
    }
    if (!target) return problem(404, 'The requested model could not be found');
    const prefer = headerValue(ctx.req, 'prefer') ?? null;
    const wait = prefer === null ? null : /^wait(=([1-9]|[1-5][0-9]|60))?$/.exec(prefer.trim());
    if (prefer !== null && !wait) return problem(400, `Invalid Prefer header: ${prefer}`);
    const cancelAfterHeader = headerValue(ctx.req, 'cancel-after');
    const cancelAfterMs = cancelAfterHeader === undefined ? null : parseDuration(cancelAfterHeader);
    if (cancelAfterHeader !== undefined && (cancelAfterMs === null || cancelAfterMs < 5000)) return problem(400, `Invalid Cancel-After header: ${cancelAfterHeader}`);
    const input = body.input as Record<string, unknown>;
    const invalid = checkInput(target, input);
    if (invalid.length > 0) return problem(422, invalid.map((f) => `- ${f.field}: ${f.description}`).join('\n'), { invalid_fields: invalid }, 'Input validation failed');
    const resolved = fileInputs(target, input).map(resolveFile);
    const prediction = new ReplicatePrediction(target, input, resolved.filter((f): f is InputFile => typeof f !== 'string'), behaviour, cancelAfterMs, { prefer, route });
    prediction.inputProblem = resolved.find((f): f is string => typeof f === 'string') ?? null;
    predictions.set(prediction.id, prediction);
    const location = { location: `${origin}/v1/predictions/${prediction.id}` };
    if (!wait) return json(201, prediction.toJson(origin), location);
    const asked = Number(wait[2] ?? 60) * 1000;
    await prediction.settle(behaviour.syncWaitMs === null ? asked : Math.min(asked, behaviour.syncWaitMs));
    return json(prediction.answerable ? 201 : 202, prediction.toJson(origin), location);
  }

  function versionTarget(version: string): ModelSpec | undefined {
    const match = /^([^/:]+)\/([^/:]+)(?::([0-9a-f]{64}))?$/.exec(version);
    if (match) {
      const model = findModel(match[1]!, match[2]!);
      if (!model) return undefined;
      if (match[3] === undefined) return model.official ? model : undefined;
      return model.version === match[3] ? model : undefined;
    }
    return findVersion(version);
  }

  async function upload(ctx: RequestContext): Promise<Reply> {
    const type = headerValue(ctx.req, 'content-type');
    if (!isMultipart(type)) return problem(400, 'Expected a multipart/form-data body');
    let form;
    try {
      form = await parseMultipart(type!, ctx.body);
    } catch {
      return problem(400, 'The multipart body could not be read');
    }
    ctx.record.files = form.files.map(({ field, name, type: t, size }) => ({ field, name, type: t, size }));
    const content = form.files.find((f) => f.field === 'content');
    if (!content) return problem(422, '- content: content is required', { invalid_fields: [{ type: 'required', field: 'content', description: 'content is required' }] }, 'Input validation failed');
    if (content.size > maxFileBytes) return problem(413, `Files must be less than ${Math.round(maxFileBytes / 1024 / 1024)}MB in size`);
    const id = `file${String(++fileCount).padStart(4, '0')}${Math.random().toString(36).slice(2, 10)}`;
    const stored: StoredFile = { id, name: form.fields.filename ?? content.name, mime: form.fields.type ?? (content.type || 'application/octet-stream'), bytes: content.bytes, createdAt: new Date().toISOString() };
    files.set(id, stored);
    return json(201, fileJson(stored));
  }

  function fileJson(file: StoredFile): Record<string, unknown> {
    const expires = new Date(Date.parse(file.createdAt) + 24 * 3_600_000).toISOString();
    return { id: file.id, name: file.name, content_type: file.mime, size: file.bytes.length, checksums: {}, metadata: {}, created_at: file.createdAt, expires_at: expires, urls: { get: `${origin}/v1/files/${file.id}` } };
  }

  const withPrediction = (id: string, fn: (p: ReplicatePrediction) => Reply) => () => {
    const prediction = predictions.get(id);
    return prediction ? fn(prediction) : problem(404, 'The requested prediction could not be found');
  };

  function resolve(method: string, pathname: string): RouteMatch | undefined {
    const s = pathname.split('/').filter((part) => part !== '').map((part) => decodeURIComponent(part));
    if (s[0] === 'delivery' && s.length === 3 && method === 'GET') {
      const [, id = '', name = ''] = s;
      return { route: 'GET output', handle: () => {
        const file = predictions.get(id)?.file(name, origin);
        return file ? streamed(bytes(200, file.bytes, file.contentType)) : problem(404, 'The requested file could not be found');
      } };
    }
    if (s[0] !== 'v1') return undefined;
    const [, a, b, c, d] = s;
    if (method === 'GET' && a === 'account' && s.length === 2) return { route: 'GET account', handle: () => json(200, { type: 'user', username: 'emulator', name: 'Replicate Emulator', github_url: 'https://github.com/emulator' }) };
    if (method === 'POST' && a === 'models' && d === 'predictions' && s.length === 5) {
      const model = findModel(b!, c!);
      return { route: 'POST model predictions', handle: (ctx) => create(ctx, model?.official ? model : undefined, false, 'POST model predictions') };
    }
    if (a === 'predictions') {
      if (method === 'POST' && s.length === 2) return { route: 'POST predictions', handle: (ctx) => create(ctx, undefined, true, 'POST predictions') };
      if (method === 'GET' && s.length === 3) return { route: 'GET prediction', handle: withPrediction(b!, (p) => json(200, p.toJson(origin))) };
      if (method === 'POST' && c === 'cancel' && s.length === 4) {
        return { route: 'POST cancel', handle: () => {
          cancelCalls.push(b!);
          return withPrediction(b!, (p) => {
            p.cancel();
            return json(200, p.toJson(origin));
          })();
        } };
      }
    }
    if (a === 'files') {
      if (method === 'POST' && s.length === 2) return { route: 'POST files', handle: upload };
      const file = files.get(b ?? '');
      if (method === 'GET' && s.length === 3) return { route: 'GET file', handle: () => (file ? json(200, fileJson(file)) : problem(404, 'File not found')) };
      if (method === 'DELETE' && s.length === 3) {
        return { route: 'DELETE file', handle: () => {
          deletedFiles.push(b!);
          if (!file) return problem(404, 'File not found');
          files.delete(b!);
          return { status: 204, headers: {}, body: Buffer.alloc(0) };
        } };
      }
    }
    return undefined;
  }

  const server = await startEmulatorServer({
    knownRoutes: REPLICATE_ROUTES,
    resolve,
    notFound: () => problem(404, 'The requested resource could not be found'),
    authorize: (req) => authorize(apiKey, req),
    errorReply: (status, message) => problem(status, status === 429 ? 'Request was throttled. Expected available in 1 second.' : (message ?? `Upstream error (HTTP ${status})`)),
  });
  origin = server.origin;

  return {
    baseUrl: server.origin,
    origin: server.origin,
    apiKey,
    routes: REPLICATE_ROUTES,
    requests: server.requests,
    predictions,
    files,
    behaviour,
    cancelCalls,
    deletedFiles,
    last: () => [...predictions.values()].at(-1),
    inject: (route, fault) => server.faults.inject(route, fault),
    clearFaults: () => server.faults.clear(),
    close: () => server.close(),
  };
}

/** PNG, JPEG or WebP, by their first bytes. */
function isImage(bytes: Buffer): boolean {
  if (bytes.length < 12) return false;
  return bytes.readUInt32BE(0) === 0x89504e47 || (bytes[0] === 0xff && bytes[1] === 0xd8) || (bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP');
}
