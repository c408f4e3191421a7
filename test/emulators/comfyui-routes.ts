// The ComfyUI emulator's HTTP routes, after server.py's PromptServer (each also under /api):
// POST /prompt -> {prompt_id, number, node_errors} or 400 {error, node_errors}; GET /prompt;
// GET|POST /queue; POST /interrupt (with prompt_id: only if that prompt is running); GET|POST
// /history, GET /history/{prompt_id} ({} until done); GET /view; POST /upload/image;
// GET /system_stats, /features, /embeddings, /models, /models/{folder}, /object_info[/{class}].
// Bodies of bare 200s are empty, as web.Response(status=200) sends them.
import type { IncomingMessage } from 'node:http';
import { type Reply, json as jsonReply, parseJsonObject, queryOf } from './http-kit.js';
import { ServerCrash, validatePrompt, type NodeErrors, type Prompt } from './comfyui-graph.js';
import { nodeInfo, type NodeDef, type NodeEnv } from './comfyui-nodes.js';
import { type FileStore, type UploadRecord, uploadImage, viewFile } from './comfyui-files.js';
import type { PromptQueue } from './comfyui-queue.js';
import type { Executor } from './comfyui-engine.js';
import { SERVER_FEATURES } from './comfyui-ws.js';
import { pyFloatOf, pyInt, pyStr, uuid4 } from './comfyui-python.js';

/** web.json_response: application/json; charset=utf-8. */
const json = (status: number, value: unknown): Reply => jsonReply(status, value, { 'content-type': 'application/json; charset=utf-8' });

export interface RecordedPrompt {
  prompt_id: string;
  client_id: string | undefined;
  number: number;
  /** The graph as the client sent it (validation converts values in the queued copy). */
  prompt: unknown;
  extra_data: Record<string, unknown>;
  /** The answer's status: 200 queued, 400 refused. */
  status: number;
  node_errors: NodeErrors;
}
export interface RecordedInterrupt {
  prompt_id?: string;
  /** Whether it interrupted something (a prompt_id that is not running is ignored). */
  applied: boolean;
}
export interface RecordedQueueEdit {
  delete?: unknown[];
  clear?: boolean;
}

export interface RouteState {
  registry: Map<string, NodeDef>;
  env: NodeEnv;
  store: FileStore;
  queue: PromptQueue;
  executor: Executor;
  number: number;
  refuseNext: NodeErrors | undefined;
  modelsRoute: boolean;
  modelFolders: string[];
  checkpoints: readonly string[];
  systemStats(): unknown;
  prompts: RecordedPrompt[];
  uploads: UploadRecord[];
  interrupts: RecordedInterrupt[];
  queueDeletes: RecordedQueueEdit[];
}

export interface Route {
  route: string;
  handle(req: IncomingMessage, path: string, body: Buffer): Promise<Reply> | Reply;
}

export const text = (status: number, message: string): Reply => ({ status, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: Buffer.from(message) });
export const crash = (): Reply => text(500, '500 Internal Server Error\n\nServer got itself in trouble');
const ok = (): Reply => ({ status: 200, headers: { 'content-type': 'application/octet-stream' }, body: Buffer.alloc(0) });
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function parseJson(body: Buffer): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(body.toString('utf8')) };
  } catch {
    return undefined;
  }
}

function postPrompt(state: RouteState, body: Buffer): Reply {
  const parsed = parseJson(body);
  if (!parsed || !isObject(parsed.value)) return crash();
  const data = parsed.value;
  let number: number;
  if ('number' in data) number = pyFloatOf(data.number);
  else {
    number = data.front ? -state.number : state.number;
    state.number += 1;
  }
  if (!('prompt' in data)) {
    const error = { type: 'no_prompt', message: 'No prompt provided', details: 'No prompt provided', extra_info: {} };
    return json(400, { error, node_errors: {} });
  }
  const promptId = 'prompt_id' in data ? pyStr(data.prompt_id) : uuid4();
  const submitted = structuredClone(data.prompt);
  const extraData: Record<string, unknown> = isObject(data.extra_data) ? { ...data.extra_data } : {};
  if ('client_id' in data) extraData.client_id = data.client_id;
  const record = (status: number, nodeErrors: NodeErrors) =>
    state.prompts.push({ prompt_id: promptId, client_id: typeof data.client_id === 'string' ? data.client_id : undefined, number, prompt: submitted, extra_data: extraData, status, node_errors: nodeErrors });

  if (state.refuseNext) {
    const nodeErrors = state.refuseNext;
    state.refuseNext = undefined;
    record(400, nodeErrors);
    const details = Object.values(nodeErrors).flatMap((n) => n.errors.map((e) => `${e.message}: ${e.details}`)).join('\n');
    return json(400, { error: { type: 'prompt_outputs_failed_validation', message: 'Prompt outputs failed validation', details, extra_info: {} }, node_errors: nodeErrors });
  }
  let valid;
  try {
    valid = validatePrompt(data.prompt, data.partial_execution_targets ?? null, state.registry, state.env);
  } catch (error) {
    if (error instanceof ServerCrash) return crash();
    throw error;
  }
  record(valid.ok ? 200 : 400, valid.nodeErrors);
  if (!valid.ok) return json(400, { error: valid.error, node_errors: valid.nodeErrors });
  state.queue.put([number, promptId, data.prompt as Prompt, extraData, valid.outputs]);
  return json(200, { prompt_id: promptId, number, node_errors: valid.nodeErrors });
}

