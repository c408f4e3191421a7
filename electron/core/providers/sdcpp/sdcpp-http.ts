// The calls to the stable-diffusion.cpp server. Not through the shared UpstreamClient, for two
// reasons: its refusals are told apart by their flat {"error": "..."} body (a job it does not
// know from a route its build lacks; which reason to repeat), which that client keeps for its
// log only; and a synchronous image answers only when it is done, which may be later than
// undici's default 300 s headers timeout. Each call is bounded by its own timeout and the
// caller's signal instead.
import type { FormData } from 'undici';
import type { Logger } from '../../logger.js';
import { invalidResponse, unavailable, upstreamRetryAfter } from '../upstream/upstream-errors.js';
import { engineErrorOf, sdcppError } from './sdcpp-errors.js';

export interface SdcppCall {
  method: 'GET' | 'POST';
  url: string;
  json?: unknown;
  form?: FormData;
  /** The whole call, answer read included. */
  timeoutMs: number;
  /** The caller going away ends the call too. */
  signal?: AbortSignal;
  /** The largest answer read (a finished video job carries its file in base64). */
  maxBytes: number;
}

/** Why a call ended early, when it did: its own timeout, or the caller's signal. */
export type Ended = 'timeout' | 'left';

export class CallEnded extends Error {
  constructor(readonly why: Ended) {
    super(why === 'timeout' ? 'the call timed out' : 'the caller went away');
    this.name = 'CallEnded';
  }
}

const LOGGED_BODY_CHARS = 2000;

/**
 * The parsed JSON answer of a 2xx; a non-2xx as an SdcppStatusError (its body logged, never
 * passed on); no answer as upstream_unavailable. A call ended by its timeout or the caller's
 * signal throws CallEnded, for the caller to say which in its own words.
 */
export async function sdcppCall(call: SdcppCall, logger: Logger): Promise<{ status: number; body: unknown }> {
  const { request } = await import('undici');
  const controller = new AbortController();
  let ended: Ended | null = null;
  const end = (why: Ended) => {
    ended ??= why;
    controller.abort();
  };
  const timer = setTimeout(() => end('timeout'), call.timeoutMs);
  timer.unref();
  const leave = () => end('left');
  if (call.signal?.aborted) leave();
  else call.signal?.addEventListener('abort', leave, { once: true });
  try {
    let response: Awaited<ReturnType<typeof request>>;
    try {
      response = await request(call.url, {
        method: call.method,
        ...(call.json !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(call.json) } : {}),
        ...(call.form ? { body: call.form } : {}),
        signal: controller.signal,
        // The engine answers an image only when it is done: no timeout but this call's own.
        headersTimeout: 0,
        bodyTimeout: 0,
      });
    } catch (error) {
      if (ended) throw new CallEnded(ended);
      logger.warn({ url: call.url, err: describe(error) }, 'sd.cpp request failed');
      throw unavailable(closedEarly(error) ? 'it closed the connection before answering' : 'could not connect');
    }
    let text: string;
    try {
      text = await readCapped(response.body, call.maxBytes);
    } catch (error) {
      if (ended) throw new CallEnded(ended);
      if (error instanceof Error && error.name === 'GatewayError') throw error;
      logger.warn({ url: call.url, err: describe(error) }, 'sd.cpp answer could not be read');
      throw unavailable('the connection broke while reading the response');
    }
    if (response.statusCode < 200 || response.statusCode >= 300) {
      logger.warn({ url: call.url, status: response.statusCode, body: text.slice(0, LOGGED_BODY_CHARS) }, 'sd.cpp answered with an error');
      const header = (name: string) => {
        const value = response.headers[name];
        return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
      };
      throw sdcppError(response.statusCode, engineErrorOf(text), upstreamRetryAfter(header));
    }
    try {
      return { status: response.statusCode, body: JSON.parse(text) as unknown };
    } catch {
      logger.warn({ url: call.url, status: response.statusCode, body: text.slice(0, LOGGED_BODY_CHARS) }, 'sd.cpp answered with malformed JSON');
      throw invalidResponse('the body is not valid JSON');
    }
  } finally {
    clearTimeout(timer);
    call.signal?.removeEventListener('abort', leave);
  }
}

async function readCapped(body: AsyncIterable<Buffer> & { destroy?: () => void }, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.length;
    if (total > maxBytes) {
      body.destroy?.();
      throw invalidResponse(`the body is larger than ${maxBytes} bytes`);
    }
    chunks.push(chunk);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

const CLOSED = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

function closedEarly(error: unknown): boolean {
  const { code, cause } = error as { code?: string; cause?: { code?: string } };
  return CLOSED.has(code ?? '') || CLOSED.has(cause?.code ?? '');
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return `${(error as Error).name ?? 'Error'}: ${cause?.code ?? cause?.message ?? (error as Error).message ?? ''}`;
}
