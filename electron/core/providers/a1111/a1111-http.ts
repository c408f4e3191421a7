// The generation call (POST txt2img / img2img). Not through the shared UpstreamClient, for two
// reasons: it keeps an error body only for its log, and this engine's refusals are told apart
// by their body alone (404 {detail: 'Not Found'}: no --api; 404 or 400 'Sampler not found'; the
// field of a 422); and a generation may take longer than undici's default headers timeout
// (300 s), which its pooled agent keeps. Bounded here by the caller's signal instead.
import type { Logger } from '../../logger.js';
import { MAX_JSON_BYTES } from '../upstream/upstream-client.js';
import { invalidResponse, unavailable } from '../upstream/upstream-errors.js';
import { a1111Error, type SentSettings } from './a1111-errors.js';

export interface GenerationCall {
  url: string;
  headers: Record<string, string>;
  body: unknown;
  /** Ends the call: the whole-call timeout or the client leaving (the caller tells which). */
  signal: AbortSignal;
  /** What was sent, for naming it in a refusal. */
  sent: SentSettings;
  /** Strings the log must not show (the key, and its Basic form). */
  secrets: string[];
}

const LOGGED_BODY_CHARS = 2000;

/** The parsed JSON answer; a refusal as a GatewayError. Throws the abort as is when `signal` ended it. */
export async function postGeneration(call: GenerationCall, logger: Logger): Promise<unknown> {
  const { request } = await import('undici');
  const url = redact(call.url, call.secrets);
  let response: Awaited<ReturnType<typeof request>>;
  try {
    response = await request(call.url, {
      method: 'POST',
      headers: { ...call.headers, 'content-type': 'application/json' },
      body: JSON.stringify(call.body),
      signal: call.signal,
      // The engine answers only when the image is done: no timeout but the caller's.
      headersTimeout: 0,
      bodyTimeout: 0,
    });
  } catch (error) {
    if (call.signal.aborted) throw error;
    logger.warn({ url, err: describe(error) }, 'a1111 generation request failed');
    throw unavailable(closedEarly(error) ? 'it closed the connection before answering' : 'could not connect');
  }
  let text: string;
  try {
    text = await readCapped(response.body, MAX_JSON_BYTES);
  } catch (error) {
    if (call.signal.aborted || (error instanceof Error && error.name === 'GatewayError')) throw error;
    logger.warn({ url, err: describe(error) }, 'a1111 answer could not be read');
    throw unavailable('the connection broke while reading the response');
  }
  if (response.statusCode < 200 || response.statusCode >= 300) {
    logger.warn({ url, status: response.statusCode, body: redact(text.slice(0, LOGGED_BODY_CHARS), call.secrets) }, 'a1111 answered with an error');
    throw a1111Error(response.statusCode, text, call.sent);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    logger.warn({ url, status: response.statusCode, body: redact(text.slice(0, LOGGED_BODY_CHARS), call.secrets) }, 'a1111 answered with malformed JSON');
    throw invalidResponse('the body is not valid JSON');
  }
}

async function readCapped(body: AsyncIterable<Buffer>, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.length;
    if (total > maxBytes) throw invalidResponse(`the body is larger than ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

function redact(text: string, secrets: string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('[REDACTED]');
  return out;
}

function closedEarly(error: unknown): boolean {
  const { code, cause } = error as { code?: string; cause?: { code?: string } };
  return ['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE'].some((c) => c === code || c === cause?.code);
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return `${(error as Error).name ?? 'Error'}: ${cause?.code ?? cause?.message ?? (error as Error).message ?? ''}`;
}
