// The studio-media: answer, read from the file here rather than by net.fetch('file://...'):
// Chromium's file loader honours a Range header by sending only that slice, but still as a 200
// with no Content-Range, so a <video> takes the slice for the whole file and cannot seek
// (electron/electron#38749). Single byte ranges get 206 with Content-Range, as the headless
// /studio/media route answers (http/send-file-range.ts).
import type { FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { GatewayError } from '../core/errors.js';
import { openServedFile, parseRange } from '../http/send-file-range.js';
import type { MediaFile } from '../core/studio/studio.js';

export async function mediaResponse(file: MediaFile, rangeHeader: string | null): Promise<Response> {
  let handle: FileHandle;
  let size: number;
  try {
    ({ file: handle, size } = await openServedFile(file.path, file.bytes));
  } catch (error) {
    // Missing (404), unreadable or damaged since it finished (503): never played as if whole.
    if (error instanceof GatewayError) return new Response(error.message, { status: error.status });
    throw error;
  }
  const range = parseRange(rangeHeader ?? undefined, size);
  if (range === 'unsatisfiable') {
    await handle.close();
    return new Response(null, { status: 416, headers: { 'content-range': `bytes */${size}` } });
  }
  const { start, end } = range ?? { start: 0, end: size - 1 };
  const headers = new Headers({ 'content-type': file.type, 'accept-ranges': 'bytes', 'content-length': String(end - start + 1) });
  if (range) headers.set('content-range', `bytes ${start}-${end}/${size}`);
  if (size === 0) {
    await handle.close();
    return new Response(null, { status: 200, headers });
  }
  const body = Readable.toWeb(handle.createReadStream({ start, end })) as ReadableStream<Uint8Array>;
  return new Response(body, { status: range ? 206 : 200, headers });
}
