// ComfyUI's HTTP routes, as server.py serves them: POST /upload/image (multipart `image`,
// `type`, `overwrite` -> {name, subfolder, type}), POST /prompt ({prompt, client_id, prompt_id}
// -> {prompt_id, number, node_errors}; 400 {error, node_errors}), GET /history/{id} ({} until
// the run has ended, then {id: entry}), GET /queue ({queue_running, queue_pending}, items
// [number, prompt_id, prompt, extra_data, outputs]), POST /interrupt ({prompt_id}: only when that
// prompt runs), POST /queue ({delete: [ids]}: pending ones), GET /view?filename&subfolder&type.
import { GatewayError } from '../../errors.js';
import type { UpstreamClient, UpstreamRequest, UpstreamStream } from '../upstream/upstream-client.js';
import { invalidResponse, unavailable, UpstreamStatusError } from '../upstream/upstream-errors.js';
import type { Workflow } from '../templates/placeholders.js';
import { isObject } from './comfyui-checks.js';
import { refusedPrompt } from './comfyui-errors.js';
import type { OutputFile } from './comfyui-mapping.js';

/** Status calls (history, queue, interrupt) on an engine that is on this machine or the LAN. */
export const STATUS_TIMEOUT_MS = 30_000;
/** The longest a refusal body of POST /prompt may be (node errors list a few inputs each). */
const MAX_PROMPT_ANSWER_BYTES = 4 * 1024 * 1024;

export type QueuePlace = 'running' | 'pending' | 'absent';

export class ComfyEngine {
  constructor(
    readonly base: string,
    private readonly http: UpstreamClient,
  ) {}

  /** Uploads a reference to the input folder; returns the name LoadImage takes (subfolder/name). */
  async upload(bytes: Buffer, mime: string, name: string, signal?: AbortSignal): Promise<string> {
    const { FormData } = await import('undici');
    const form = new FormData();
    form.append('image', new Blob([bytes], { type: mime }), name);
    form.append('type', 'input');
    form.append('overwrite', 'true');
    const { body } = await this.http.json<unknown>({ method: 'POST', url: `${this.base}/upload/image`, form, timeoutMs: 120_000, ...(signal ? { signal } : {}) });
    if (!isObject(body) || typeof body.name !== 'string' || body.name === '') throw invalidResponse('the uploaded image has no name');
    const subfolder = typeof body.subfolder === 'string' ? body.subfolder : '';
    return subfolder ? `${subfolder}/${body.name}` : body.name;
  }

  /**
   * Queues a workflow under the gateway's prompt id (ComfyUI takes one since late 2024; an older
   * engine picks its own, which is then the one returned). A 400 is read from the head of its body
   * the shared client keeps: its node_errors name what the engine refused.
   */
  async queuePrompt(prompt: Workflow, clientId: string, promptId: string, signal?: AbortSignal): Promise<string> {
    const request: UpstreamRequest = { method: 'POST', url: `${this.base}/prompt`, json: { prompt, client_id: clientId, prompt_id: promptId }, timeoutMs: STATUS_TIMEOUT_MS, ...(signal ? { signal } : {}) };
    let body: unknown;
    try {
      const answer = await this.http.bytes(request, MAX_PROMPT_ANSWER_BYTES);
      body = this.http.parseBody(request, answer.status, new TextDecoder().decode(answer.body), (text) => JSON.parse(text) as unknown);
    } catch (error) {
      if (error instanceof UpstreamStatusError) {
        if (error.upstreamStatus === 400) throw refusedPrompt(jsonOrNull(error.upstreamBody));
        throw error;
      }
      // The shared client says "timed out" for any abort; the caller's signal means the client left.
      if (signal?.aborted && error instanceof GatewayError && error.code === 'upstream_unavailable') throw unavailable('the request was cancelled');
      throw error;
    }
    if (!isObject(body) || typeof body.prompt_id !== 'string' || body.prompt_id === '') throw invalidResponse('the queued prompt has no prompt_id');
    return body.prompt_id;
  }

  /** The history entry of a prompt that has ended; null while it has not (or was never there). */
  async history(promptId: string): Promise<unknown> {
    const { body } = await this.http.json<unknown>({ method: 'GET', url: `${this.base}/history/${encodeURIComponent(promptId)}`, timeoutMs: STATUS_TIMEOUT_MS });
    if (!isObject(body)) throw invalidResponse('the history is not an object');
    return body[promptId] ?? null;
  }

  async place(promptId: string): Promise<QueuePlace> {
    const { body } = await this.http.json<unknown>({ method: 'GET', url: `${this.base}/queue`, timeoutMs: STATUS_TIMEOUT_MS });
    if (!isObject(body)) throw invalidResponse('the queue is not an object');
    if (idsOf(body.queue_running).includes(promptId)) return 'running';
    if (idsOf(body.queue_pending).includes(promptId)) return 'pending';
    return 'absent';
  }

  /**
   * Stops a prompt: removed from the queue when pending, interrupted when running. /interrupt is
   * sent only for a prompt seen running: an engine from before targeted interrupts ignores the
   * prompt_id and would stop whatever runs, someone else's work included.
   */
  async cancel(promptId: string): Promise<QueuePlace> {
    let place = await this.place(promptId);
    if (place === 'pending') {
      await this.post('/queue', { delete: [promptId] });
      // It may have started between the two calls.
      place = await this.place(promptId);
      if (place !== 'running') return 'pending';
    }
    if (place === 'running') await this.post('/interrupt', { prompt_id: promptId });
    return place;
  }

  /** An output file, streamed. */
  view(file: OutputFile, maxBytes: number, timeoutMs: number, signal?: AbortSignal): Promise<UpstreamStream> {
    const query = new URLSearchParams({ filename: file.filename, subfolder: file.subfolder, type: file.type });
    return this.http.open({ method: 'GET', url: `${this.base}/view?${query}`, timeoutMs, ...(signal ? { signal } : {}) }, maxBytes);
  }

  async systemStats(timeoutMs: number): Promise<unknown> {
    return (await this.http.json<unknown>({ method: 'GET', url: `${this.base}/system_stats`, timeoutMs })).body;
  }

  async get(path: string, timeoutMs: number): Promise<unknown> {
    return (await this.http.json<unknown>({ method: 'GET', url: `${this.base}${path}`, timeoutMs })).body;
  }

  private async post(path: string, json: unknown): Promise<void> {
    const stream = await this.http.open({ method: 'POST', url: `${this.base}${path}`, json, timeoutMs: STATUS_TIMEOUT_MS });
    for await (const _ of stream.body); // an empty 200
  }
}

/** A refusal body as JSON; null when it is not JSON (a proxy's page, or a body cut at its head). */
function jsonOrNull(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** The prompt ids of /queue's running or pending list. */
function idsOf(items: unknown): string[] {
  return Array.isArray(items) ? items.filter((item): item is unknown[] => Array.isArray(item)).map((item) => item[1]).filter((id): id is string => typeof id === 'string') : [];
}
