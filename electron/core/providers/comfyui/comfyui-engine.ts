// ComfyUI's HTTP routes, as server.py serves them: POST /upload/image (multipart `image`,
// `type`, `overwrite` -> {name, subfolder, type}), POST /prompt ({prompt, client_id, prompt_id}
// -> {prompt_id, number, node_errors}; 400 {error, node_errors}), GET /history/{id} ({} until
// the run has ended, then {id: entry}), GET /queue ({queue_running, queue_pending}, items
// [number, prompt_id, prompt, extra_data, outputs]), POST /interrupt ({prompt_id}: only when that
// prompt runs), POST /queue ({delete: [ids]}: pending ones), GET /view?filename&subfolder&type.
import type { UpstreamClient, UpstreamStream } from '../upstream/upstream-client.js';
import { errorForStatus, invalidResponse, unavailable } from '../upstream/upstream-errors.js';
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
   * engine picks its own, which is then the one returned). A 400 is read here, not by the shared
   * client, which never hands an error body back: its node_errors name what the engine refused.
   */
  async queuePrompt(prompt: Workflow, clientId: string, promptId: string, signal?: AbortSignal): Promise<string> {
    const { status, text } = await this.rawPost('/prompt', { prompt, client_id: clientId, prompt_id: promptId }, signal);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      if (status >= 200 && status < 300) throw invalidResponse('the queued prompt answer is not JSON');
      body = null;
    }
    if (status === 400) throw refusedPrompt(body);
    if (status < 200 || status >= 300) throw errorForStatus(status, null);
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

  private async rawPost(path: string, json: unknown, signal?: AbortSignal): Promise<{ status: number; text: string }> {
    const { request } = await import('undici');
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), STATUS_TIMEOUT_MS);
    const cancel = () => controller.abort();
    signal?.addEventListener('abort', cancel, { once: true });
    try {
      const response = await request(`${this.base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(json),
        signal: controller.signal,
      });
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of response.body) {
        size += (chunk as Buffer).length;
        if (size > MAX_PROMPT_ANSWER_BYTES) {
          response.body.destroy();
          throw invalidResponse('the answer to the queued prompt is too large');
        }
        chunks.push(chunk as Buffer);
      }
      return { status: response.statusCode, text: Buffer.concat(chunks).toString('utf8') };
    } catch (error) {
      if (error instanceof Error && error.name === 'GatewayError') throw error;
      throw unavailable(signal?.aborted ? 'the request was cancelled' : controller.signal.aborted ? 'timed out' : 'could not connect');
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', cancel);
    }
  }
}

/** The prompt ids of /queue's running or pending list. */
function idsOf(items: unknown): string[] {
  return Array.isArray(items) ? items.filter((item): item is unknown[] => Array.isArray(item)).map((item) => item[1]).filter((id): id is string => typeof id === 'string') : [];
}
