// Runway API fake upstream on 127.0.0.1, with its output storage on a second origin (as Runway's
// signed output URLs point at another host), and fault injection on both. Written from the
// official SDK (runwayml/sdk-node: src/client.ts sends `Authorization: Bearer <key>` and
// `X-Runway-Version: 2024-11-06`; src/resources/{text-to-image,image-to-video,text-to-video,tasks,
// organization}.ts; src/core/error.ts) and Runway's docs (api-details/errors: 400 with an `error`
// member, 401 bad key, 429 limits, 502-504 load shedding; assets/inputs; errors/task-failures).
//   POST   /v1/text_to_image | /v1/image_to_video | /v1/text_to_video  -> 200 {id}
//   GET    /v1/tasks/{id}    the task (runway-tasks.ts: each read answers the next scripted state)
//   DELETE /v1/tasks/{id}    204: a running task is cancelled, an ended one deleted
//   GET    /v1/organization  {creditBalance, tier: {maxMonthlyCreditSpend, models}, usage: {models}}
//   GET    {cdn}/outputs/{task}/{token}/output.{mp4|png}  public; a token expires with expire()
// Guesses (not in the SDK or docs): the bodies of 401 ({error: "Invalid API key."}), 404
// ({error: "Not found."}) and of a missing or unknown X-Runway-Version (400 {error: "...version..."});
// output URLs that have expired answer 403.
import type { IncomingMessage } from 'node:http';
import type { Emulator, Fault, FaultRoute, RecordedRequest } from './types.js';
import { startEmulatorServer, type RequestContext, type RouteMatch } from './serve.js';
import { type Reply, bytes, headerValue, json, parseJsonObject, streamed } from './http-kit.js';
import { playableMp4 } from './mp4.js';
import { cachedPng, capSize } from './png.js';
import { modelsOf, validate, type RunwayEndpoint } from './runway-schemas.js';
import { RunwayTask, type RunwayBehaviour } from './runway-tasks.js';

export interface RunwayEmulatorOptions {
  apiKey?: string;
  /** Credits /v1/organization reports (default 12500). */
  creditBalance?: number;
  /** Reads of one task closer together than this, or sooner after its creation, are counted in `fastReads` (default 0: none). */
  pollFloorMs?: number;
  behaviour?: Partial<RunwayBehaviour>;
}

export interface RunwayEmulator extends Emulator {
  /** The output storage's origin (another host to the gateway: it must get no key there). */
  cdnOrigin: string;
  cdnRequests: RecordedRequest[];
  tasks: Map<string, RunwayTask>;
  behaviour: RunwayBehaviour;
  /** Task ids passed to DELETE, in order. */
  cancelCalls: string[];
  /** Reads of a task that came sooner than pollFloorMs after its previous read. */
  fastReads: { taskId: string; gapMs: number }[];
  creditBalance: number;
  /** A held task (or every one) moves on to its end at its next reads. */
  release(taskId?: string): void;
  /** The output URLs issued so far for a task stop working (403), as Runway's do after a day or two. */
  expire(taskId: string): void;
  injectCdn(route: FaultRoute, fault: Fault): void;
}

export const RUNWAY_ROUTES = ['POST text_to_image', 'POST image_to_video', 'POST text_to_video', 'GET task', 'DELETE task', 'GET organization'] as const;
export const RUNWAY_CDN_ROUTES = ['GET output'] as const;
const VERSIONS = ['2024-11-06', '2024-09-13'];
const ENDPOINTS: readonly RunwayEndpoint[] = ['text_to_image', 'image_to_video', 'text_to_video'];

const error = (status: number, message: string, headers: Record<string, string> = {}): Reply => json(status, { error: message }, headers);

function authorize(apiKey: string, req: IncomingMessage): Reply | undefined {
  if (headerValue(req, 'authorization') !== `Bearer ${apiKey}`) return error(401, 'Invalid API key.');
  const version = headerValue(req, 'x-runway-version');
  if (!version) return error(400, 'You must specify an API version in the X-Runway-Version header.');
  if (!VERSIONS.includes(version)) return error(400, `The API version "${version}" is not supported.`);
  return undefined;
}

