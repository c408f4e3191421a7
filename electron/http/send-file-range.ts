// Streams a file from disk with Content-Length, Accept-Ranges and single-range 206 answers, so
// a <video> element can seek. Multi-range requests get the whole file (allowed by RFC 9110).
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../core/errors.js';

export function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | null {
  if (!header) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return null; // unknown unit or several ranges: ignore the header
  const [, first, last] = match;
  if (first === '' && last === '') return null;
  let start: number;
  let end: number;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(first);
    end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  }
  if (start >= size || start > end) return 'unsatisfiable';
  return { start, end };
}

export async function sendFileWithRanges(request: FastifyRequest, reply: FastifyReply, path: string, type: string): Promise<FastifyReply> {
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch {
    throw new GatewayError('not_found', 'The output file of this task is missing.');
  }
  reply.header('accept-ranges', 'bytes').type(type);
  const range = parseRange(request.headers.range, size);
  if (range === 'unsatisfiable') {
    reply.header('content-range', `bytes */${size}`);
    throw new GatewayError('range_not_satisfiable', `The requested range is outside the ${size}-byte file.`, 'Range');
  }
  // HEAD: Fastify's automatic HEAD route keeps these headers and drops the body.
  if (range) {
    return reply
      .code(206)
      .header('content-range', `bytes ${range.start}-${range.end}/${size}`)
      .header('content-length', range.end - range.start + 1)
      .send(createReadStream(path, { start: range.start, end: range.end }));
  }
  return reply.code(200).header('content-length', size).send(createReadStream(path));
}
