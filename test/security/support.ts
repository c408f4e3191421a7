// Shared tools of the security suite: the response invariants every fuzz property checks, a raw
// HTTP client (node:http, so paths are sent byte for byte: no dot-segment normalization, no
// re-encoding), a hand-written multipart builder, and string filters for generated inputs.
import { request as httpRequest } from 'node:http';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { errorOf, request, type RawResponse } from '../helpers/http.js';

/** Fixed seed: every property replays the same inputs on every run. */
export const SEED = 20_261_121;

/** A stack frame, or a source path / file:line, anywhere in a response text. */
export const LEAK_PATTERNS: readonly RegExp[] = [
  /\bat (?:async )?[^\s"]*\s?\(?(?:file:\/\/|node:|\/)[^\s)"]*:\d+:\d+/, // "at fn (/x/y.js:1:2)", "at node:internal/...:1:2"
  /\/work\//,
  /node_modules/,
  /\.[cm]?[jt]sx?:\d+/,
  /\bat .*\([^)]*\/[^)]*\)/, // "at fn (/...)" without line numbers
];

/** Server-side paths an error body must never name: the project, the home dir, the temp data dirs. */
const SERVER_PATHS = [process.cwd(), homedir(), join(tmpdir(), 'mgw-')].filter((path) => path.length > 4);
const namesServerPath = (text: string): boolean => SERVER_PATHS.some((path) => text.includes(path));

export function leakIn(text: string): RegExp | null {
  return LEAK_PATTERNS.find((pattern) => pattern.test(text)) ?? null;
}

/** Generated strings must not contain what the leak check looks for (errors echo some inputs). */
export const clean = (value: string): boolean => leakIn(value) === null && !namesServerPath(value) && !/\bat\b/.test(value);

export interface CheckOptions {
  /** The statuses this request may get (default: any 2xx or 4xx). */
  statuses?: readonly number[];
  /** Extra context for failure messages. */
  label?: string;
  /** The request reaches an upstream provider: its documented 502/503 codes are not gateway faults. */
  upstream?: boolean;
  /** Inputs the error message may quote back (e.g. an absolute path sent as an id): not a leak. */
  echoed?: readonly string[];
}

const UPSTREAM_CODES: Record<number, string[]> = { 502: ['upstream_invalid_response'], 503: ['upstream_unavailable'] };

/**
 * The invariants of every answer: never 5xx; every non-2xx is exactly the standard error body
 * with type === code; no stack trace or source path anywhere; x-request-id on every response.
 */
export function checkResponse(response: RawResponse, options: CheckOptions = {}): void {
  const where = `${options.label ?? ''} -> ${response.status} ${response.text.slice(0, 300)}`;
  const upstreamFault = options.upstream === true && (UPSTREAM_CODES[response.status] ?? []).includes((response.body as { error?: { code?: string } } | null)?.error?.code ?? '');
  if (response.status >= 500 && !upstreamFault) throw new Error(`server error ${where}`);
  if (options.statuses && !options.statuses.includes(response.status) && !upstreamFault) {
    throw new Error(`unexpected status (allowed ${options.statuses.join('/')}) ${where}`);
  }
  let text = response.text;
  for (const input of options.echoed ?? []) text = text.split(JSON.stringify(input).slice(1, -1)).join('<input>');
  const leak = leakIn(text);
  if (leak) throw new Error(`body leaks internals (${leak}) ${where}`);
  if (!response.headers.get('x-request-id')) throw new Error(`no x-request-id ${where}`);
  if (response.status >= 300 && response.status !== 302) {
    let error: ReturnType<typeof errorOf>;
    try {
      error = errorOf(response);
    } catch (cause) {
      throw new Error(`${(cause as Error).message} ${where}`);
    }
    if (typeof error.message !== 'string' || error.message.length === 0) throw new Error(`empty error message ${where}`);
    if (error.type !== error.code) throw new Error(`type !== code ${where}`);
    if (error.param !== null && typeof error.param !== 'string') throw new Error(`param is neither string nor null ${where}`);
    if (namesServerPath(text)) throw new Error(`error body names a server path ${where}`);
  }
}

export interface RawRequest {
  port: number;
  method?: string;
  /** Sent as is (must be printable ASCII). */
  path: string;
  headers?: Record<string, string | string[]>;
  body?: Buffer | string;
  localAddress?: string;
  timeoutMs?: number;
}

