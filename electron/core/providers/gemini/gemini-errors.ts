// The Gemini API's refusals in the gateway's words. Google answers errors as a google.rpc.Status
// in JSON: {error: {code, message, status, details: [{"@type": ".../google.rpc.ErrorInfo",
// reason, domain, metadata}, {"@type": ".../google.rpc.RetryInfo", retryDelay: "30s"}, ...]}}
// (the SDK's _api_client.ts throwErrorIfNotOK reads that body whole). A wrong key is a 400
// INVALID_ARGUMENT whose ErrorInfo reason is API_KEY_INVALID; an exhausted quota a 429
// RESOURCE_EXHAUSTED with a RetryInfo. Google's words never reach a client: the canonical status,
// a known reason, and the names of fields the gateway itself sent are all that is said.
import { GatewayError } from '../../errors.js';
import type { JsonValue } from '../templates/placeholders.js';
import { errorForStatus, retryAfterSeconds, remapped, UpstreamStatusError } from '../upstream/upstream-errors.js';
import { isJsonObject } from './gemini-templates.js';

export const GEMINI = 'The Gemini API';

/** google.rpc.Code names (canonical statuses), said as they are. */
const STATUSES = new Set([
  'CANCELLED', 'UNKNOWN', 'INVALID_ARGUMENT', 'DEADLINE_EXCEEDED', 'NOT_FOUND', 'ALREADY_EXISTS', 'PERMISSION_DENIED', 'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION', 'ABORTED', 'OUT_OF_RANGE', 'UNIMPLEMENTED', 'INTERNAL', 'UNAVAILABLE', 'DATA_LOSS', 'UNAUTHENTICATED',
]);

/** ErrorInfo reasons that are the owner's key or project, never the request: 503 whatever the status. */
const KEY_REASONS = new Set([
  'API_KEY_INVALID', 'API_KEY_EXPIRED', 'API_KEY_SERVICE_BLOCKED', 'API_KEY_HTTP_REFERRER_BLOCKED', 'API_KEY_IP_ADDRESS_BLOCKED',
  'API_KEY_ANDROID_APP_BLOCKED', 'API_KEY_IOS_APP_BLOCKED', 'SERVICE_DISABLED', 'CONSUMER_SUSPENDED', 'BILLING_DISABLED', 'ACCESS_TOKEN_TYPE_UNSUPPORTED',
]);

/** Structural keys of a request body: naming them would say nothing. */
const STRUCTURE = new Set(['contents', 'parts', 'role', 'instances', 'parameters', 'generationConfig', 'data', 'text']);

export interface GoogleError {
  status: string | null;
  reasons: string[];
  /** RetryInfo.retryDelay, as seconds for Retry-After; null when none could be read. */
  retryAfter: string | null;
  /** Google's message: read for field names the gateway sent, never passed on. */
  message: string;
}

/** The google.rpc.Status of an error body, or null when it is not one. */
export function googleErrorOf(text: string): GoogleError | null {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return null;
  }
  // Some Google front ends answer a list holding one status.
  if (Array.isArray(body)) body = body[0];
  const error = isJsonObject(body) && isJsonObject(body.error) ? body.error : null;
  if (!error) return null;
  const details = Array.isArray(error.details) ? error.details.filter(isJsonObject) : [];
  const reasons = details.map((d) => d.reason).filter((r): r is string => typeof r === 'string');
  const delay = details.find((d) => typeof d['@type'] === 'string' && d['@type'].endsWith('google.rpc.RetryInfo'))?.retryDelay;
  return {
    status: typeof error.status === 'string' && STATUSES.has(error.status) ? error.status : null,
    reasons,
    retryAfter: durationSeconds(delay),
    message: typeof error.message === 'string' ? error.message : '',
  };
}

/** A google.protobuf.Duration in JSON ("30s", "1.5s") as whole seconds for Retry-After, capped at an hour. */
export function durationSeconds(value: unknown): string | null {
  if (typeof value !== 'string' || !/^\d+(\.\d+)?s$/.test(value.trim())) return null;
  const seconds = retryAfterSeconds(value.trim().slice(0, -1));
  return seconds === null ? null : String(seconds);
}

/** What a call was doing, for the words of a 404. */
export type CallKind = 'image' | 'video' | 'poll' | 'check';

