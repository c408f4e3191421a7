// Small node:http helpers shared by the emulators: handlers return a `Reply` value instead of
// writing to the response, so one place (`send`) can add fault headers or truncate the body.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export function json(status: number, value: unknown, headers: Record<string, string> = {}): Reply {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: Buffer.from(JSON.stringify(value)) };
}

export function bytes(status: number, body: Buffer, contentType: string): Reply {
  return { status, headers: { 'content-type': contentType }, body };
}

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
