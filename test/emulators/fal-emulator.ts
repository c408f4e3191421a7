// fal-style queue fake upstream on 127.0.0.1 with `Authorization: Key <key>` and fault injection.
// Docs followed: https://docs.fal.ai/model-endpoints/queue (submit POST /{model_id}[/{subpath}] ->
// {request_id, response_url, status_url, cancel_url, queue_position}; GET .../status; GET result;
// PUT .../cancel), https://fal.ai/docs/api-reference/inference-api (status/result/cancel URLs use
// only owner/app, never the endpoint subpath; clients must use the returned URLs),
// https://fal.ai/docs/inference-api/queue/cancel (cancel statuses CANCELLATION_REQUESTED,
// ALREADY_COMPLETED, NOT_FOUND). Layout here, on purpose unlike the submit path:
//   submit  POST /{owner}/{app}[/{subpath...}]
//   status  GET  /q/{owner}/{app}/requests/{id}/status
//   result  GET  /q/{owner}/{app}/requests/{id}
//   cancel  PUT  /q/{owner}/{app}/requests/{id}/cancel
//   files   GET  /files/{name}             (public, like fal's CDN)
// so a client that builds URLs itself, even the documented way, gets 404 and fails.
// The models it models (fal-schemas.ts) refuse invalid input with fal's 422 {detail: [...]};
// media files (a playable H.264 MP4 for videos, PNGs) are streamed in chunks.
// With signedUrls, each returned URL also carries its own ?sig=, so none can be derived from
// another (response_url + '/status' is a 404), as with queue partners that sign their URLs.
// Guesses (not in the docs): a queue call on the documented layout for a request this queue never
// issued is checked for the key first (401), then 404 NOT_FOUND; response_url before completion -> 400 {detail: 'Request is still in
// progress'} (the message fal clients are seen to match on); cancel answers 202 / 400
// ALREADY_COMPLETED / 404 NOT_FOUND; a cancelled request reads COMPLETED with `error` and its
// result is 400; 401 bodies are {detail: string}; failed requests' status carries error/error_type.
import type { IncomingMessage } from 'node:http';
import type { Emulator } from './types.js';
import { startEmulatorServer, type RequestContext, type RouteMatch } from './serve.js';
import { type Reply, bytes, headerValue, json, parseJsonObject, queryOf, streamed } from './http-kit.js';
import { validateInput } from './fal-schemas.js';
import { FalJob, type FalBehaviour, type FalFailure, type FalKind, type FalUrlKind } from './fal-queue.js';

export interface FalEmulatorOptions {
  apiKey?: string;
  /** IN_QUEUE -> IN_PROGRESS -> COMPLETED takes this long (default 300 ms). */
  durationMs?: number;
  /** New requests never complete. */
  stuck?: boolean;
  /** New requests fail (true: a 422 content_policy_violation model error). */
  fail?: boolean | FalFailure;
  kind?: FalKind | 'auto';
  /** Serve images at exactly the requested size (default: longer side capped at 256 px). */
  exactSize?: boolean;
  /** Sign each returned URL on its own (see FalBehaviour.signedUrls). */
  signedUrls?: boolean;
  /** Bytes of one second of a video file (default: a realistic bitrate for its size, see playableMp4). */
  videoBytesPerSecond?: number;
}

export interface FalEmulator extends Emulator {
  jobs: Map<string, FalJob>;
  behaviour: FalBehaviour;
  /** Request ids passed to PUT cancel, in order. */
  cancelCalls: string[];
}

export const FAL_ROUTES = ['POST submit', 'GET status', 'GET result', 'PUT cancel', 'GET file'] as const;

const detail = (status: number, message: string, headers: Record<string, string> = {}): Reply => json(status, { detail: message }, headers);

function authorize(apiKey: string, req: IncomingMessage): Reply | undefined {
  const header = headerValue(req, 'authorization');
  if (!header) return detail(401, 'Missing Authorization header. Use "Authorization: Key <your fal key>".');
  return header === `Key ${apiKey}` ? undefined : detail(401, 'Invalid fal key.');
}

