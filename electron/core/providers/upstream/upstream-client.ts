// HTTP to upstream providers: pooled keep-alive connections (undici), a connect timeout and a
// whole-call timeout, size caps on what is read back, and every failure normalized to a
// GatewayError. Raw upstream bodies are logged with secrets redacted, never returned.
import type { Agent, Dispatcher, FormData } from 'undici';
import type { Logger } from '../../logger.js';
import { errorForStatus, invalidResponse, ProviderUnreached, unavailable, upstreamRetryAfter, UpstreamStatusError } from './upstream-errors.js';

export interface UpstreamTimeouts {
  connectMs: number;
  totalMs: number;
}

export const DEFAULT_TIMEOUTS: UpstreamTimeouts = { connectMs: 5_000, totalMs: 120_000 };
/** Upstream JSON bodies larger than this are refused (a 4096x4096 PNG in base64 fits). */
export const MAX_JSON_BYTES = 96 * 1024 * 1024;

/** What every upstream adapter is built from: its id, base URL and key (read once per build). */
export interface UpstreamProviderConfig {
  id: string;
  baseUrl: string;
  apiKey: () => string | null;
  /**
   * The longest one generation may take at this provider (the owner's setting, else the kind's
   * default): a local engine that needs minutes per image must not be cut at the default timeout.
   */
  timeoutMs?: number;
}

export interface UpstreamRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  json?: unknown;
  form?: FormData;
  timeoutMs?: number;
  /** Ends the call early (the gateway's own client went away). */
  signal?: AbortSignal;
  /** How many redirects a GET may follow (default none; other methods follow none). */
  followRedirects?: number;
}

export interface UpstreamResponse<T> {
  status: number;
  body: T;
}

/**
 * A 2xx answer whose body is read as it arrives. Reading it to the end (or stopping early)
 * ends the call; a broken or late body throws a GatewayError while being read.
 */
export interface UpstreamStream {
  status: number;
  /** The answer's Content-Type, lowercased, without parameters; null when it gave none. */
  contentType: string | null;
  body: AsyncIterable<Buffer>;
}

type Undici = typeof import('undici');

export class UpstreamClient {
  /** undici loads on the first upstream call: a gateway on the built-in engine never needs it. */
  private undici: Promise<{ agent: Agent; request: Undici['request'] }> | null = null;

  constructor(
    private readonly logger: Logger,
    /** Strings that must never reach a log line (the provider's API key). */
    private readonly secrets: () => string[],
    private readonly timeouts: UpstreamTimeouts = DEFAULT_TIMEOUTS,
  ) {}

  /** The whole-call timeout of a request that names none. */
  get defaultTotalMs(): number {
    return this.timeouts.totalMs;
  }

  private client(): Promise<{ agent: Agent; request: Undici['request'] }> {
    return (this.undici ??= import('undici').then(({ Agent, request }) => ({
      // No headers or body timeout of undici's own (300 s each): every call has its deadline
      // below, and a local engine answers an image only when it is done, minutes later maybe.
      agent: new Agent({ connect: { timeout: this.timeouts.connectMs }, headersTimeout: 0, bodyTimeout: 0, keepAliveTimeout: 30_000, connections: 128, pipelining: 1 }),
      request,
    })));
  }

  async json<T>(request: UpstreamRequest): Promise<UpstreamResponse<T>> {
    return this.parsed(request, (text) => JSON.parse(text) as T);
  }

  /** Like json(), with the caller's parser (which throws SyntaxError on malformed input). */
  async parsed<T>(request: UpstreamRequest, parse: (text: string) => T): Promise<UpstreamResponse<T>> {
    const { status, body } = await this.bytes(request, MAX_JSON_BYTES);
    // TextDecoder, like undici's text(): a UTF-8 byte order mark is dropped, not left for JSON.parse.
    return { status, body: this.parseBody(request, status, UTF8.decode(body), parse) };
  }

  /** Parses an answer's text; malformed input is logged (redacted) and becomes a 502. */
  parseBody<T>(request: UpstreamRequest, status: number, text: string, parse: (text: string) => T): T {
    try {
      return parse(text);
    } catch {
      this.logBody(request, status, text, 'upstream answered with malformed JSON');
      throw invalidResponse('the body is not valid JSON');
    }
  }

