// Reads an upstream images answer, `{..., "data": [{"b64_json": "<megabytes>", ...}], ...}`, as
// it arrives. A small answer is read whole and parsed as usual. A large one is handed on while
// it is still arriving: its base64 is checked piece by piece (alphabet, padding, JSON escapes)
// and passed through, and the JSON around it is parsed once the body has ended. That lets the
// gateway relay a multi-megabyte image with almost no delay of its own.
import type { GatewayError } from '../../errors.js';
import type { ImagesJson } from './image-payload.js';
import { invalidResponse } from './upstream-errors.js';

/** Answers whose base64 is still open after this many bytes are relayed as they arrive. */
export const STREAM_AFTER_BYTES = 256 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MARKER = Buffer.from('"b64_json"');

export type ImagesRead = { kind: 'whole'; text: string } | { kind: 'stream'; stream: ImagesJsonStream };

export interface ImagesJsonStream {
  /** The image bytes decoded from the start of the base64: enough to tell what the image is. */
  headBytes: Buffer;
  /** The base64 text from its start, unescaped and checked; throws a GatewayError when it breaks. */
  b64: AsyncIterable<Buffer>;
  /** The JSON around the image (its b64_json emptied); only once b64 has been read to its end. */
  body(): ImagesJson;
  /** Ends the upstream call when b64 will not be read (the head was refused). */
  cancel(): Promise<void>;
}

/** Reads `body` whole when it is small or unusual, or up to the point where it can be relayed. */
export async function readImagesJson(body: AsyncIterable<Buffer>): Promise<ImagesRead> {
  const iterator = body[Symbol.asyncIterator]();
  const chunks: Buffer[] = [];
  let length = 0;
  let whole = false;
  for (;;) {
    const next = await iterator.next();
    if (next.done) return { kind: 'whole', text: Buffer.concat(chunks, length).toString('utf8') };
    chunks.push(next.value);
    length += next.value.length;
    if (whole || length < STREAM_AFTER_BYTES) continue;
    const head = Buffer.concat(chunks, length);
    const open = base64Start(head);
    // The image ended early or the layout is unusual: read it whole, like a small answer.
    whole = open === -1 || head.indexOf(QUOTE, open) !== -1 || head.indexOf(BACKSLASH, open) !== -1;
    if (whole) continue;
    try {
      return { kind: 'stream', stream: relay(head, open, iterator) };
    } catch (error) {
      await iterator.return?.(); // a bad head: the rest will not be read
      throw error;
    }
  }
}

/** Where the b64_json string's text begins (after its opening quote), or -1. */
function base64Start(head: Buffer): number {
  const marker = head.indexOf(MARKER);
  if (marker === -1) return -1;
  let at = marker + MARKER.length;
  while (at < head.length && isSpace(head[at]!)) at++;
  if (head[at] !== 0x3a) return -1; // ':'
  at++;
  while (at < head.length && isSpace(head[at]!)) at++;
  return head[at] === QUOTE ? at + 1 : -1;
}

const isSpace = (byte: number): boolean => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

function relay(head: Buffer, open: number, rest: AsyncIterator<Buffer>): ImagesJsonStream {
  const prefix = head.toString('utf8', 0, open - 1);
  const check = new Base64Check();
  const first = head.subarray(open);
  const headBytes = Buffer.from(check.push(first));
  let tail: Buffer[] | null = null;

  async function* b64(): AsyncGenerator<Buffer> {
    yield first;
    let escape = false;
    try {
      for (;;) {
        const next = await rest.next();
        if (next.done) throw invalidResponse('the body ended inside the image');
        let piece = next.value;
        const close = piece.indexOf(QUOTE);
        if (close !== -1) {
          tail = [piece.subarray(close + 1)];
          piece = piece.subarray(0, close);
        }
        if (escape || piece.indexOf(BACKSLASH) !== -1) ({ piece, escape } = unescapeSlashes(piece, escape));
        check.push(piece);
        if (piece.length > 0) yield piece;
        if (tail) break;
      }
      if (escape) throw invalidResponse('the image is not valid base64');
      check.end();
      for (;;) {
        const next = await rest.next();
        if (next.done) break;
        tail.push(next.value);
      }
    } finally {
      // Stopped early or failed: end the upstream call too (a no-op once it has ended).
      await rest.return?.();
    }
  }

  return {
    headBytes,
    b64: b64(),
    cancel: async () => {
      await rest.return?.();
    },
    body() {
      if (!tail) throw invalidResponse('the body ended inside the image');
      try {
        return JSON.parse(`${prefix}""${Buffer.concat(tail).toString('utf8')}`) as ImagesJson;
      } catch {
        throw invalidResponse('the body is not valid JSON');
      }
    },
  };
}

/**
 * JSON may write '/' as '\/' (some encoders do); base64 needs no other escape. A backslash at a
 * piece's end waits for the next piece (`escape`).
 */
function unescapeSlashes(piece: Buffer, pending: boolean): { piece: Buffer; escape: boolean } {
  const out = Buffer.allocUnsafe(piece.length + 1);
  let n = 0;
  let escape = pending;
  for (const byte of piece) {
    if (escape) {
      if (byte !== 0x2f) throw invalidResponse('the image is not valid base64');
      out[n++] = byte;
      escape = false;
    } else if (byte === BACKSLASH) escape = true;
    else out[n++] = byte;
  }
  return { piece: out.subarray(0, n), escape };
}

/**
 * Checks base64 text pushed in pieces. Node's decoder skips characters outside the alphabet,
 * so a decoded length short of what the text implies means the text was not clean base64.
 */
class Base64Check {
  private carry = '';
  private padded = false;
  /** Decoded pieces land here: only their length matters after the head. */
  private scratch = Buffer.alloc(0);

  /** Checks a piece; returns the bytes decoded from its whole 4-character groups (valid until the next push). */
  push(piece: Buffer): Buffer {
    if (piece.length === 0) return Buffer.alloc(0);
    if (this.padded) throw invalidBase64();
    const text = this.carry + piece.toString('latin1');
    const whole = text.length - (text.length % 4);
    this.carry = text.slice(whole);
    const groups = text.slice(0, whole);
    const padding = groups.endsWith('==') ? 2 : groups.endsWith('=') ? 1 : 0;
    const expected = (whole / 4) * 3 - padding;
    if (this.scratch.length < expected + 3) this.scratch = Buffer.allocUnsafe(expected + 3);
    if (this.scratch.write(groups, 0, 'base64') !== expected) throw invalidBase64();
    if (padding > 0) this.padded = true;
    return this.scratch.subarray(0, expected);
  }

  end(): void {
    if (this.carry.length !== 0) throw invalidBase64();
  }
}

const invalidBase64 = (): GatewayError => invalidResponse('the image is not valid base64');
