// A body refused for its size is usually still arriving when the 413 goes out. Closing the
// connection at once (Fastify's default) resets it under a client that is still sending, and
// clients that do not read before they finish writing (httpx, at times undici) then see a broken
// pipe instead of the 413 (and the OpenAI SDK retries the upload). So the rest is read and
// dropped, within bounds, and the connection stays usable.
import type { FastifyReply } from 'fastify';

const DRAIN_MAX_BYTES = 256 * 1024 * 1024;
const DRAIN_MAX_MS = 30_000;

export function drainRefusedBody(reply: FastifyReply): void {
  const request = reply.request.raw;
  if (request.complete || request.destroyed) return;
  reply.removeHeader('connection');
  let left = DRAIN_MAX_BYTES;
  const giveUp = () => request.socket.destroy();
  const timer = setTimeout(giveUp, DRAIN_MAX_MS).unref();
  request.on('data', (chunk: Buffer) => {
    left -= chunk.length;
    if (left < 0) giveUp();
  });
  request.once('close', () => clearTimeout(timer));
  request.resume();
}