  /** Sends the request and hands back the body unread, capped at `maxBytes` (a larger declared length is refused at once). */
  async open(request: UpstreamRequest, maxBytes: number = MAX_JSON_BYTES): Promise<UpstreamStream> {
    const deadline = this.deadline(request);
    let response: Dispatcher.ResponseData;
    try {
      response = await this.send(request, deadline.signal);
    } catch (error) {
      deadline.clear();
      throw error;
    }
    if (Number(headerOf(response.headers, 'content-length') ?? '0') > maxBytes) {
      deadline.clear();
      response.body.destroy();
      throw invalidResponse(`the body is larger than ${maxBytes} bytes`);
    }
    const contentType = headerOf(response.headers, 'content-type')?.split(';')[0]!.trim().toLowerCase() || null;
    return { status: response.statusCode, contentType, body: this.capped(request, response, deadline, maxBytes) };
  }

  /** The whole body (a JSON answer, a partner's image), capped at `maxBytes`. */
  async bytes(request: UpstreamRequest, maxBytes: number): Promise<{ status: number; body: Buffer }> {
    const { status, body } = await this.open(request, maxBytes);
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(chunk);
    return { status, body: Buffer.concat(chunks) };
  }

  private async *capped(request: UpstreamRequest, response: Dispatcher.ResponseData, deadline: { clear(): void }, maxBytes: number): AsyncGenerator<Buffer> {
    let total = 0;
    try {
      for await (const chunk of response.body) {
        total += (chunk as Buffer).length;
        if (total > maxBytes) throw invalidResponse(`the body is larger than ${maxBytes} bytes`);
        yield chunk as Buffer;
      }
    } catch (error) {
      if (error instanceof Error && error.name === 'GatewayError') throw error;
      this.logger.warn({ url: this.redact(request.url), err: describe(error) }, 'upstream body could not be read');
      throw unavailable(isTimeout(error) ? 'timed out' : 'the connection broke while reading the response');
    } finally {
      deadline.clear();
      // Stopping early (the client went away) must not leave the upstream connection reading.
      if (!response.body.readableEnded) response.body.destroy();
    }
  }

  /**
   * The gateway is stopping: its HTTP door is closed, so no one waits for an upstream answer any
   * more (calls in flight fail, their holds are released; video tasks resume at the next start).
   */
  async close(): Promise<void> {
    if (this.undici) await (await this.undici).agent.destroy();
  }

  /**
   * The whole-call timeout. A plain timer cleared when the call ends, not AbortSignal.timeout():
   * those stay alive (and tracked) for their full two minutes, tens of thousands of them under
   * load, and their upkeep showed up as event-loop stalls.
   */
  private deadline(request: UpstreamRequest): { signal: AbortSignal; clear(): void } {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new DOMException('The upstream call timed out.', 'TimeoutError')), request.timeoutMs ?? this.timeouts.totalMs);
    timer.unref();
    const caller = request.signal;
    if (!caller) return { signal: controller.signal, clear: () => clearTimeout(timer) };
    const cancel = () => controller.abort(new DOMException('The call was cancelled.', 'AbortError'));
    if (caller.aborted) cancel();
    else caller.addEventListener('abort', cancel, { once: true });
    return {
      signal: controller.signal,
      clear: () => {
        clearTimeout(timer);
        caller.removeEventListener('abort', cancel);
      },
    };
  }

  /**
   * Sends the request (undici's request(), which streams bodies without the WHATWG layers of
   * fetch); non-2xx answers become GatewayErrors (their body only logged). Redirects are followed
   * only where the request allows them (a download its host hands on to storage, as a gateway
   * like this one does for partner videos); elsewhere an API that redirects is misconfigured.
   */
  private async send(request: UpstreamRequest, signal: AbortSignal): Promise<Dispatcher.ResponseData> {
    let headers: Record<string, string> = { ...request.headers };
    let body: string | FormData | undefined;
    if (request.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(request.json);
    } else if (request.form) body = request.form;
    const { agent, request: send } = await this.client();
    let url = request.url;
    for (let hop = 0; ; hop++) {
      let response: Dispatcher.ResponseData;
      try {
        response = await send(url, { method: request.method, headers, ...(body !== undefined ? { body } : {}), dispatcher: agent, signal });
      } catch (error) {
        this.logger.warn({ url: this.redact(url), err: describe(error) }, 'upstream request failed');
        const why = noAnswer(error);
        // Never connected: nothing reached the provider, so another route may take the request.
        if (why === 'timed out connecting' || neverConnected(error)) throw new ProviderUnreached(why);
        throw unavailable(why);
      }
      if (response.statusCode >= 200 && response.statusCode < 300) return response;
      const location = headerOf(response.headers, 'location');
      if (request.method === 'GET' && REDIRECTS.has(response.statusCode) && location !== null && hop < (request.followRedirects ?? 0)) {
        await response.body.dump().catch(() => undefined);
        const next = redirectTarget(url, location);
        // The provider key stays with the provider: another host gets no credentials.
        if (next.origin !== new URL(url).origin) headers = withoutCredentials(headers);
        url = next.href;
        continue;
      }
      const text = await response.body.text().catch(() => '');
      this.logBody({ ...request, url }, response.statusCode, text, 'upstream answered with an error');
      const mapped = errorForStatus(response.statusCode, upstreamRetryAfter((name) => headerOf(response.headers, name)));
      throw new UpstreamStatusError(mapped, response.statusCode, headerOf(response.headers, 'x-fal-error-type') ?? errorTypeIn(text), text.slice(0, MAX_ERROR_BODY_CHARS));
    }
  }

  private logBody(request: UpstreamRequest, status: number, text: string, message: string): void {
    const secrets = this.secrets(); // read once: it walks every provider's stored key
    // Redacted before it is cut to length, so a key straddling the cut cannot leave its head behind.
    const room = Math.max(0, ...secrets.map((secret) => secret.length));
    const body = this.redact(text.slice(0, LOGGED_BODY_CHARS + room), secrets).slice(0, LOGGED_BODY_CHARS);
    this.logger.warn({ url: this.redact(request.url, secrets), status, body }, message);
  }

  private redact(text: string, secrets: string[] = this.secrets()): string {
    let out = text;
    for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('[REDACTED]');
    return out;
  }
}

