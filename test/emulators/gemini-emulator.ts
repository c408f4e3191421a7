// The Gemini API (generativelanguage.googleapis.com) as a loopback emulator with fault
// injection, written from the official SDK (js-genai: src/models.ts, src/operations.ts,
// src/_api_client.ts, the mldev converters, src/node/_node_downloader.ts) and the API docs:
//   GET  /v1beta/models?pageSize=&pageToken=              models.list  {models, nextPageToken}
//   POST /v1beta/models/{model}:generateContent           images (gemini-content.ts)
//   POST /v1beta/models/{model}:predictLongRunning        Veo (gemini-veo.ts)  -> Operation {name}
//   GET  /v1beta/models/{model}/operations/{id}           the operation, until done
//   GET  /v1beta/files/{id}:download?alt=media            a finished video: 302 to storage
// The key is the x-goog-api-key header (the SDK's) or the ?key= query; a wrong key is 400
// API_KEY_INVALID, none 403 (gemini-errors.ts). Storage is a second server (another origin),
// which takes no key and records whether one came. There is no cancel of an operation. A done
// operation may name its file on another host (nameFilesAt), as Google's answers do to a client
// that calls through a proxy.
// Guesses (not in the SDK or docs): the file redirect and its storage URL; the emulator's
// output sizes for 3 Pro Image at 2K/4K (twice/four times the 1K table).
import type { IncomingMessage } from 'node:http';
import type { Emulator, FaultRoute, Fault, RecordedRequest } from './types.js';
import { startEmulatorServer, type RequestContext, type RouteMatch } from './serve.js';
import { type Reply, bytes, headerValue, json, parseJsonObject, queryOf, streamed } from './http-kit.js';
import { GEMINI_MODELS, googleError, invalidKey, modelNotFound, modelResource, noKey, quotaExhausted, type EmulatedModel } from './gemini-errors.js';
import { contentAnswer, parseContent, type ContentRequest, type ImageRefusal } from './gemini-content.js';
import { checkVeoBody, VeoOperation, type VeoOutcome } from './gemini-veo.js';
import { Gate } from './restartable-server.js';
import { playableMp4 } from './mp4.js';

export const GEMINI_ROUTES = ['GET models', 'POST generateContent', 'POST predictLongRunning', 'GET operation', 'GET file', 'GET download'] as const;

export interface GeminiEmulatorOptions {
  apiKey?: string;
}

export interface GeminiEmulator extends Emulator {
  /** The storage server finished videos redirect to (another origin). */
  storageOrigin: string;
  storageRequests: RecordedRequest[];
  /** Every generateContent request the API took, parsed. */
  contents: ContentRequest[];
  /** Operations by name, in creation order. */
  operations: Map<string, VeoOperation>;
  /** The next generateContent answers this instead of an image. */
  refuseNextImage(refusal: ImageRefusal): void;
  /** generateContent calls wait here (every one until released). */
  holdImages(): Gate;
  /** New operations stay running until the gate opens (then end at their next poll). */
  holdOperations(): Gate;
  /** The next operation ends so instead of with a video. */
  nextOperationEnds(outcome: VeoOutcome): void;
  /** The operation's file is gone (expired): its download is a 404. */
  expireFile(operationName: string): void;
  /**
   * Done operations name their file's URI on this origin (null: the emulator's own), as Google's
   * answers name generativelanguage.googleapis.com whatever address (a proxy) the client called.
   */
  nameFilesAt(origin: string | null): void;
}

