// The request pipeline both emulators share: listen on 127.0.0.1 with a free port, record every
// request, run an injected fault if one matches, check auth, then call the route handler.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RecordedRequest } from './types.js';
import { FaultTable, applyFault } from './faults.js';
import { type Reply, pathnameOf, readBody, send } from './http-kit.js';

export interface RequestContext {
  req: IncomingMessage;
  method: string;
  /** Raw request target (query included). */
  path: string;
  pathname: string;
  body: Buffer;
  /** The entry pushed to `requests`; handlers may add parsed details (e.g. files). */
  record: RecordedRequest;
}

export interface RouteMatch {
  route: string;
  /** Public routes skip the API key check (e.g. fal's file CDN). */
  public?: boolean;
  handle(ctx: RequestContext): Promise<Reply> | Reply;
}

export interface ServerSpec {
  knownRoutes: readonly string[];
  resolve(method: string, pathname: string): RouteMatch | undefined;
  notFound(method: string, pathname: string): Reply;
  /** An error reply when the request is not authorized, else undefined. */
  authorize(req: IncomingMessage): Reply | undefined;
  /** The emulator's native error body for a status (used by `Fault.status` and crashes). */
  errorReply(status: number, message?: string): Reply;
}

export interface EmulatorServer {
  origin: string;
  requests: RecordedRequest[];
  faults: FaultTable;
  close(): Promise<void>;
}

export async function startEmulatorServer(spec: ServerSpec): Promise<EmulatorServer> {
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

    const candidates = match ? [match.route, `${method} ${pathname}`, '*'] : [`${method} ${pathname}`, '*'];
    const fault = faults.take(candidates);
    let extraHeaders: Record<string, string> = {};
    let truncate = false;
    if (fault) {
      const outcome = await applyFault(req, res, fault, (status) => spec.errorReply(status));
      if (outcome.handled) return;
      extraHeaders = outcome.extraHeaders;
      truncate = outcome.truncate;
    }

    let reply: Reply;
    if (!match) reply = spec.notFound(method, pathname);
    else reply = (match.public ? undefined : spec.authorize(req)) ?? (await match.handle({ req, method, path, pathname, body, record }));
    send(res, reply, { truncate, extraHeaders });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // An emulator bug must show up as a 500, not as a hung request.
      if (res.headersSent) res.destroy();
      else send(res, spec.errorReply(500, `emulator crashed: ${error instanceof Error ? error.message : String(error)}`));
    });
  });
  // Like real providers (several seconds): undici closes pooled sockets whose Keep-Alive hint is
  // under its safety threshold, so a 1 s hint would force a new connection per request.
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    faults,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Keep-alive sockets (fetch pools them) would otherwise hold close() open.
        server.closeAllConnections();
      }),
  };
}
