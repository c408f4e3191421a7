// Headless mode (`mgw serve`): calls are POST <base>api/<method> with the owner token as a bearer;
// events come from an EventSource on <base>events and media from <base>media/<path>, both
// authenticated by the HttpOnly cookie that POST <base>session sets.
import {
  STUDIO_EVENTS,
  type StudioEvent,
  type StudioEvents,
  type StudioInput,
  type StudioMethod,
  type StudioOutput,
} from '../../../shared/studio-contract';
import type { StudioClient } from './client';
import { StudioError, parseErrorBody } from './studio-error';

/** The subset of EventSource we use, so tests and other runtimes can inject one. */
export interface EventSourceLike {
  readonly readyState: number;
  addEventListener(type: string, listener: (event: MessageEvent<string>) => void): void;
  close(): void;
}

export interface HttpClientOptions {
  /** Absolute URL of the studio root, ending with a slash (e.g. http://127.0.0.1:8787/studio/). */
  base: string;
  token: string;
  fetch?: typeof fetch;
  createEventSource?: (url: string) => EventSourceLike;
}

const EVENTSOURCE_CLOSED = 2;
const RECONNECT_DELAY_MS = 2000;

async function readErrorBody(response: Response): Promise<StudioError> {
  let body: unknown = null;
  try {
    body = await response.json();
  } catch {
    // Not JSON: fall through to a generic error naming the status.
  }
  const parsed = parseErrorBody(body);
  if (parsed) return new StudioError(parsed.code, parsed.message, parsed.param, response.status);
  return new StudioError('http_error', `HTTP ${response.status} ${response.statusText}`.trim(), null, response.status);
}

async function send(fetchFn: typeof fetch, url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetchFn(url, init);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new StudioError('network_error', `Cannot reach the gateway (${reason})`);
  }
}

/** POST <base>session: trades the bearer token for the cookie EventSource and <video> need. */
export async function openSession(options: HttpClientOptions): Promise<void> {
  const fetchFn = options.fetch ?? fetch;
  const response = await send(fetchFn, new URL('session', options.base).href, {
    method: 'POST',
    headers: { Authorization: `Bearer ${options.token}` },
    credentials: 'same-origin',
  });
  if (!response.ok) throw await readErrorBody(response);
}

export function createHttpClient(options: HttpClientOptions): StudioClient {
  const fetchFn = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const makeSource = options.createEventSource ?? ((url: string) => new EventSource(url));
  const listeners = new Map<StudioEvent, Set<(payload: unknown) => void>>();
  const reconnectListeners = new Set<() => void>();
  const disconnectListeners = new Set<() => void>();
  let source: EventSourceLike | null = null;
  let hadError = false;

  const dispatch = (event: StudioEvent, data: string) => {
    let payload: unknown;
    try {
      payload = JSON.parse(data);
    } catch {
      return; // A malformed event is dropped rather than crashing every listener.
    }
    for (const listener of listeners.get(event) ?? []) listener(payload);
  };

  const connect = () => {
    const es = makeSource(new URL('events', options.base).href);
    source = es;
    for (const name of STUDIO_EVENTS) es.addEventListener(name, (message) => dispatch(name, message.data));
    es.addEventListener('open', () => {
      if (hadError) for (const listener of reconnectListeners) listener();
      hadError = false;
    });
    es.addEventListener('error', () => {
      if (!hadError) for (const listener of disconnectListeners) listener();
      hadError = true;
      // The browser retries by itself unless the stream was refused (e.g. the cookie expired
      // after a server restart): then renew the session and open a new stream.
      if (es.readyState !== EVENTSOURCE_CLOSED) return;
      es.close();
      setTimeout(() => {
        if (source !== es) return;
        openSession(options).then(connect, () => setTimeout(connect, RECONNECT_DELAY_MS));
      }, RECONNECT_DELAY_MS);
    });
  };

  return {
    kind: 'http',
    async call<M extends StudioMethod>(method: M, input: StudioInput<M>): Promise<StudioOutput<M>> {
      const response = await send(fetchFn, new URL(`api/${method}`, options.base).href, {
        method: 'POST',
        headers: { Authorization: `Bearer ${options.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(input ?? {}),
        credentials: 'same-origin',
      });
      if (!response.ok) throw await readErrorBody(response);
      try {
        return (await response.json()) as StudioOutput<M>;
      } catch {
        throw new StudioError('bad_response', `The gateway answered ${method} with a body that is not JSON`, null, response.status);
      }
    },
    on<E extends StudioEvent>(event: E, listener: (payload: StudioEvents[E]) => void): () => void {
      if (!source) connect();
      const set = listeners.get(event) ?? new Set();
      listeners.set(event, set);
      const wrapped = listener as (payload: unknown) => void;
      set.add(wrapped);
      return () => set.delete(wrapped);
    },
    mediaUrl(path: string): string {
      const clean = path.replace(/^\/+/, '').split('/').map(encodeURIComponent).join('/');
      return new URL(`media/${clean}`, options.base).href;
    },
    onReconnect(listener) {
      reconnectListeners.add(listener);
      return () => reconnectListeners.delete(listener);
    },
    onDisconnect(listener) {
      disconnectListeners.add(listener);
      return () => disconnectListeners.delete(listener);
    },
  };
}