export async function startGeminiEmulator(options: GeminiEmulatorOptions = {}): Promise<GeminiEmulator> {
  const apiKey = options.apiKey ?? 'AIzaSyEmulator-gemini-key-0123456789';
  const contents: ContentRequest[] = [];
  const operations = new Map<string, VeoOperation>();
  const refusals: ImageRefusal[] = [];
  const endings: VeoOutcome[] = [];
  let imageGate: Gate | null = null;
  let operationGate: Gate | null = null;
  let origin = '';
  let storageOrigin = '';
  let fileOrigin: string | null = null;

  const modelOf = (id: string) => GEMINI_MODELS.find((m) => m.id === id);

  async function generateContent(ctx: RequestContext, id: string): Promise<Reply> {
    const model = modelOf(id);
    if (!model || !model.supportedGenerationMethods.includes('generateContent')) return modelNotFound(id, 'generateContent');
    const body = parseJsonObject(ctx.body);
    if (!body) return googleError(400, 'Invalid JSON payload received.');
    const parsed = parseContent(model, body);
    if (!parsed.ok) return parsed.reply;
    contents.push(parsed.request);
    if (imageGate) await imageGate.wait();
    return contentAnswer(model, parsed, refusals.shift());
  }

  function predictLongRunning(ctx: RequestContext, id: string): Reply {
    const model = modelOf(id);
    if (!model?.veo) return modelNotFound(id, 'predictLongRunning');
    const body = parseJsonObject(ctx.body);
    if (!body) return googleError(400, 'Invalid JSON payload received.');
    const refused = checkVeoBody(model, body);
    if (refused) return refused;
    const operation = new VeoOperation(id, body, endings.shift() ?? 'video', operationGate);
    operations.set(operation.name, operation);
    return json(200, { name: operation.name });
  }

  function operation(name: string): Reply {
    const found = operations.get(name);
    return found ? json(200, found.view(fileOrigin ?? origin)) : googleError(404, `Operation ${name} not found.`);
  }

  function file(fileId: string): Reply {
    const found = [...operations.values()].find((op) => op.fileId === fileId && op.done && op.outcome === 'video');
    if (!found || found.expired) return googleError(404, `File ${fileId} not found.`);
    return { status: 302, headers: { location: `${storageOrigin}/download/${fileId}?token=${found.id}` }, body: Buffer.alloc(0) };
  }

  function download(fileId: string, token: string | null): Reply {
    const found = [...operations.values()].find((op) => op.fileId === fileId && op.id === token);
    if (!found || found.expired) return bytes(404, Buffer.from('Not Found'), 'text/plain');
    const mp4 = playableMp4({ ...found.size, durationMs: found.seconds * 1000, fps: 24 });
    return streamed(bytes(200, mp4, 'video/mp4'));
  }

  function listModels(ctx: RequestContext): Reply {
    const query = queryOf(ctx.path);
    const size = Math.max(1, Math.min(1000, Number(query.get('pageSize') ?? '50') || 50));
    const start = Number(query.get('pageToken') ?? '0') || 0;
    const page = GEMINI_MODELS.slice(start, start + size).map(modelResource);
    const next = start + size < GEMINI_MODELS.length ? { nextPageToken: String(start + size) } : {};
    return json(200, { models: page, ...next });
  }

  function resolve(method: string, pathname: string): RouteMatch | undefined {
    if (method === 'GET' && pathname === '/v1beta/models') return { route: 'GET models', handle: listModels };
    const call = /^\/v1beta\/models\/([^/:]+):(generateContent|predictLongRunning)$/.exec(pathname);
    if (call && method === 'POST') {
      const id = decodeURIComponent(call[1]!);
      if (call[2] === 'generateContent') return { route: 'POST generateContent', handle: (ctx) => generateContent(ctx, id) };
      return { route: 'POST predictLongRunning', handle: (ctx) => predictLongRunning(ctx, id) };
    }
    const op = /^\/v1beta\/(models\/[^/]+\/operations\/[^/]+)$/.exec(pathname);
    if (op && method === 'GET') return { route: 'GET operation', handle: () => operation(op[1]!) };
    const media = /^\/v1beta\/files\/([a-z0-9]+):download$/.exec(pathname);
    if (media && method === 'GET') return { route: 'GET file', handle: () => file(media[1]!) };
    return undefined;
  }

  const api = await startEmulatorServer({
    knownRoutes: GEMINI_ROUTES,
    resolve,
    notFound: (method, pathname) => googleError(404, `Method not found: ${method} ${pathname}`),
    authorize: (req) => authorize(apiKey, req),
    errorReply: (status, message) => (status === 429 && message === undefined ? quotaExhausted('gemini-2.5-flash-image', '7s') : googleError(status, message)),
  });
  const storage = await startEmulatorServer({
    knownRoutes: ['GET download'],
    resolve: (method, pathname) => {
      const found = /^\/download\/([a-z0-9]+)$/.exec(pathname);
      return found && method === 'GET' ? { route: 'GET download', public: true, handle: (ctx) => download(found[1]!, queryOf(ctx.path).get('token')) } : undefined;
    },
    notFound: () => bytes(404, Buffer.from('Not Found'), 'text/plain'),
    authorize: () => undefined,
    errorReply: (status) => bytes(status, Buffer.from(`<html><body>Error ${status}</body></html>`), 'text/html'),
  });
  origin = api.origin;
  storageOrigin = storage.origin;

  return {
    baseUrl: api.origin,
    origin: api.origin,
    storageOrigin,
    apiKey,
    routes: GEMINI_ROUTES,
    requests: api.requests,
    storageRequests: storage.requests,
    contents,
    operations,
    refuseNextImage: (refusal) => void refusals.push(refusal),
    holdImages: () => (imageGate = new Gate()),
    holdOperations: () => (operationGate = new Gate()),
    nextOperationEnds: (outcome) => void endings.push(outcome),
    expireFile: (name) => {
      const found = operations.get(name);
      if (!found) throw new Error(`no operation ${name}`);
      found.expired = true;
    },
    nameFilesAt: (at) => {
      fileOrigin = at;
    },
    inject: (route: FaultRoute, fault: Fault) => (route === 'GET download' ? storage.faults.inject(route, fault) : api.faults.inject(route, fault)),
    clearFaults: () => {
      api.faults.clear();
      storage.faults.clear();
    },
    close: async () => {
      imageGate?.release();
      await Promise.all([api.close(), storage.close()]);
    },
  };
}

function authorize(apiKey: string, req: IncomingMessage): Reply | undefined {
  const key = headerValue(req, 'x-goog-api-key') ?? queryOf(req.url ?? '').get('key') ?? undefined;
  if (!key) return noKey();
  return key === apiKey ? undefined : invalidKey();
}

export type { EmulatedModel, ImageRefusal, VeoOutcome };
