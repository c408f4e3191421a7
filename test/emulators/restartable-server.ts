// The request pipeline of serve.ts (record every request, run an injected fault, resolve the
// route, answer), on a loopback listener that can go down and come back on the same port, as a
// local engine (AUTOMATIC1111, stable-diffusion.cpp) does when its process is restarted.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RecordedRequest } from './types.js';
import type { RequestContext, RouteMatch } from './serve.js';
import { FaultTable, applyFault } from './faults.js';
import { type Reply, pathnameOf, readBody, send } from './http-kit.js';

export type { RequestContext, RouteMatch };

export interface RestartableSpec {
  knownRoutes: readonly string[];
  resolve(method: string, pathname: string): RouteMatch | undefined;
  notFound(method: string, pathname: string): Reply;
  /** The engine's native error body for a status (faults and emulator crashes). */
  errorReply(status: number, message?: string): Reply;
}

export interface RestartableServer {
  origin: string;
  port: number;
  requests: RecordedRequest[];
  faults: FaultTable;
  /** False between down() and up(). */
  readonly listening: boolean;
  /** Stops listening and destroys every open socket (requests in flight get a reset). */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
}

/** Thrown in work that began before the emulator went down (its process would be gone). */
export class ServerRestarted extends Error {}

/** A reply a handler returns when it has nothing to send (its socket went away meanwhile). */
export const NO_REPLY: Reply = { status: 0, headers: {}, body: Buffer.alloc(0) };

export async function startRestartableServer(spec: RestartableSpec): Promise<RestartableServer> {
  const requests: RecordedRequest[] = [];
  const faults = new FaultTable(spec.knownRoutes);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    const pathname = pathnameOf(path);
    const body = await readBody(req);
    const match = spec.resolve(method, pathname);
    const record: RecordedRequest = { method, path, headers: { ...req.headers }, body, route: match?.route ?? 'unknown' };
    requests.push(record);

    const fault = faults.take(match ? [match.route, `${method} ${pathname}`, '*'] : [`${method} ${pathname}`, '*']);
    let extraHeaders: Record<string, string> = {};
    let truncate = false;
    if (fault) {
      const outcome = await applyFault(req, res, fault, (status) => spec.errorReply(status));
      if (outcome.handled) return;
      extraHeaders = outcome.extraHeaders;
      truncate = outcome.truncate;
    }
    const reply = match ? await match.handle({ req, method, path, pathname, body, record }) : spec.notFound(method, pathname);
    if (reply === NO_REPLY || res.destroyed || res.headersSent) return;
    send(res, reply, { truncate, extraHeaders });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.destroyed) return;
      if (res.headersSent) res.destroy();
      else send(res, spec.errorReply(500, `emulator crashed: ${error instanceof Error ? error.message : String(error)}`));
    });
  });
  server.keepAliveTimeout = 10_000;

  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  await listen(0);
  const { port } = server.address() as AddressInfo;
  let listening = true;

  const stop = () =>
    new Promise<void>((resolve) => {
      if (!listening) return resolve();
      listening = false;
      server.close(() => resolve());
      // Keep-alive and in-flight sockets would otherwise hold close() open.
      server.closeAllConnections();
    });

  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    requests,
    faults,
    get listening() {
      return listening;
    },
    down: stop,
    up: async () => {
      if (listening) return;
      await listen(port);
      listening = true;
    },
    close: stop,
  };
}

/** A one-shot pause point: code awaits `wait()`; a test awaits `reached` and calls `release()`. */
export class Gate {
  private opened = false;
  private hit = false;
  private resolveReached!: () => void;
  private waiters: (() => void)[] = [];
  /** Resolves when something first waits at the gate. */
  readonly reached: Promise<void>;

  constructor() {
    this.reached = new Promise<void>((resolve) => (this.resolveReached = resolve));
  }

  get isOpen(): boolean {
    return this.opened;
  }

  get wasReached(): boolean {
    return this.hit;
  }

  wait(): Promise<void> {
    this.hit = true;
    this.resolveReached();
    if (this.opened) return Promise.resolve();
    return new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  release(): void {
    this.opened = true;
    for (const wake of this.waiters.splice(0)) wake();
  }
}

/** Waits `ms` of real time (0: one macrotask, so other requests get answered in between). */
export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => (ms > 0 ? setTimeout(resolve, ms).unref() : setImmediate(resolve)));
}

/** A FIFO mutex: the engines run one generation at a time (A1111's queue_lock, sd.cpp's sd_ctx_mutex). */
export class Mutex {
  private tail: Promise<void> = Promise.resolve();

  async run<T>(fn: () => Promise<T>): Promise<T> {
    const previous = this.tail;
    let unlock!: () => void;
    this.tail = new Promise<void>((resolve) => (unlock = resolve));
    await previous;
    try {
      return await fn();
    } finally {
      unlock();
    }
  }
}