export async function startFalEmulator(options: FalEmulatorOptions = {}): Promise<FalEmulator> {
  const apiKey = options.apiKey ?? 'fal-emulator-key-id:fal-emulator-secret';
  const jobs = new Map<string, FalJob>();
  const cancelCalls: string[] = [];
  const behaviour: FalBehaviour = {
    durationMs: options.durationMs ?? 300,
    stuck: options.stuck ?? false,
    fail: options.fail ?? false,
    kind: options.kind ?? 'auto',
    exactSize: options.exactSize ?? false,
    signedUrls: options.signedUrls ?? false,
    ...(options.videoBytesPerSecond ? { videoBytesPerSecond: options.videoBytesPerSecond } : {}),
  };
  let origin = '';

  const urls = (job: FalJob) => {
    const base = `${origin}/q/${job.owner}/${job.app}/requests/${job.id}`;
    const signed = (url: string, kind: FalUrlKind) => (job.signatures ? `${url}?sig=${job.signatures[kind]}` : url);
    return { request_id: job.id, response_url: signed(base, 'result'), status_url: signed(`${base}/status`, 'status'), cancel_url: signed(`${base}/cancel`, 'cancel') };
  };

  function queuePosition(job: FalJob): number {
    // Map order is submit order: count the still-queued requests submitted before this one.
    let ahead = 0;
    for (const other of jobs.values()) {
      if (other === job) break;
      if (other.status === 'IN_QUEUE') ahead++;
    }
    return ahead;
  }

  function submit(ctx: RequestContext, modelPath: string): Reply {
    const input = parseJsonObject(ctx.body);
    if (!input) return json(422, { detail: [{ loc: ['body'], msg: 'Input should be a valid JSON object', type: 'model_attributes_type' }] });
    const invalid = validateInput(modelPath, input);
    if (invalid.length > 0) return json(422, { detail: invalid });
    const job = new FalJob(modelPath, input, behaviour);
    jobs.set(job.id, job);
    return json(200, { status: 'IN_QUEUE', ...urls(job), queue_position: queuePosition(job) });
  }

  function status(ctx: RequestContext, job: FalJob): Reply {
    const current = job.status;
    const withLogs = queryOf(ctx.path).get('logs') === '1';
    const logs = withLogs ? [{ message: `emulator: ${current}`, level: 'INFO', source: 'USER', timestamp: new Date().toISOString() }] : null;
    const base = { status: current, ...urls(job) };
    if (current === 'IN_QUEUE') return json(202, { ...base, queue_position: queuePosition(job) });
    if (current === 'IN_PROGRESS') return json(202, { ...base, logs });
    const body: Record<string, unknown> = { ...base, logs, metrics: { inference_time: job.inferenceTime() } };
    if (job.cancelled) Object.assign(body, { error: 'Request was cancelled', error_type: 'request_cancelled' });
    else if (job.failure) Object.assign(body, { error: `Request failed with HTTP ${job.failure.status}`, error_type: job.failure.errorType ?? 'model_error' });
    return json(200, body);
  }

  function result(job: FalJob): Reply {
    if (job.status !== 'COMPLETED') return detail(400, 'Request is still in progress');
    if (job.cancelled) return detail(400, 'Request was cancelled');
    if (job.failure) {
      const headers: Record<string, string> = job.failure.errorType ? { 'x-fal-error-type': job.failure.errorType } : {};
      return json(job.failure.status, job.failure.body, headers);
    }
    return json(200, job.outputFor(origin).result);
  }

  function cancel(job: FalJob): Reply {
    cancelCalls.push(job.id);
    if (job.status === 'COMPLETED') return json(400, { status: 'ALREADY_COMPLETED' });
    job.cancelled = true;
    return json(202, { status: 'CANCELLATION_REQUESTED' });
  }

  function file(name: string): Reply {
    const id = name.replace(/(-\d+)?\.(mp4|png)$/, '');
    const job = jobs.get(id);
    const found = job && job.status === 'COMPLETED' && !job.cancelled && !job.failure ? job.outputFor(origin).files.get(name) : undefined;
    return found ? streamed(bytes(200, found.bytes, found.contentType)) : detail(404, 'File not found');
  }

  function resolve(method: string, pathname: string): RouteMatch | undefined {
    const segments = pathname.split('/').filter((part) => part !== '').map((part) => decodeURIComponent(part));
    if (segments[0] === 'files' && segments.length === 2 && method === 'GET') {
      const name = segments[1] ?? '';
      return { route: 'GET file', public: true, handle: () => file(name) };
    }
    if (segments[0] === 'q') {
      const [, owner, app, requests, id, action] = segments;
      if (requests !== 'requests' || !id || segments.length > 6) return undefined;
      // A signed URL without its own signature (one built from another URL) names no request.
      const withJob = (kind: FalUrlKind, fn: (job: FalJob, ctx: RequestContext) => Reply) => (ctx: RequestContext) => {
        const job = jobs.get(id);
        const signed = !job?.signatures || queryOf(ctx.path).get('sig') === job.signatures[kind];
        return job && job.owner === owner && job.app === app && signed ? fn(job, ctx) : json(404, { detail: `Request ${id} not found`, status: 'NOT_FOUND' });
      };
      if (action === 'status' && method === 'GET') return { route: 'GET status', handle: withJob('status', (job, ctx) => status(ctx, job)) };
      if (action === 'cancel' && method === 'PUT') return { route: 'PUT cancel', handle: withJob('cancel', cancel) };
      if (action === undefined && method === 'GET') return { route: 'GET result', handle: withJob('result', result) };
      return undefined;
    }
    // The documented queue layout ({owner}/{app}/requests/{id}[/status|/cancel]) names no request
    // here (this emulator hands out /q/ URLs), but like any queue call it needs the key first.
    const at = segments.indexOf('requests');
    const action = segments[at + 2];
    if ((method === 'GET' || method === 'PUT') && at >= 2 && segments[at + 1] && segments.length <= at + 3 && (action === undefined || action === 'status' || action === 'cancel')) {
      const id = segments[at + 1];
      return { route: 'unknown', handle: () => json(404, { detail: `Request ${id} not found`, status: 'NOT_FOUND' }) };
    }
    if (method === 'POST' && segments.length >= 2) {
      const modelPath = segments.join('/');
      return { route: 'POST submit', handle: (ctx) => submit(ctx, modelPath) };
    }
    return undefined;
  }

  const server = await startEmulatorServer({
    knownRoutes: FAL_ROUTES,
    resolve,
    notFound: () => detail(404, 'Not Found'),
    authorize: (req) => authorize(apiKey, req),
    errorReply: (code, message) => detail(code, message ?? `Upstream error (HTTP ${code})`),
  });
  origin = server.origin;

  return {
    baseUrl: server.origin,
    origin: server.origin,
    apiKey,
    routes: FAL_ROUTES,
    requests: server.requests,
    jobs,
    behaviour,
    cancelCalls,
    inject: (route, fault) => server.faults.inject(route, fault),
    clearFaults: () => server.faults.clear(),
    close: () => server.close(),
  };
}
