// Streams a file from disk with Content-Length, Accept-Ranges and single-range 206 answers, so
// a <video> element can seek and a download can resume (If-Range against the ETag or
// Last-Modified sent here). Multi-range requests get the whole file (allowed by RFC 9110).
import { open, type FileHandle } from 'node:fs/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../core/errors.js';
import { storageError } from '../core/store/storage-errors.js';

export function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | null {
  if (!header) return null;
  // The unit is case-insensitive (RFC 9110 14.1): "Bytes=0-0" is a range like "bytes=0-0".
  const match = /^bytes=(\d*)-(\d*)$/i.exec(header.trim());
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
    // bytes=5-2 is not a range at all: RFC 9110 says to ignore the header, not to refuse it.
    if (last !== '' && Number(last) < start) return null;
    end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  }
  if (start >= size || start > end) return 'unsatisfiable';
  return { start, end };
}

const unreadable = (error: unknown): GatewayError =>
  storageError(error) ?? new GatewayError('storage_unavailable', "The gateway's storage is unavailable: the output file cannot be read.");

/**
 * Opens a file to serve, before anything is answered, so a file that cannot be read is a clear
 * error, not a stream that fails after the headers: not_found when it is missing,
 * storage_unavailable when it cannot be read or is not the `expectedBytes` it had when it was
 * finished (cut short or replaced: refused rather than served as if whole). Both doors use it:
 * this HTTP route and the desktop app's studio-media: scheme.
 */
export async function openServedFile(path: string, expectedBytes: number | null): Promise<{ file: FileHandle; size: number; modified: Date }> {
  let file: FileHandle;
  try {
    file = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new GatewayError('not_found', 'The output file of this task is missing.');
    throw unreadable(error);
  }
  let size: number;
  let modified: Date;
  try {
    const info = await file.stat();
    if (!info.isFile()) throw Object.assign(new Error('not a file'), { code: 'EISDIR' });
    size = info.size;
    modified = info.mtime;
  } catch (error) {
    await file.close();
    throw unreadable(error);
  }
  if (expectedBytes !== null && size !== expectedBytes) {
    await file.close();
    throw new GatewayError(
      'storage_unavailable',
      `The gateway's storage is unavailable: the output file of this task is damaged (${size} bytes on disk, ${expectedBytes} when it was finished).`,
    );
  }
  return { file, size, modified };
}

/** `expectedBytes`: the size recorded when the file was finished (see openServedFile). */
export async function sendFileWithRanges(
  request: FastifyRequest,
  reply: FastifyReply,
  path: string,
  type: string,
  expectedBytes: number | null = null,
): Promise<FastifyReply> {
  const { file, size, modified } = await openServedFile(path, expectedBytes);
  // Outputs never change once written, so size and time make a strong validator: a client
  // resuming a download with If-Range gets the rest only if the file is still the same one.
  const etag = `"${size.toString(16)}-${Math.floor(modified.getTime()).toString(16)}"`;
  const lastModified = modified.toUTCString();
  reply.header('accept-ranges', 'bytes').header('etag', etag).header('last-modified', lastModified).type(type);
  const ifRange = request.headers['if-range'];
  const rangeApplies = ifRange === undefined || ifRange === etag || ifRange === lastModified;
  const range = rangeApplies ? parseRange(request.headers.range, size) : null;
  if (range === 'unsatisfiable') {
    await file.close();
    reply.header('content-range', `bytes */${size}`);
    throw new GatewayError('range_not_satisfiable', `The requested range is outside the ${size}-byte file.`, 'Range');
  }
  // HEAD: Fastify's automatic HEAD route keeps these headers and drops the body.
  if (range) {
    return reply
      .code(206)
      .header('content-range', `bytes ${range.start}-${range.end}/${size}`)
      .header('content-length', range.end - range.start + 1)
      .send(file.createReadStream({ start: range.start, end: range.end }));
  }
  return reply.code(200).header('content-length', size).send(file.createReadStream());
}