export async function startRunwayEmulator(options: RunwayEmulatorOptions = {}): Promise<RunwayEmulator> {
  const apiKey = options.apiKey ?? `key_${'0123456789abcdef'.repeat(8)}`;
  const tasks = new Map<string, RunwayTask>();
  const cancelCalls: string[] = [];
  const fastReads: RunwayEmulator['fastReads'] = [];
  const behaviour: RunwayBehaviour = {
    steps: [{ status: 'PENDING' }, { status: 'RUNNING', progress: 0.5 }],
    end: { status: 'SUCCEEDED' },
    hold: false,
    videoContainer: 'mp4',
    ...options.behaviour,
  };
  const state = { creditBalance: options.creditBalance ?? 12_500, cdnOrigin: '' };
  let tokenCount = 0;

  function create(ctx: RequestContext, endpoint: RunwayEndpoint): Reply {
    const body = parseJsonObject(ctx.body);
    if (!body) return error(400, 'Invalid JSON body.');
    const { issues, asset } = validate(endpoint, body);
    if (issues.length > 0) return json(400, { error: 'Validation of body failed', issues, docUrl: 'https://docs.dev.runwayml.com/api' });
    if (asset) return error(400, `${asset.field}: ${asset.reason}`);
    const task = new RunwayTask(endpoint, body, behaviour);
    tasks.set(task.id, task);
    return json(200, { id: task.id });
  }

  function read(task: RunwayTask): Reply {
    const now = Date.now();
    // Runway's floor counts from the task's creation too (its SDK waits before the first read).
    const since = task.lastReadAt ?? task.createdMs;
    if (options.pollFloorMs && now - since < options.pollFloorMs) fastReads.push({ taskId: task.id, gapMs: now - since });
    const current = task.read(now);
    const base = { id: task.id, createdAt: task.createdAt, status: current.status };
    if (current.status === 'RUNNING') return json(200, { ...base, progress: current.progress });
    if (current.status === 'FAILED') return json(200, { ...base, failure: current.failure ?? 'An unexpected error occurred.', ...(current.failureCode ? { failureCode: current.failureCode } : {}) });
    if (current.status !== 'SUCCEEDED') return json(200, base);
    // Every read of a finished task hands out fresh URLs.
    const token = `t${++tokenCount}`;
    task.tokens.add(token);
    const extension = task.kind === 'image' ? 'png' : 'mp4';
    return json(200, { ...base, output: [`${state.cdnOrigin}/outputs/${task.id}/${token}/output.${extension}?_jwt=${token}`] });
  }

  function remove(task: RunwayTask): Reply {
    cancelCalls.push(task.id);
    if (task.ended) tasks.delete(task.id);
    else task.cancelled = true;
    return { status: 204, headers: {}, body: Buffer.alloc(0) };
  }

  function organization(): Reply {
    const models = Object.fromEntries(ENDPOINTS.flatMap(modelsOf).map((model) => [model, { maxConcurrentGenerations: 2, maxDailyGenerations: 200 }]));
    const usage = Object.fromEntries([...tasks.values()].map((task) => [String(task.body.model), { dailyGenerations: 1 }]));
    return json(200, { creditBalance: state.creditBalance, tier: { maxMonthlyCreditSpend: 100_000, models }, usage: { models: usage } });
  }

  function resolve(method: string, pathname: string): RouteMatch | undefined {
    const segments = pathname.split('/').filter((part) => part !== '');
    if (segments[0] !== 'v1') return undefined;
    const [, resource, id] = segments;
    const endpoint = ENDPOINTS.find((name) => name === resource);
    if (endpoint && segments.length === 2 && method === 'POST') return { route: `POST ${endpoint}`, handle: (ctx) => create(ctx, endpoint) };
    if (resource === 'organization' && segments.length === 2 && method === 'GET') return { route: 'GET organization', handle: organization };
    if (resource === 'tasks' && id && segments.length === 3) {
      const withTask = (fn: (task: RunwayTask) => Reply) => () => {
        const task = tasks.get(decodeURIComponent(id));
        return task ? fn(task) : error(404, 'Not found.');
      };
      if (method === 'GET') return { route: 'GET task', handle: withTask(read) };
      if (method === 'DELETE') return { route: 'DELETE task', handle: withTask(remove) };
    }
    return undefined;
  }

  function output(pathname: string): Reply {
    const [, taskId = '', token = '', name = ''] = pathname.split('/').filter((part) => part !== '');
    const task = tasks.get(taskId);
    if (!task || !task.tokens.has(token)) return { status: 403, headers: { 'content-type': 'application/xml' }, body: Buffer.from('<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>') };
    if (name.endsWith('.png')) {
      const { width, height } = capSize(task.size().width, task.size().height, 256);
      return streamed(bytes(200, cachedPng(width, height), 'image/png'));
    }
    if (behaviour.videoContainer === 'webm') return streamed(bytes(200, Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3]), Buffer.alloc(4096)]), 'video/webm'));
    const { width, height } = capSize(task.size().width, task.size().height, 320);
    return streamed(bytes(200, playableMp4({ width: width - (width % 2), height: height - (height % 2), durationMs: task.seconds() * 1000, fps: 8 }), 'video/mp4'));
  }

  const server = await startEmulatorServer({
    knownRoutes: RUNWAY_ROUTES,
    resolve,
    notFound: () => error(404, 'Not found.'),
    authorize: (req) => authorize(apiKey, req),
    errorReply: (status, message) => error(status, message ?? `Upstream error (HTTP ${status})`),
  });
  const cdn = await startEmulatorServer({
    knownRoutes: RUNWAY_CDN_ROUTES,
    resolve: (method, pathname) => (method === 'GET' && pathname.startsWith('/outputs/') ? { route: 'GET output', public: true, handle: (ctx) => output(ctx.pathname) } : undefined),
    notFound: () => ({ status: 404, headers: { 'content-type': 'text/plain' }, body: Buffer.from('Not Found') }),
    authorize: () => undefined,
    errorReply: (status) => ({ status, headers: { 'content-type': 'text/plain' }, body: Buffer.from(`HTTP ${status}`) }),
  });
  state.cdnOrigin = cdn.origin;

  return {
    baseUrl: server.origin,
    origin: server.origin,
    cdnOrigin: cdn.origin,
    apiKey,
    routes: RUNWAY_ROUTES,
    requests: server.requests,
    cdnRequests: cdn.requests,
    tasks,
    behaviour,
    cancelCalls,
    fastReads,
    get creditBalance() {
      return state.creditBalance;
    },
    set creditBalance(value: number) {
      state.creditBalance = value;
    },
    release(taskId?: string) {
      for (const task of tasks.values()) if (taskId === undefined || task.id === taskId) task.held = false;
    },
    expire(taskId: string) {
      tasks.get(taskId)?.tokens.clear();
    },
    inject: (route, fault) => server.faults.inject(route, fault),
    injectCdn: (route, fault) => cdn.faults.inject(route, fault),
    clearFaults: () => {
      server.faults.clear();
      cdn.faults.clear();
    },
    close: async () => {
      await server.close();
      await cdn.close();
    },
  };
}
