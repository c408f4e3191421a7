// Replicate's refusals in the gateway's words. Replicate answers errors as problem details
// (application/problem+json): {title, detail, status}, a failed validation (422) with
// invalid_fields: [{type, field, description}] (replicate.com/changelog/2024-05-01-improved-
// validation-for-api-prediction-payloads); a rate limit (429) with {detail: "Request was
// throttled..."} and Retry-After. Their words never reach a client: a refused input is named by
// the key of the input the gateway sent, never by anything the body says about it.
import { GatewayError } from '../../errors.js';
import { remapped, UpstreamStatusError } from '../upstream/upstream-errors.js';
import { isObject, REPLICATE } from './replicate-mapping.js';

export interface InvalidField {
  type: string;
  field: string;
}

/** The invalid_fields of a problem body ([] when it has none, or is not one). */
export function invalidFieldsOf(text: string): InvalidField[] {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return [];
  }
  if (!isObject(body) || !Array.isArray(body.invalid_fields)) return [];
  return body.invalid_fields
    .filter(isObject)
    .map((item) => ({ type: typeof item.type === 'string' ? item.type : '', field: typeof item.field === 'string' ? item.field : '' }));
}

/** What an invalid_fields type says, in our words (types outside this list read as "invalid"). */
const FIELD_PROBLEMS: Record<string, string> = {
  required: 'missing',
  invalid_type: 'of the wrong type',
  enum: 'not one of the values it takes',
  additional_property_not_allowed: 'not an input of this model',
  number_gte: 'too small',
  number_lte: 'too large',
  number_gt: 'too small',
  number_lt: 'too large',
  array_min_items: 'too short',
  array_max_items: 'too long',
  string_gte: 'too short',
  string_lte: 'too long',
};

/** What a call was doing, for the words of a 404 or 422. */
export type CallKind = 'create' | 'poll' | 'upload';

/**
 * An error of the shared upstream client in Replicate's terms. A non-2xx answer is already in
 * gateway words (401/403/402 and 5xx: 503; 429: 429 with Retry-After; other 4xx: 400); a 404 and
 * a 422 say more here. `sentInput` is the input of a creation: the keys it names are the only
 * words of a 422 that reach the client.
 */
export function replicateError(error: unknown, call: CallKind, sentInput: Record<string, unknown> = {}): unknown {
  if (!(error instanceof UpstreamStatusError)) return error;
  const mapped = mappedAgain(error, call, sentInput);
  return mapped === error ? error : remapped(error, mapped);
}

function mappedAgain(error: UpstreamStatusError, call: CallKind, sentInput: Record<string, unknown>): GatewayError {
  const status = error.upstreamStatus;
  if (status === 404 && call === 'create') {
    return new GatewayError('upstream_bad_request', `${REPLICATE} has no such model or version, or the provider key may not run it; the gateway\u2019s owner must check the model\u2019s upstream name.`);
  }
  if (status === 404 && call === 'poll') return new GatewayError('upstream_bad_request', `${REPLICATE} no longer knows the prediction.`);
  if (status === 413) return new GatewayError('upstream_bad_request', `${REPLICATE} refused a reference image as too large.`);
  if (status === 422 && call === 'create') return refusedInput(invalidFieldsOf(error.upstreamBody), sentInput);
  if (status === 422 || (status >= 400 && status < 500 && error.code === 'upstream_bad_request')) {
    return new GatewayError('upstream_bad_request', `${REPLICATE} refused the request.`);
  }
  return error;
}

function refusedInput(fields: InvalidField[], sentInput: Record<string, unknown>): GatewayError {
  const named: string[] = [];
  for (const { type, field } of fields) {
    const key = /^input\.([^.[\]]+)/.exec(field)?.[1];
    // Only a key the gateway sent (its own word), once.
    if (key === undefined || !Object.hasOwn(sentInput, key) || named.some((n) => n.startsWith(`${key} `))) continue;
    named.push(`${key} (${FIELD_PROBLEMS[type] ?? 'invalid'})`);
  }
  // A required input the gateway did not send is named by Replicate alone: said, not named.
  if (fields.some((f) => f.type === 'required' && !Object.hasOwn(sentInput, /^input\.([^.[\]]+)/.exec(f.field)?.[1] ?? ''))) named.push('an input the model requires is missing');
  if (named.length === 0) return new GatewayError('upstream_bad_request', `${REPLICATE} refused the model\u2019s input; the model\u2019s template may not match the inputs it takes.`);
  return new GatewayError('upstream_bad_request', `${REPLICATE} refused the model\u2019s input: ${named.slice(0, 8).join(', ')}.`);
}

/** Poll refusals that say nothing about the prediction: a rate limit, a 5xx, no answer. */
export function isTransient(error: unknown): error is GatewayError {
  if (error instanceof UpstreamStatusError) return error.upstreamStatus === 429 || error.upstreamStatus >= 500;
  return error instanceof GatewayError && (error.code === 'upstream_unavailable' || error.code === 'upstream_rate_limited');
}

export const IMAGE_FAILED = `${REPLICATE} could not generate this image (the model failed).`;
export const VIDEO_FAILED = `${REPLICATE} could not generate this video (the model failed).`;
export const CANCELED = `${REPLICATE} cancelled the prediction before it ended.`;
export const ABORTED = `${REPLICATE} aborted the prediction before it ran (its deadline passed).`;
export const OUTPUT_REMOVED = `${REPLICATE} removed the prediction\u2019s output before the gateway fetched it.`;
export const VIDEO_UNFETCHABLE = `The finished video could not be fetched from ${REPLICATE}.`;

/** An image call ended early: the provider's timeout, or the client leaving. */
export const imageEnded = (why: 'timeout' | 'left'): GatewayError =>
  why === 'timeout'
    ? new GatewayError('upstream_unavailable', `${REPLICATE} did not finish the image within the provider\u2019s timeout.`)
    : new GatewayError('upstream_unavailable', 'The image request was cancelled.');
