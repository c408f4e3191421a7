// A loopback ComfyUI server for integration tests, written from ComfyUI's source
// (github.com/Comfy-Org/ComfyUI at a125cd8, v0.3.64): server.py (routes, /ws, send_sync, the 400
// answer {error, node_errors}), execution.py (validate_prompt/validate_inputs, PromptExecutor,
// PromptQueue), main.py (prompt_worker, hijack_progress), protocol.py, comfy_api/feature_flags.py,
// comfy_api/latest/_ui.py (SavedResult, PreviewVideo: images + animated [true]) and _io.py (V3
// node info, COMBO inputs), comfy_execution/{graph,caching,progress,validation}.py, folder_paths.py,
// nodes.py, comfy/samplers.py, comfy_extras/nodes_{video,hunyuan,lt}.py, comfyui_version.py; and
// Kosinkadink/ComfyUI-VideoHelperSuite (VHS_VideoCombine: ui {gifs: [...]}, video_formats/).
// Split by concern: comfyui-routes (HTTP), comfyui-ws (websocket hub), comfyui-graph
// (validation), comfyui-order (execution order), comfyui-engine (execution, events, cache),
// comfyui-queue (queue, worker, history), comfyui-node-types / comfyui-nodes /
// comfyui-nodes-video (node classes, /object_info), comfyui-run (what nodes produce),
// comfyui-files (upload, view), comfyui-media (PNG/JPEG/MP4/WebM bytes), comfyui-stats
// (/system_stats), comfyui-python (Python wording of messages).
// Not modelled: subgraphs/node expansion, lazy inputs, async nodes, /upload/mask, /userdata,
// /internal, LRU cache; tensors are replaced by their sizes.
//
// Fault injection (methods of the returned object):
//   down() / up()          stop accepting connections (listener closed, sockets and websockets
//                          destroyed; the engine keeps running) / listen again on the same port
//   setStepDelay(ms)       time per sampler step (default 5 ms)
//   refuseNext(errors?)    the next POST /prompt answers 400 prompt_outputs_failed_validation
//   failAt(step, message, {exceptionType?, nodeId?})  the next sampler to reach `step` raises
//                          (execution_error, history status_str 'error')
//   failNode(idOrClass, message, {exceptionType?})    the next such node raises when it starts
//   holdAt(step)           the next sampler pauses after step's progress: {reached, release()}
//   dropWebSockets()       terminate every websocket (runs go on, history fills)
//   noWebSocket(on, status) refuse /ws upgrades with that HTTP status (default 403)
//   forget()               engine restart: queue, running prompt, history, cache, temp files and
//                          websockets gone (input/output files stay, as on disk)
//   inject(route, fault) / clearFaults()  the shared FaultTable (status, latency, reset, ...)
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Fault, FaultRoute, RecordedRequest } from './types.js';
import { FaultTable, applyFault } from './faults.js';
import { pathnameOf, readBody, send } from './http-kit.js';
import { nodeRegistry, type NodeEnv } from './comfyui-nodes.js';
import { FileStore, type UploadRecord } from './comfyui-files.js';
import { WsHub, type SentMessage, type WsConnection } from './comfyui-ws.js';
import { Executor, type Faults, type Hold } from './comfyui-engine.js';
import { PromptQueue, startWorker, type HistoryEntry } from './comfyui-queue.js';
import { COMFYUI_ROUTES, crash, resolveRoute, text, type RecordedInterrupt, type RecordedPrompt, type RecordedQueueEdit, type RouteState } from './comfyui-routes.js';
import type { NodeErrors } from './comfyui-graph.js';
import { systemStats, type SystemStatsOverrides } from './comfyui-stats.js';

export interface ComfyUIEmulatorOptions {
  /** models/checkpoints (default: three common file names). */
  checkpoints?: string[];
  /** ckpt_name in /object_info: 'list' [[names], {...}] (V1, default) or 'combo' ["COMBO", {options}]. */
  comboForm?: 'list' | 'combo';
  /** false: /models and /models/{folder} do not exist (404), as on servers without them. */
  modelsRoute?: boolean;
  stepDelayMs?: number;
  /** Binary preview frames during sampling (latent2rgb previews; default true). */
  previews?: boolean;
  /** 'classic' (default, the real default): an identical re-run is all cached; 'none': never. */
  cache?: 'classic' | 'none';
  /** Register VHS_VideoCombine (ComfyUI-VideoHelperSuite) (default true). */
  videoHelperSuite?: boolean;
  systemStats?: SystemStatsOverrides;
  /** Seed for PreviewImage's random file name suffix. */
  seed?: number;
}

