// A fake studio transport for the renderer unit tests (test/unit/renderer-*.test.ts): scripted
// method handlers, a call log, and events pushed by hand.
import type {
  StudioEvent,
  StudioEvents,
  StudioInput,
  StudioMethod,
  StudioOutput,
  StudioVideo,
} from '../../shared/studio-contract';
import type { StudioClient } from '../src/transport/client';

type Handler<M extends StudioMethod> = (input: StudioInput<M>) => StudioOutput<M> | Promise<StudioOutput<M>>;
type Handlers = { [M in StudioMethod]?: Handler<M> };

export interface FakeClient extends StudioClient {
  calls: { method: StudioMethod; input: unknown }[];
  handle<M extends StudioMethod>(method: M, handler: Handler<M>): void;
  emit<E extends StudioEvent>(event: E, payload: StudioEvents[E]): void;
  reconnect(): void;
  disconnect(): void;
  countCalls(method: StudioMethod): number;
}

export function createFakeClient(): FakeClient {
  const handlers: Handlers = {};
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  const reconnectListeners = new Set<() => void>();
  const disconnectListeners = new Set<() => void>();
  const calls: { method: StudioMethod; input: unknown }[] = [];
  return {
    kind: 'http',
    calls,
    async call<M extends StudioMethod>(method: M, input: StudioInput<M>): Promise<StudioOutput<M>> {
      calls.push({ method, input });
      const handler = handlers[method] as Handler<M> | undefined;
      if (!handler) throw new Error(`fake client: no handler for ${method}`);
      return handler(input);
    },
    handle(method, handler) {
      (handlers as Record<string, unknown>)[method] = handler;
    },
    on(event, listener) {
      const set = listeners.get(event) ?? new Set();
      listeners.set(event, set);
      const wrapped = listener as (payload: unknown) => void;
      set.add(wrapped);
      return () => set.delete(wrapped);
    },
    emit(event, payload) {
      for (const listener of listeners.get(event) ?? []) listener(payload);
    },
    onReconnect(listener) {
      reconnectListeners.add(listener);
      return () => reconnectListeners.delete(listener);
    },
    reconnect() {
      for (const listener of reconnectListeners) listener();
    },
    onDisconnect(listener) {
      disconnectListeners.add(listener);
      return () => disconnectListeners.delete(listener);
    },
    disconnect() {
      for (const listener of disconnectListeners) listener();
    },
    mediaUrl: (path) => `media://${path}`,
    countCalls: (method) => calls.filter((c) => c.method === method).length,
  };
}

export function video(id: string, overrides: Partial<StudioVideo> = {}): StudioVideo {
  return {
    id,
    object: 'video',
    model: 'local-video',
    status: 'queued',
    progress: 0,
    seconds: '2',
    size: '480p',
    request_type: 'text-to-video',
    client_request_id: null,
    created_at: 1_795_250_000,
    completed_at: null,
    outputs: [],
    error: null,
    cost_usd: '0.10000000',
    media: null,
    ...overrides,
  };
}

/** Lets queued promise callbacks (store reloads triggered by events) run. */
export const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));
