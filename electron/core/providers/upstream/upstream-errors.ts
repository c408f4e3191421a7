// How upstream failures reach clients: always in the gateway's own words, never the upstream's
// body (which goes, redacted, to the log only).
//   400/404/422 -> 400 upstream_bad_request      429 -> 429 upstream_rate_limited (Retry-After kept)
//   401/403, 402, 5xx, refused, reset, timeout -> 503 upstream_unavailable
//   a 2xx that breaks the endpoint contract -> 502 upstream_invalid_response
import { GatewayError } from '../../errors.js';

/**
 * A non-2xx upstream answer, already in the gateway's words (code, message, param). What the
 * upstream said about it stays on the side, for adapters to read, and never reaches a client:
 * its status and its machine-readable error category (fal's `error_type`, given as the
 * `X-Fal-Error-Type` header or in the body), null when it gave none.
 */
export class UpstreamStatusError extends GatewayError {
  constructor(
    mapped: GatewayError,
    readonly upstreamStatus: number,
    readonly upstreamErrorType: string | null,
    /** The answer's body (its head), for adapters whose upstream tells refusals apart only there. */
    readonly upstreamBody: string = '',
  ) {
    super(mapped.code, mapped.message, mapped.param, mapped.headers);
  }
}

/**
 * `error` said again in an adapter's own words (`mapped`), keeping what the upstream answered: the
 * failover loop and the providers' health read its status, whichever adapter mapped it.
 */
export function remapped(error: UpstreamStatusError, mapped: GatewayError): UpstreamStatusError {
  return new UpstreamStatusError(mapped, error.upstreamStatus, error.upstreamErrorType, error.upstreamBody);
}

/**
 * A provider that could do no work on the request: it could not be reached (refused, unknown
 * host, connect timeout), or the gateway cannot call it (not configured, no usable key). Nothing
 * was sent that could cost money, so another route may serve the request. `reason` says what
 * happened in a few words, for the activity log and the Providers view.
 */
export class ProviderUnreached extends GatewayError {
  constructor(
    readonly reason: string,
    message: string = `The upstream provider is temporarily unavailable (${reason}).`,
  ) {
    super('upstream_unavailable', message);
  }
}

/**
 * A poll answer that is the task's own failure if it keeps coming (fal's result URL answering
 * an untagged 5xx for a COMPLETED request: fal hands back the model's answer there). Once it is a
 * passing fault, so the scheduler retries it like one; a run of them fails the task with
 * `taskMessage` (see INVALID_ANSWERS_LIMIT in videos/repeated-answers.ts).
 */
export class RepeatedFailureAnswer extends GatewayError {
  constructor(
    cause: GatewayError,
    readonly taskMessage: string,
  ) {
    super(cause.code, cause.message, cause.param, cause.headers);
  }
}

/**
 * The wait an upstream asked for, as a Retry-After value: its Retry-After, else its
 * `retry-after-ms` (which OpenAI-compatible servers may send, and the OpenAI SDKs honour first),
 * else when OpenAI's rate-limit headers say the exhausted limit resets (its 429s carry
 * `x-ratelimit-remaining-requests: 0` and `x-ratelimit-reset-requests: 1s`, or the same for
 * tokens, with waits such as `6m0s` or `20ms`).
 */
export function upstreamRetryAfter(header: (name: string) => string | null): string | null {
  // One that cannot be read ("soon") does not hide the headers below.
  const retryAfter = header('retry-after');
  if (retryAfter && retryAfterSeconds(retryAfter) !== null) return retryAfter;
  const ms = header('retry-after-ms')?.trim() ?? '';
  if (/^\d+(\.\d+)?$/.test(ms)) return String(Number(ms) / 1000);
  const resets = ['requests', 'tokens']
    .filter((limit) => header(`x-ratelimit-remaining-${limit}`)?.trim() === '0')
    .map((limit) => durationSeconds(header(`x-ratelimit-reset-${limit}`)))
    .filter((seconds) => seconds !== null);
  return resets.length > 0 ? String(Math.max(...resets)) : null;
}

const DURATION_UNITS: Record<string, number> = { h: 3600, m: 60, s: 1, ms: 0.001 };

/** A Go-style duration ("6m0s", "1.5s", "20ms") in seconds, or null when it is not one. */
function durationSeconds(text: string | null): number | null {
  const value = text?.trim() ?? '';
  if (!/^(\d+(\.\d+)?(h|ms|m|s))+$/.test(value)) return null;
  let seconds = 0;
  for (const [, amount, , unit] of value.matchAll(/(\d+(\.\d+)?)(h|ms|m|s)/g)) seconds += Number(amount) * DURATION_UNITS[unit!]!;
  return seconds;
}

export function errorForStatus(status: number, retryAfter: string | null): GatewayError {
  if (status === 429) {
    const seconds = retryAfterSeconds(retryAfter);
    return new GatewayError(
      'upstream_rate_limited',
      'The upstream provider is rate limiting requests; retry later.',
      null,
      seconds !== null ? { 'retry-after': String(seconds) } : {},
    );
  }
  if (status === 401 || status === 403) {
    return new GatewayError('upstream_unavailable', 'The upstream provider refused the gateway\u2019s credentials; the owner must check the provider key.');
  }
  if (status === 402) {
    // The owner's account at the provider is out of credit (another gateway like this one says so with 402).
    return new GatewayError('upstream_unavailable', 'The upstream provider refused the request for lack of credit; the owner must check the provider account.');
  }
  if (status >= 500) return new GatewayError('upstream_unavailable', 'The upstream provider is temporarily unavailable.');
  return new GatewayError('upstream_bad_request', 'The upstream provider rejected the request.');
}

export const unavailable = (why: string): GatewayError =>
  new GatewayError('upstream_unavailable', `The upstream provider is temporarily unavailable (${why}).`);

export const invalidResponse = (what: string): GatewayError =>
  new GatewayError('upstream_invalid_response', `The upstream provider returned an invalid response: ${what}.`);

/**
 * Retry-After as whole seconds, capped at an hour: delta-seconds, or an HTTP date. Fractional
 * seconds ("1.5", which the OpenAI SDKs read as such) are rounded up; Date.parse must not see
 * them, as it reads "1.5" as a date in 2001 (a wait of 0) and "2.0" as nothing.
 */
export function retryAfterSeconds(value: string | null): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.min(3600, Math.ceil(Number(trimmed)));
  if (!/[a-z]/i.test(trimmed)) return null; // an HTTP date names its day and month
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return null;
  return Math.max(0, Math.min(3600, Math.ceil((date - Date.now()) / 1000)));
}

/**
 * How long to wait before polling again after the `failures`-th failed poll in a row: the
 * upstream's Retry-After when it gave one, else exponential backoff from `baseMs` (capped at
 * `capMs`) with full jitter, so many waiting polls do not return together.
 */
export function pollRetryDelayMs(error: unknown, failures: number, baseMs: number, capMs: number): number {
  const retryAfter = error instanceof GatewayError ? Number(error.headers['retry-after']) : NaN;
  if (Number.isFinite(retryAfter) && retryAfter > 0) return retryAfter * 1000;
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.min(failures, 10));
  return baseMs + Math.floor(Math.random() * ceiling);
}