export interface ComfyUIEmulator {
  origin: string;
  routes: readonly string[];
  requests: RecordedRequest[];
  prompts: RecordedPrompt[];
  uploads: UploadRecord[];
  interrupts: RecordedInterrupt[];
  queueDeletes: RecordedQueueEdit[];
  wsConnections: WsConnection[];
  /** Every JSON websocket message the server sent (sid null = broadcast). */
  wsMessages: SentMessage[];
  /** The history entry once the prompt finished (waits for it). */
  waitForHistory(promptId: string): Promise<HistoryEntry>;
  /** Resolves when nothing is queued or running. */
  idle(): Promise<void>;
  /** A file the server holds (type 'input' | 'output' | 'temp', path 'sub/name.png'). */
  file(type: 'input' | 'output' | 'temp', path: string): Buffer | undefined;
  down(): Promise<void>;
  up(): Promise<void>;
  setStepDelay(ms: number): void;
  refuseNext(nodeErrors?: NodeErrors): void;
  failAt(step: number, message: string, options?: { exceptionType?: string; nodeId?: string }): void;
  failNode(match: string, message: string, options?: { exceptionType?: string }): void;
  holdAt(step: number): Hold;
  dropWebSockets(): void;
  noWebSocket(on?: boolean, status?: number): void;
  forget(): void;
  inject(route: FaultRoute, fault: Fault): void;
  clearFaults(): void;
  close(): Promise<void>;
}

const DEFAULT_CHECKPOINTS = ['v1-5-pruned-emaonly-fp16.safetensors', 'sd_xl_base_1.0.safetensors', 'ltx-video-2b-v0.9.5.safetensors'];
const MODEL_FOLDERS = ['checkpoints', 'configs', 'loras', 'vae', 'text_encoders', 'diffusion_models', 'clip_vision', 'style_models', 'embeddings', 'diffusers', 'vae_approx', 'controlnet', 'gligen', 'upscale_models', 'custom_nodes', 'hypernetworks', 'photomaker', 'classifiers', 'model_patches', 'audio_encoders'];

const DEFAULT_REFUSAL: NodeErrors = {
  '4': {
    errors: [{ type: 'value_not_in_list', message: 'Value not in list', details: "ckpt_name: 'missing.safetensors' not in []", extra_info: { input_name: 'ckpt_name', input_config: [[], {}], received_value: 'missing.safetensors' } }],
    dependent_outputs: ['9'],
    class_type: 'CheckpointLoaderSimple',
  },
};

/** server.py's origin_only_middleware: a loopback Host with a different Origin gets 403. */
function originRefused(req: IncomingMessage): boolean {
  const host = req.headers.host;
  const origin = req.headers.origin;
  if (!host || !origin) return false;
  try {
    const o = new URL(origin);
    const h = new URL(`http://${host.toLowerCase()}`);
    const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(h.hostname) || h.hostname.startsWith('127.');
    const hostDomain = o.port === '' ? h.hostname : h.host;
    const originDomain = h.port === '' ? o.hostname : o.host;
    return loopback && hostDomain !== originDomain;
  } catch {
    return false;
  }
}