/**
 * An error of the shared upstream client in the Gemini API's terms. A non-2xx answer is mapped
 * again from its google.rpc.Status: the owner's key or project (whatever the status) and 5xx are
 * 503 upstream_unavailable, 429 keeps its wait (Retry-After, else RetryInfo), a refused request
 * is 400 upstream_bad_request naming what it can. `sent` is the body the gateway sent: only its
 * own field names are said. Anything else (no answer, a broken body) passes as it is.
 */
export function geminiError(error: unknown, call: CallKind, sent?: JsonValue): unknown {
  if (!(error instanceof UpstreamStatusError)) return error;
  return remapped(error, mapped(error.upstreamStatus, googleErrorOf(error.upstreamBody), call, sent, error.headers['retry-after'] ?? null));
}

function mapped(status: number, google: GoogleError | null, call: CallKind, sent: JsonValue | undefined, retryAfter: string | null): GatewayError {
  const keyReason = google?.reasons.find((reason) => KEY_REASONS.has(reason));
  if (keyReason || (status === 400 && /API key (not valid|expired)/i.test(google?.message ?? ''))) {
    return new GatewayError('upstream_unavailable', `${GEMINI} refused the gateway\u2019s provider key (${keyReason ?? 'API_KEY_INVALID'}); the owner must check the key.`);
  }
  if (status === 429) {
    const limited = errorForStatus(429, retryAfter ?? google?.retryAfter ?? null);
    return new GatewayError(limited.code, `${GEMINI} is rate limiting the provider key, or its quota is used up; retry later.`, null, limited.headers);
  }
  if (status === 401 || status === 403) {
    return new GatewayError('upstream_unavailable', `${GEMINI} refused the provider key, or its project may not use this model; the owner must check the key and its Google AI Studio project.`);
  }
  if (status === 402 || google?.status === 'FAILED_PRECONDITION') {
    return new GatewayError('upstream_unavailable', `${GEMINI} will not serve the owner\u2019s project as it is (its region, or billing not enabled); the owner must check the Google AI Studio project.`);
  }
  if (status >= 500) return new GatewayError('upstream_unavailable', `${GEMINI} is temporarily unavailable (it may be overloaded); retry later.`);
  if (status === 404 && (call === 'image' || call === 'video')) {
    const method = call === 'image' ? 'generateContent' : 'predictLongRunning';
    return new GatewayError('upstream_bad_request', `${GEMINI} has no such model, or the model does not take ${method}; the owner must check the model\u2019s upstream name.`);
  }
  if (status === 413) return new GatewayError('upstream_bad_request', `${GEMINI} refused the request as too large (its reference images).`);
  const named = google && sent !== undefined ? fieldsNamed(google.message, sent) : [];
  const why = google?.status && google.status !== 'INVALID_ARGUMENT' ? ` (${google.status})` : '';
  const fields = named.length > 0 ? `: it found fault with ${named.join(', ')}` : '';
  return new GatewayError('upstream_bad_request', `${GEMINI} refused the request${why}${fields}.`);
}

/** The field names of `sent` that Google's message names (camelCase or snake_case), at most three. */
export function fieldsNamed(message: string, sent: JsonValue): string[] {
  const keys = new Set<string>();
  const visit = (value: JsonValue): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (isJsonObject(value)) {
      for (const [key, item] of Object.entries(value)) {
        if (!STRUCTURE.has(key)) keys.add(key);
        visit(item);
      }
    }
  };
  visit(sent);
  const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  const words = new Set(message.split(/[^A-Za-z0-9_]+/));
  return [...keys].filter((key) => words.has(key) || words.has(snake(key))).slice(0, 3);
}

/** An image answer without an image. */
export const blocked = (what: string): GatewayError => new GatewayError('upstream_bad_request', `${GEMINI} ${what}; nothing was charged.`);

export const VIDEO_FAILED = `${GEMINI} could not generate this video (its operation ended with an error).`;
export const VIDEO_FILTERED = `${GEMINI} withheld this video: its safety filters blocked what was generated.`;
export const VIDEO_EMPTY = `${GEMINI} finished the operation without a video.`;
export const OPERATION_GONE = `${GEMINI} no longer knows this video\u2019s operation.`;
export const VIDEO_UNFETCHABLE = `The finished video could not be fetched from ${GEMINI}.`;