const UTF8 = new TextDecoder();
/** How much of an upstream body the log keeps. */
const LOGGED_BODY_CHARS = 2000;
/** How much of an error body adapters may read (to tell refusals apart; never passed to a client). */
const MAX_ERROR_BODY_CHARS = 65_536;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function redirectTarget(from: string, location: string): URL {
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw invalidResponse('a redirect to an invalid URL');
  }
  if (next.protocol !== 'http:' && next.protocol !== 'https:') throw invalidResponse('a redirect to a URL that is not http(s)');
  return next;
}

function withoutCredentials(headers: Record<string, string>): Record<string, string> {
  // x-goog-api-key: the Gemini API's key header, which its video downloads carry into a redirect.
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !['authorization', 'cookie', 'x-api-key', 'x-goog-api-key'].includes(name.toLowerCase())));
}

/** The `error_type` field of a JSON error body, if there is one. */
function errorTypeIn(text: string): string | null {
  try {
    const value = (JSON.parse(text) as { error_type?: unknown } | null)?.error_type;
    return typeof value === 'string' && value.length > 0 ? value : null;
  } catch {
    return null;
  }
}

function headerOf(headers: Dispatcher.ResponseData['headers'], name: string): string | null {
  const value = headers[name];
  return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
}

/** Socket errors of a connection that was made and then closed before any answer came. */
const CLOSED_BEFORE_ANSWER = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

/** Why a request got no answer at all, in the client's words. */
function noAnswer(error: unknown): string {
  const { code, cause, name } = error as { code?: string; name?: string; cause?: { code?: string; name?: string } };
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || cause?.code === 'UND_ERR_CONNECT_TIMEOUT' || name === 'ConnectTimeoutError' || cause?.name === 'ConnectTimeoutError') return 'timed out connecting';
  if (isTimeout(error)) return 'timed out';
  const closed = CLOSED_BEFORE_ANSWER.has(code ?? '') || CLOSED_BEFORE_ANSWER.has(cause?.code ?? '');
  return closed ? 'it closed the connection before answering' : 'could not connect';
}

/** Errors of a connection that was never made (refused, no such host, no route to it). */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);

function neverConnected(error: unknown): boolean {
  const { code, cause, errors } = error as { code?: string; cause?: { code?: string; errors?: { code?: string }[] }; errors?: { code?: string }[] };
  // Node tries each address of a name in turn: an AggregateError carries one error per address.
  const codes = [code, cause?.code, ...(errors ?? []).map((e) => e.code), ...(cause?.errors ?? []).map((e) => e.code)];
  return codes.some((c) => c !== undefined && NOT_CONNECTED.has(c));
}

function isTimeout(error: unknown): boolean {
  const name = (error as { name?: string; cause?: { name?: string; code?: string } }).name;
  const cause = (error as { cause?: { name?: string; code?: string } }).cause;
  return name === 'TimeoutError' || name === 'AbortError' || cause?.name === 'ConnectTimeoutError' || cause?.code === 'UND_ERR_CONNECT_TIMEOUT';
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return `${(error as Error).name ?? 'Error'}: ${cause?.code ?? cause?.message ?? (error as Error).message ?? ''}`;
}