export async function startComfyUIEmulator(options: ComfyUIEmulatorOptions = {}): Promise<ComfyUIEmulator> {
  const checkpoints = options.checkpoints ?? DEFAULT_CHECKPOINTS;
  const store = new FileStore('/opt/ComfyUI');
  const env: NodeEnv = {
    checkpoints,
    comboForm: options.comboForm ?? 'list',
    inputImages: () => store.list('input', '').filter((name) => /\.(png|jpe?g|webp|gif|bmp|tiff?|avif|heic)$/i.test(name)).sort(),
    annotatedExists: (name) => store.resolveAnnotated(name) !== undefined,
  };
  const registry = nodeRegistry({ videoHelperSuite: options.videoHelperSuite ?? true });
  let seed = options.seed ?? 42;
  const random = () => ((seed = (seed * 1103515245 + 12345) >>> 0) % 1_000_000) / 1_000_000;
  const faults: Faults = { stepDelayMs: options.stepDelayMs ?? 5 };
  let queue!: PromptQueue;
  let executor!: Executor;
  const hub = new WsHub({ queueRemaining: () => queue.remaining(), running: () => ({ clientId: executor.clientId, lastNodeId: executor.lastNodeId }) });
  queue = new PromptQueue(() => hub.send('status', { status: { exec_info: { queue_remaining: queue.remaining() } } }, null));
  executor = new Executor({ registry, store, hub, faults, cache: options.cache ?? 'classic', previews: options.previews ?? true, random });
  const finished = new Map<string, (() => void)[]>();
  let idleWaiters: (() => void)[] = [];
  const settle = () => {
    if (queue.remaining() > 0) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    waiters.forEach((w) => w());
  };
  const worker = startWorker(queue, executor, {
    send: (event, data, sid) => hub.send(event, data, sid),
    started: () => undefined,
    finished: (promptId) => {
      finished.get(promptId)?.forEach((w) => w());
      finished.delete(promptId);
      settle();
    },
  });

  let port = 0;
  const state: RouteState = {
    registry, env, store, queue, executor, number: 0, refuseNext: undefined, modelsRoute: options.modelsRoute ?? true,
    modelFolders: registry.has('VHS_VideoCombine') ? [...MODEL_FOLDERS, 'VHS_video_formats'] : MODEL_FOLDERS, checkpoints,
    systemStats: () => systemStats(port, options.systemStats), prompts: [], uploads: [], interrupts: [], queueDeletes: [],
  };
  const requests: RecordedRequest[] = [];
  const faultTable = new FaultTable(COMFYUI_ROUTES);
  const sockets = new Set<Socket>();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    const rawPathname = pathnameOf(path);
    const pathname = rawPathname.startsWith('/api/') ? rawPathname.slice(4) : rawPathname;
    const body = await readBody(req);
    const match = pathname === '/ws' ? undefined : resolveRoute(state, method, pathname);
    const route = typeof match === 'object' ? match.route : pathname === '/ws' ? 'GET /ws' : 'unknown';
    requests.push({ method, path, headers: { ...req.headers }, body, route });
    const fault = faultTable.take([route, `${method} ${rawPathname}`, '*']);
    let extra: { extraHeaders: Record<string, string>; truncate: boolean } = { extraHeaders: {}, truncate: false };
    if (fault) {
      const outcome = await applyFault(req, res, fault, (status) => text(status, `${status}: ${status >= 500 ? 'Internal Server Error' : 'Error'}`));
      if (outcome.handled) return;
      extra = outcome;
    }
    let reply;
    if (originRefused(req)) reply = { status: 403, headers: { 'content-type': 'application/octet-stream' }, body: Buffer.alloc(0) };
    else if (pathname === '/ws') reply = text(400, 'No WebSocket UPGRADE hdr: None\n Can "Upgrade" only to "WebSocket".');
    else if (match === 'method') reply = text(405, '405: Method Not Allowed');
    else if (!match) reply = text(404, '404: Not Found');
    else reply = await match.handle(req, path, body);
    send(res, reply, extra);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (res.headersSent) res.destroy();
      else send(res, crash());
    });
  });
  server.keepAliveTimeout = 10_000;
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('upgrade', (req, socket, head) => {
    const path = req.url ?? '/';
    requests.push({ method: req.method ?? 'GET', path, headers: { ...req.headers }, body: Buffer.alloc(0), route: 'GET /ws' });
    if (originRefused(req)) socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    else hub.handleUpgrade(req, socket, head);
  });
  const listen = (at: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(at, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  await listen(0);
  port = (server.address() as AddressInfo).port;
  let listening = true;
  const stopListening = async () => {
    if (!listening) return;
    listening = false;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    hub.terminateAll();
    for (const socket of sockets) socket.destroy();
    await closed;
  };

  return {
    origin: `http://127.0.0.1:${port}`,
    routes: COMFYUI_ROUTES,
    requests,
    prompts: state.prompts,
    uploads: state.uploads,
    interrupts: state.interrupts,
    queueDeletes: state.queueDeletes,
    wsConnections: hub.connections,
    wsMessages: hub.sent,
    waitForHistory: (promptId) => {
      const entry = queue.history.get(promptId);
      if (entry) return Promise.resolve(structuredClone(entry));
      return new Promise((resolve) => {
        const list = finished.get(promptId) ?? [];
        list.push(() => resolve(structuredClone(queue.history.get(promptId)!)));
        finished.set(promptId, list);
      });
    },
    idle: () => (queue.remaining() === 0 ? Promise.resolve() : new Promise((resolve) => idleWaiters.push(resolve))),
    file: (type, path) => store.get(type, path)?.bytes,
    down: stopListening,
    up: async () => {
      if (listening) return;
      await listen(port);
      listening = true;
    },
    setStepDelay: (ms) => void (faults.stepDelayMs = ms),
    refuseNext: (nodeErrors) => void (state.refuseNext = nodeErrors ?? DEFAULT_REFUSAL),
    failAt: (step, message, opts = {}) => void (faults.fail = { step, message, exceptionType: opts.exceptionType ?? 'RuntimeError', nodeId: opts.nodeId }),
    failNode: (match, message, opts = {}) => void (faults.failNode = { match, message, exceptionType: opts.exceptionType ?? 'RuntimeError' }),
    holdAt: (step) => {
      let arrive!: () => void;
      let release!: () => void;
      const reached = new Promise<void>((resolve) => (arrive = resolve));
      const gate = new Promise<void>((resolve) => (release = resolve));
      faults.hold = { step, reached, release, arrive, gate };
      return { step, reached, release };
    },
    dropWebSockets: () => hub.terminateAll(),
    noWebSocket: (on = true, status = 403) => void (hub.refuse = on ? { status } : undefined),
    forget: () => {
      queue.reset();
      executor.reset();
      store.clearTemp();
      state.number = 0;
      faults.hold = undefined;
      hub.terminateAll();
      settle();
    },
    inject: (route, fault) => faultTable.inject(route, fault),
    clearFaults: () => faultTable.clear(),
    close: async () => {
      worker.stop();
      executor.reset();
      await stopListening();
      await hub.close();
    },
  };
}