/** node:http with the path untouched; resolves with the whole response, rejects on a hang. */
export function rawRequest(options: RawRequest): Promise<RawResponse & { bytes: Buffer }> {
  const body = options.body === undefined ? undefined : Buffer.isBuffer(options.body) ? options.body : Buffer.from(options.body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: options.port,
        method: options.method ?? 'GET',
        path: options.path,
        agent: false,
        ...(options.localAddress ? { localAddress: options.localAddress } : {}),
        headers: { host: `127.0.0.1:${options.port}`, ...(body ? { 'content-length': String(body.length) } : {}), ...(options.headers ?? {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          clearTimeout(timer);
          const bytes = Buffer.concat(chunks);
          const text = bytes.toString('utf8');
          let parsed: unknown = null;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = null;
          }
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            if (value === undefined) continue;
            for (const item of [value].flat()) headers.append(name, item);
          }
          resolve({ status: res.statusCode ?? 0, headers, body: parsed, text, bytes });
        });
        res.on('error', reject);
      },
    );
    const timer = setTimeout(() => {
      req.destroy(new Error(`no answer within ${options.timeoutMs ?? 15_000} ms: ${options.method ?? 'GET'} ${options.path.slice(0, 200)}`));
    }, options.timeoutMs ?? 15_000);
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.end(body);
  });
}

/** fetch with a timeout, so a hang fails the property instead of the whole file. */
export function fetchRaw(url: string, init: RequestInit = {}, timeoutMs = 15_000): Promise<RawResponse> {
  return request(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
}

/** Percent-encodes every byte of `value` except the characters `keep` matches (UTF-8, lone surrogates as U+FFFD). */
export function pctEncode(value: string, keep: RegExp = /[A-Za-z0-9._~-]/): string {
  let out = '';
  for (const char of value) {
    if (char.length === 1 && keep.test(char) && char.charCodeAt(0) > 0x20 && char.charCodeAt(0) < 0x7f) out += char;
    else for (const byte of Buffer.from(char, 'utf8')) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

// ---------- multipart ----------

export interface Part {
  /** Raw header lines (without the trailing CRLF); a part may have none. */
  headers: (string | Buffer)[];
  body: Buffer | string;
}

export const textPart = (name: string | Buffer, value: string | Buffer): Part => ({
  headers: [Buffer.concat([Buffer.from('Content-Disposition: form-data; name="'), Buffer.from(name), Buffer.from('"')])],
  body: value,
});

export const filePart = (name: string | Buffer, filename: string | Buffer, bytes: Buffer, type = 'image/png'): Part => ({
  headers: [
    Buffer.concat([Buffer.from('Content-Disposition: form-data; name="'), Buffer.from(name), Buffer.from('"; filename="'), Buffer.from(filename), Buffer.from('"')]),
    `Content-Type: ${type}`,
  ],
  body: bytes,
});

/** A multipart body: `--boundary CRLF headers CRLF CRLF body CRLF` per part, then the closing delimiter. */
export function multipartBody(boundary: string, parts: Part[], options: { close?: boolean; preamble?: string } = {}): Buffer {
  const chunks: Buffer[] = [];
  if (options.preamble) chunks.push(Buffer.from(options.preamble));
  for (const part of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\n`));
    for (const header of part.headers) chunks.push(Buffer.from(header), Buffer.from('\r\n'));
    chunks.push(Buffer.from('\r\n'), Buffer.from(part.body), Buffer.from('\r\n'));
  }
  if (options.close !== false) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

// ---------- generators ----------

/** Printable ASCII (a valid header value). */
export const printable = (maxLength = 40): fc.Arbitrary<string> =>
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength }).map((s) => s.trim());

/** Any text, filtered so that an echo of it cannot look like a leak. */
export const anyText = (maxLength = 40): fc.Arbitrary<string> =>
  fc.oneof(
    fc.string({ maxLength }),
    fc.string({ unit: 'binary', maxLength }),
    fc.string({ unit: 'grapheme', maxLength }),
  ).filter(clean);

/** Invalid UTF-8 byte sequences. */
export const invalidUtf8 = fc.constantFrom(
  Buffer.from([0xff]),
  Buffer.from([0xc3]),
  Buffer.from([0xe2, 0x82]),
  Buffer.from([0xc0, 0xaf]),
  Buffer.from([0xed, 0xa0, 0x80]),
  Buffer.from([0xf8, 0x88, 0x80, 0x80, 0x80]),
  Buffer.from([0xfe, 0xfe, 0xff, 0xff]),
);

let collect: (() => void) | null = null;

/** Resident memory of this process (the gateway runs in it), after a full GC when one can be forced. */
export function rssMb(): number {
  if (!collect) {
    v8.setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  collect();
  return process.memoryUsage().rss / (1024 * 1024);
}

/** The V8 heap in use after a full GC (what a leak of JavaScript objects grows). */
export function heapMb(): number {
  rssMb();
  return process.memoryUsage().heapUsed / (1024 * 1024);
}

/** Exact keys of a plain object, sorted. */
export const keysOf = (value: unknown): string[] => (value && typeof value === 'object' ? Object.keys(value).sort() : []);
