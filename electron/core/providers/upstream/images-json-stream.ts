// Reads an upstream images answer, `{..., "data": [{"b64_json": "<megabytes>", ...}], ...}`, as
// it arrives. A small answer is read whole and parsed as usual. A large one is handed on while
// it is still arriving: its base64 is checked piece by piece (alphabet, padding, JSON escapes)
// and passed through, and the JSON around it is parsed once the body has ended. That lets the
// gateway relay a multi-megabyte image with almost no delay of its own.
import type { GatewayError } from '../../errors.js';
import { isTruncatedJpeg } from '../../images/image-sniff.js';
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
    let stream: ImagesJsonStream;
    try {
      stream = relay(head, open, iterator);
    } catch (error) {
      await iterator.return?.(); // a bad head: the rest will not be read
      throw error;
    }
    // A JPEG whose metadata runs past the head cannot be told from its start: read it whole.
    whole = isTruncatedJpeg(stream.headBytes);
    if (!whole) return { kind: 'stream', stream };
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
  const headBytes = check.push(first, true);
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

/** Text is decoded in strings of at most this many characters (a multiple of 4): longer ones cost V8 several times more per byte. */
const SEGMENT_CHARS = 64 * 1024;
const EMPTY = Buffer.alloc(0);
const DASH = 0x2d;
const UNDERSCORE = 0x5f;

/**
 * Checks base64 text pushed in pieces. Node's decoder skips characters outside the alphabet,
 * so a decoded length short of what the text implies means the text was not clean base64; the
 * URL-safe '-' and '_', which it takes, are looked for apart.
 */
class Base64Check {
  /** The 0-3 characters of an unfinished group, waiting for the next piece. */
  private carry = EMPTY;
  private padded = false;
  /** Decoded pieces land here: only their length matters after the head. */
  private scratch = EMPTY;

  /**
   * Checks a piece; returns the bytes decoded from its whole 4-character groups, in a buffer
   * reused by the next push unless `keep` is set.
   */
  push(piece: Buffer, keep = false): Buffer {
    if (piece.length === 0) return EMPTY;
    if (piece.indexOf(DASH) !== -1 || piece.indexOf(UNDERSCORE) !== -1) throw invalidBase64();
    const carried = this.carry.length;
    const whole = (carried + piece.length) & ~3;
    if (whole === 0) {
      this.carry = Buffer.concat([this.carry, piece]);
      return EMPTY;
    }
    const capacity = (whole / 4) * 3;
    let out = this.scratch;
    if (keep || out.length < capacity) out = Buffer.allocUnsafe(capacity);
    if (!keep) this.scratch = out;
    let written = 0;
    let at = 0;
    if (carried > 0) {
      at = 4 - carried;
      written = this.decode(this.carry.toString('latin1') + piece.toString('latin1', 0, at), out, 0);
    }
    const end = whole - carried;
    for (; at < end; at += SEGMENT_CHARS) written += this.decode(piece.toString('latin1', at, Math.min(end, at + SEGMENT_CHARS)), out, written);
    this.carry = Buffer.from(piece.subarray(end));
    return out.subarray(0, written);
  }

  end(): void {
    if (this.carry.length !== 0) throw invalidBase64();
  }

  /** Decodes whole groups into `out` at `offset`; padding may only end the image. */
  private decode(groups: string, out: Buffer, offset: number): number {
    if (this.padded) throw invalidBase64();
    const padding = groups.endsWith('==') ? 2 : groups.endsWith('=') ? 1 : 0;
    const expected = (groups.length / 4) * 3 - padding;
    if (out.write(groups, offset, 'base64') !== expected) throw invalidBase64();
    if (padding > 0) this.padded = true;
    return expected;
  }
}

const invalidBase64 = (): GatewayError => invalidResponse('the image is not valid base64');
