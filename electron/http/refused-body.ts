// A body refused for its size, or a form refused at one of its parts, is usually still arriving
// when the error goes out. Closing the connection at once (Fastify's default for a 413) resets it
// under a client that is still sending, and clients that do not read before they finish writing
// (httpx, at times undici) then see a broken pipe instead of the error (and the OpenAI SDK
// retries the upload); leaving it unread (the multipart parser stops reading once its consumer
// is gone) stalls the keep-alive connection, so the client's next request on it never gets an
// answer. So the rest is read and dropped, within bounds, and the connection stays usable.
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
  // The multipart parser may still be piped in, and would pause the body again.
  request.unpipe();
  request.resume();
}
