// ComfyUI's event stream, GET /ws?clientId=ID (server.py websocket_handler): JSON text frames
// {type, data} (status, execution_start, execution_cached, executing, progress, executed,
// execution_success, execution_error, execution_interrupted, progress_state...) and binary
// frames (previews), which are ignored. The engine sends a prompt's events only to the client id
// it was queued with (server.client_id in execution.py and main.py hijack_progress), so one
// connection serves every prompt queued under its id: the adapter's for images, and one per video
// task (comfyui-follow.ts) whose id another process can derive to hear the task after a restart.
//
// The connection is opened when a prompt is first watched, reconnected with backoff while any
// is, and closed once none is: an idle gateway holds no socket to the engine. Callers never
// depend on it: they poll /history when it is not open, and more slowly when it is.
import { randomUUID } from 'node:crypto';
import { WebSocket } from 'undici';
import type { Logger } from '../../logger.js';
import { isObject } from './comfyui-checks.js';

export interface ComfyMessage {
  type: string;
  data: { [key: string]: unknown };
}

type Listener = (message: ComfyMessage) => void;

export interface SocketBackoff {
  baseMs: number;
  capMs: number;
}

const DEFAULT_BACKOFF: SocketBackoff = { baseMs: 250, capMs: 10_000 };

export class ComfySocket {
  private ws: WebSocket | null = null;
  private isOpen = false;
  private retry: NodeJS.Timeout | null = null;
  private failures = 0;
  private closed = false;
  private readonly watchers = new Map<string, Set<Listener>>();
  private readonly stateListeners = new Set<() => void>();

  constructor(
    private readonly base: string,
    private readonly logger: Logger,
    private readonly backoff: SocketBackoff = DEFAULT_BACKOFF,
    /**
     * Random unless given: ComfyUI keeps one socket per client id (a new connection under an id
     * replaces the old, which hears nothing more), so two gateways on one engine must not share one.
     */
    readonly clientId: string = randomUUID().replaceAll('-', ''),
  ) {}

  get open(): boolean {
    return this.isOpen;
  }

  /** Hears `promptId`'s events until the returned function is called. */
  watch(promptId: string, listener: Listener): () => void {
    let set = this.watchers.get(promptId);
    if (!set) this.watchers.set(promptId, (set = new Set()));
    set.add(listener);
    this.connect();
    return () => {
      const current = this.watchers.get(promptId);
      current?.delete(listener);
      if (current?.size === 0) this.watchers.delete(promptId);
      if (this.watchers.size === 0) this.disconnect();
    };
  }

  /** Called whenever the connection opens, drops or fails to open. */
  onState(listener: () => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  /**
   * Resolves true once the connection is open, false when the attempt under way fails or
   * `timeoutMs` passes. Between attempts (backing off after failures) it does not wait at all:
   * an engine whose stream is refused must not slow every request down.
   */
  ready(timeoutMs: number): Promise<boolean> {
    if (this.isOpen || this.closed || !this.ws) return Promise.resolve(this.isOpen);
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        stop();
        resolve(this.isOpen);
      };
      const timer = setTimeout(done, timeoutMs);
      const stop = this.onState(done);
    });
  }

  /** Closes the connection for good: prompts still watched are followed by polling alone. */
  close(): void {
    this.closed = true;
    this.disconnect();
  }

  private url(): string {
    const url = new URL(`${this.base}/ws`);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    url.searchParams.set('clientId', this.clientId);
    return url.href;
  }

  private connect(): void {
    if (this.closed || this.ws || this.retry || this.watchers.size === 0) return;
    let ws: WebSocket;
    try {
      ws = new WebSocket(this.url());
    } catch (error) {
      this.logger.warn({ err: (error as Error).message }, 'ComfyUI websocket could not be opened');
      this.scheduleRetry();
      return;
    }
    ws.binaryType = 'arraybuffer';
    this.ws = ws;
    ws.addEventListener('open', () => {
      if (this.ws !== ws) return;
      this.isOpen = true;
      this.failures = 0;
      this.emitState();
    });
    ws.addEventListener('message', (event) => {
      if (this.ws === ws && typeof event.data === 'string') this.dispatch(event.data);
    });
    ws.addEventListener('close', () => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.isOpen = false;
      this.failures++;
      this.emitState();
      this.scheduleRetry();
    });
    // An error is followed by close, which does the rest.
    ws.addEventListener('error', () => undefined);
  }

  private scheduleRetry(): void {
    if (this.retry || this.watchers.size === 0) return;
    const ceiling = Math.min(this.backoff.capMs, this.backoff.baseMs * 2 ** Math.min(this.failures, 10));
    const wait = Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
    this.retry = setTimeout(() => {
      this.retry = null;
      this.connect();
    }, wait);
    this.retry.unref();
  }

  private disconnect(): void {
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    const ws = this.ws;
    this.ws = null;
    const wasOpen = this.isOpen;
    this.isOpen = false;
    if (ws) {
      try {
        ws.close();
      } catch {
        // already closing
      }
    }
    if (wasOpen) this.emitState();
  }

  private dispatch(text: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return;
    }
    if (!isObject(parsed) || typeof parsed.type !== 'string' || !isObject(parsed.data)) return;
    const promptId = parsed.data.prompt_id;
    if (typeof promptId !== 'string') return; // status, feature flags: about no prompt
    const listeners = this.watchers.get(promptId);
    if (!listeners) return;
    const message: ComfyMessage = { type: parsed.type, data: parsed.data };
    for (const listener of [...listeners]) {
      try {
        listener(message);
      } catch (error) {
        this.logger.warn({ err: (error as Error).message }, 'ComfyUI event listener failed');
      }
    }
  }

  private emitState(): void {
    for (const listener of [...this.stateListeners]) listener();
  }
}
