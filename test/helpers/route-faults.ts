// Upstream outages that fault injection inside an emulator cannot give: a provider that is slow
// to connect (a listener whose accept queue is full: the kernel drops further SYNs, so a connect
// hangs until the client's connect timeout), and a provider that flaps between up and down in
// front of an emulator (down: new connections refused, requests on open ones answered 503 and
// the connection closed after the answer, requests in flight finished as they are).
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, request as httpRequest, Agent, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, createServer as createNetServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface SlowListener {
  /** http://127.0.0.1:<port> */
  origin: string;
  close(): Promise<void>;
}

/**
 * A port whose connects hang: a process listens there with a backlog of one and is stopped
 * (SIGSTOP) before it accepts anything; a few connections fill its queue.
 */
export async function slowToConnect(): Promise<SlowListener> {
  const child = spawn(process.execPath, ['-e', "const s=require('net').createServer();s.listen({port:0,host:'127.0.0.1',backlog:1},()=>process.stdout.write(s.address().port+'\\n'));"], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
    child.once('error', reject);
  });
  child.kill('SIGSTOP');
  const fillers: Socket[] = [];
  for (let i = 0; i < 4; i++) {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    fillers.push(socket);
  }
  await new Promise((resolve) => setTimeout(resolve, 200));
  return {
    origin: `http://127.0.0.1:${port}`,
    async close() {
      for (const socket of fillers) socket.destroy();
      await stop(child);
    },
  };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

export interface FlappingProxy {
  /** http://127.0.0.1:<port>, the same across flaps. */
  origin: string;
  readonly up: boolean;
  down(): Promise<void>;
  /** Listens again on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

/** An HTTP proxy in front of `target` (an origin) that can go down and come back on the same port. */
export async function flappingProxy(target: string): Promise<FlappingProxy> {
  const agent = new Agent({ keepAlive: true });
  const to = new URL(target);
  let isUp = true;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (!isUp) {
      // A request on a connection opened before the outage: refused, and the connection closed.
      res.writeHead(503, { 'content-type': 'application/json', connection: 'close' });
      res.end(JSON.stringify({ error: { message: 'down', type: 'server_error' } }));
      return;
    }
    const upstream = httpRequest(
      { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers, agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  // The listening socket is a plain net server handing connections to the HTTP one: closing it
  // refuses new connections and leaves the open ones alone (an HTTP server's close() would also
  // close the idle ones under a client's feet, racing its next request into a reset that cannot
  // tell "never read" from "read and dropped").
  const listener = createNetServer((socket) => server.emit('connection', socket));
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const { port } = listener.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    get up() {
      return isUp;
    },
    async down() {
      if (!isUp) return;
      isUp = false;
      // New connections are refused; a request on an open one is answered 503 (above), and the
      // connection closed after it.
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    },
    async restore() {
      if (isUp) return;
      await new Promise<void>((resolve) => listener.listen(port, '127.0.0.1', resolve));
      isUp = true;
    },
    async close() {
      isUp = false;
      server.closeAllConnections();
      if (listener.listening) await new Promise<void>((resolve) => listener.close(() => resolve()));
      agent.destroy();
    },
  };
}
