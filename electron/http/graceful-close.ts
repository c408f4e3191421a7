// Stopping the HTTP door without losing answers and without hanging. Requests in flight finish;
// connections that carry no request end at once; whatever is still open after the grace
// period (a client that stopped reading a download, say) is cut.
//
// Node closes the keep-alive connections that are idle when close() is called, once. Three kinds
// escape that and would hold close() for a keep-alive or headers timeout (72 s, 60 s): a
// connection whose last response was still being written at that moment, one a client opened
// and never sent a request on (clients pre-connect), and one whose response never ends (the
// studio's event stream, which Fastify's preClose hooks end, and stalled downloads).
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

const SWEEP_MS = 25;
export const DEFAULT_CLOSE_GRACE_MS = 10_000;

/** Sockets of `server`, followed from their first byte (one listener per connection, not per request). */
export function trackSockets(server: Server): Set<Socket> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return sockets;
}

export async function closeGracefully(app: FastifyInstance, sockets: Set<Socket>, graceMs: number = DEFAULT_CLOSE_GRACE_MS): Promise<void> {
  const sweep = setInterval(() => {
    app.server.closeIdleConnections();
    // A socket with no response attached is serving no request: a pre-connected socket, or the
    // start of a request that would only get Fastify's 503 while closing.
    for (const socket of sockets) if (!(socket as { _httpMessage?: unknown })._httpMessage) socket.destroy();
  }, SWEEP_MS);
  const cut = setTimeout(() => app.server.closeAllConnections(), graceMs);
  try {
    await app.close();
  } finally {
    clearInterval(sweep);
    clearTimeout(cut);
  }
}
