// Small node:http helpers shared by the emulators: handlers return a `Reply` value instead of
// writing to the response, so one place (`send`) can add fault headers or truncate the body.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /**
   * Send the body as a real server streams a large one: Transfer-Encoding: chunked, in several
   * writes with short pauses of real time between them (see `send`), not in one write.
   */
  chunked?: boolean;
}

export function json(status: number, value: unknown, headers: Record<string, string> = {}): Reply {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: Buffer.from(JSON.stringify(value)) };
}

export function bytes(status: number, body: Buffer, contentType: string): Reply {
  return { status, headers: { 'content-type': contentType }, body };
}

/** The same reply, streamed in chunks (media files and image answers). */
export function streamed(reply: Reply): Reply {
  return { ...reply, chunked: true };
}

/** Largest piece of a chunked body, and the pause between pieces. */
const CHUNK_MAX_BYTES = 64 * 1024;
let chunkPauseMs = 1;

/**
 * The real-time pause between the pieces of a chunked body (default 1 ms). The benchmark sets 0:
 * the pieces are still separate writes, but no timer adds jitter to what it measures.
 */
export function setChunkPause(ms: number): void {
  chunkPauseMs = ms;
}
/** A chunked body is cut into at least this many pieces (when it has that many bytes). */
const CHUNK_MIN_PIECES = 4;

export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export function sleep(ms: number): Promise<void> {
  // unref: a pending latency fault must never keep the test process alive after close().
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** Connection reset: RST instead of FIN, so the client sees ECONNRESET rather than a clean close. */
export function resetSocket(socket: Socket): void {
  if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
  else socket.destroy();
}

/**
 * Writes a reply. With `truncate`, announces a Content-Length larger than the body, writes half
 * of it and then destroys the socket, so the client gets headers but its body read fails.
 */
export function send(res: ServerResponse, reply: Reply, options: { truncate?: boolean; extraHeaders?: Record<string, string> } = {}): void {
  const headers: Record<string, string> = { ...reply.headers, ...options.extraHeaders };
  if (!options.truncate && reply.chunked && reply.body.length > 1) {
    void sendChunked(res, reply.status, headers, reply.body);
    return;
  }
  if (!options.truncate) {
    res.writeHead(reply.status, { ...headers, 'content-length': String(reply.body.length) });
    res.end(reply.body);
    return;
  }
  const body = reply.body.length > 0 ? reply.body : Buffer.from('{"truncated":');
  const announced = body.length * 2 + 64;
  res.writeHead(reply.status, { ...headers, 'content-length': String(announced) });
  // Flush the partial body, then kill the socket once the bytes are on the wire.
  res.write(body.subarray(0, Math.max(1, Math.floor(body.length / 2))), () => {
    setTimeout(() => res.socket?.destroy(), 10).unref();
  });
}

/**
 * Writes `body` with Transfer-Encoding: chunked (no Content-Length), in pieces of at most 64 KiB
 * (at least four), each after a short real-time pause and once the socket took the previous one,
 * so a client sees the body arrive over time as from a real server. Stops when the client leaves.
 */
async function sendChunked(res: ServerResponse, status: number, headers: Record<string, string>, body: Buffer): Promise<void> {
  res.writeHead(status, headers);
  const piece = Math.max(1, Math.min(CHUNK_MAX_BYTES, Math.ceil(body.length / CHUNK_MIN_PIECES)));
  for (let at = 0; at < body.length; at += piece) {
    if (res.destroyed) return;
    const flushed = res.write(body.subarray(at, at + piece));
    if (!flushed) await new Promise<void>((resolve) => {
      const done = () => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.once('drain', done);
      res.once('close', done);
    });
    if (at + piece < body.length && chunkPauseMs > 0) await sleep(chunkPauseMs);
  }
  if (!res.destroyed) res.end();
}

/** Query parameters of a raw request target. */
export function queryOf(rawPath: string): URLSearchParams {
  const at = rawPath.indexOf('?');
  return new URLSearchParams(at === -1 ? '' : rawPath.slice(at + 1));
}

export function pathnameOf(rawPath: string): string {
  const at = rawPath.indexOf('?');
  return at === -1 ? rawPath : rawPath.slice(0, at);
}

/** Parses a JSON request body; undefined when the body is not a JSON object. */
export function parseJsonObject(body: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}