function postQueue(state: RouteState, body: Buffer): Reply {
  const parsed = parseJson(body);
  if (!parsed || !isObject(parsed.value)) return crash();
  const data = parsed.value;
  const edit: RecordedQueueEdit = {};
  if ('clear' in data) {
    edit.clear = Boolean(data.clear);
    if (data.clear) state.queue.wipe();
  }
  if ('delete' in data) {
    if (!Array.isArray(data.delete)) return crash();
    edit.delete = data.delete;
    for (const id of data.delete) state.queue.delete(id);
  }
  state.queueDeletes.push(edit);
  return ok();
}

function postInterrupt(state: RouteState, body: Buffer): Reply {
  const data = parseJsonObject(body) ?? {};
  const promptId = data.prompt_id;
  if (promptId) {
    const running = state.queue.current()[0].some((item) => item[1] === promptId);
    state.interrupts.push({ prompt_id: String(promptId), applied: running });
    if (running) state.executor.interrupt();
  } else {
    state.interrupts.push({ applied: true });
    state.executor.interrupt();
  }
  return ok();
}

function getHistory(state: RouteState, path: string): Reply {
  const query = queryOf(path);
  try {
    const maxItems = query.has('max_items') ? pyInt(query.get('max_items')) : undefined;
    const offset = query.has('offset') ? pyInt(query.get('offset')) : -1;
    return json(200, state.queue.getHistory(undefined, maxItems, offset));
  } catch {
    return crash();
  }
}

function postHistory(state: RouteState, body: Buffer): Reply {
  const parsed = parseJson(body);
  if (!parsed || !isObject(parsed.value)) return crash();
  if (parsed.value.clear) state.queue.history.clear();
  if (Array.isArray(parsed.value.delete)) for (const id of parsed.value.delete) state.queue.history.delete(String(id));
  return ok();
}

/** The route for a request (path without the /api prefix), 'method' when only the method is wrong. */
export function resolveRoute(state: RouteState, method: string, pathname: string): Route | 'method' | undefined {
  const routes: [string, string, RegExp, (req: IncomingMessage, path: string, body: Buffer, m: RegExpExecArray) => Promise<Reply> | Reply][] = [
    ['POST', '/prompt', /^\/prompt$/, (_req, _path, body) => postPrompt(state, body)],
    ['GET', '/prompt', /^\/prompt$/, () => json(200, { exec_info: { queue_remaining: state.queue.remaining() } })],
    ['GET', '/queue', /^\/queue$/, () => {
      const [running, pending] = state.queue.current();
      return json(200, { queue_running: running, queue_pending: pending });
    }],
    ['POST', '/queue', /^\/queue$/, (_req, _path, body) => postQueue(state, body)],
    ['POST', '/interrupt', /^\/interrupt$/, (_req, _path, body) => postInterrupt(state, body)],
    ['GET', '/history', /^\/history$/, (_req, path) => getHistory(state, path)],
    ['POST', '/history', /^\/history$/, (_req, _path, body) => postHistory(state, body)],
    ['GET', '/history/{prompt_id}', /^\/history\/([^/]+)$/, (_req, _path, _body, m) => json(200, state.queue.getHistory(decodeURIComponent(m[1]!)))],
    ['GET', '/view', /^\/view$/, (req, path) => viewFile(state.store, queryOf(path), req.headers.range)],
    ['POST', '/upload/image', /^\/upload\/image$/, (req, _path, body) => uploadImage(state.store, req.headers['content-type'], body, state.uploads)],
    ['GET', '/system_stats', /^\/system_stats$/, () => json(200, state.systemStats())],
    ['GET', '/features', /^\/features$/, () => json(200, { ...SERVER_FEATURES })],
    ['GET', '/embeddings', /^\/embeddings$/, () => json(200, [])],
    ['GET', '/object_info', /^\/object_info$/, () => json(200, Object.fromEntries([...state.registry.values()].map((def) => [def.name, nodeInfo(def, state.env)])))],
    ['GET', '/object_info/{node_class}', /^\/object_info\/([^/]+)$/, (_req, _path, _body, m) => {
      const def = state.registry.get(decodeURIComponent(m[1]!));
      return json(200, def ? { [def.name]: nodeInfo(def, state.env) } : {});
    }],
  ];
  if (state.modelsRoute) {
    routes.push(['GET', '/models', /^\/models$/, () => json(200, state.modelFolders)]);
    routes.push(['GET', '/models/{folder}', /^\/models\/([^/]+)$/, (_req, _path, _body, m) => {
      const folder = decodeURIComponent(m[1]!);
      if (!state.modelFolders.includes(folder)) return { status: 404, headers: { 'content-type': 'application/octet-stream' }, body: Buffer.alloc(0) };
      return json(200, folder === 'checkpoints' ? [...state.checkpoints] : []);
    }]);
  }
  let methodOnly = false;
  for (const [routeMethod, name, pattern, handle] of routes) {
    const match = pattern.exec(pathname);
    if (!match) continue;
    if (routeMethod !== method && !(method === 'HEAD' && routeMethod === 'GET')) {
      methodOnly = true;
      continue;
    }
    return { route: `${routeMethod} ${name}`, handle: (req, path, body) => handle(req, path, body, match) };
  }
  return methodOnly ? 'method' : undefined;
}

export const COMFYUI_ROUTES = [
  'POST /prompt', 'GET /prompt', 'GET /queue', 'POST /queue', 'POST /interrupt', 'GET /history', 'POST /history',
  'GET /history/{prompt_id}', 'GET /view', 'POST /upload/image', 'GET /system_stats', 'GET /features', 'GET /embeddings',
  'GET /object_info', 'GET /object_info/{node_class}', 'GET /models', 'GET /models/{folder}', 'GET /ws',
] as const;
