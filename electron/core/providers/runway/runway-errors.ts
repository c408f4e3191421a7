// Runway's refusals and failed tasks in the gateway's words. Runway answers a refused request
// with 400 {error: "Validation of body failed", issues: [{code, path, message, ...}], docUrl}
// (zod's issues), or 400 {error: "<sentence>"} for an asset it could not use or credits it lacks;
// 401 for a bad key, 429 when the organization's limits are reached, 502-504 when it sheds load
// (docs.dev.runwayml.com/api-details/errors, /errors/troubleshooting). A failed task carries a
// `failure` sentence Runway says not to show users, and a `failureCode` (SAFETY.INPUT.*,
// SAFETY.OUTPUT.*, INTERNAL.BAD_OUTPUT.*, INPUT_PREPROCESSING.*, ASSET.INVALID, INTERNAL...:
// /errors/task-failures). Their words never reach a client: a refused input is named by the key
// of the body the gateway sent, never by anything the answer says about it.
import { GatewayError } from '../../errors.js';
import { remapped, UpstreamStatusError } from '../upstream/upstream-errors.js';
import { isObject, RUNWAY, RUNWAY_VERSION } from './runway-mapping.js';

/** What a call was doing, for the words of a 404. */
export type CallKind = 'create' | 'poll' | 'cancel' | 'check';

/** The fields of a Runway body, in the client's words. */
const FIELDS: Record<string, string> = {
  promptText: 'the prompt',
  ratio: 'the size (sent as the ratio {ratio})',
  duration: 'the duration ({duration} seconds)',
  seed: 'the seed',
  promptImage: 'the reference image',
  referenceImages: 'a reference image',
};

/** What a zod issue code says, in our words (codes outside this list read as "not valid"). */
const PROBLEMS: Record<string, string> = {
  invalid_type: 'missing or of the wrong type',
  invalid_value: 'not one this model takes',
  invalid_enum_value: 'not one this model takes',
  invalid_literal: 'not one this model takes',
  invalid_union: 'not one this model takes',
  invalid_union_discriminator: 'not one this model takes',
  too_big: 'too large or too long',
  too_small: 'too small or too short',
  unrecognized_keys: 'not taken by this model',
  invalid_string: 'not in a form it takes',
  invalid_format: 'not in a form it takes',
};

interface Refusal {
  error: string;
  issues: { code: string; field: string }[];
}

function refusalOf(text: string): Refusal {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { error: '', issues: [] };
  }
  if (!isObject(body)) return { error: '', issues: [] };
  const issues = Array.isArray(body.issues)
    ? body.issues.filter(isObject).map((issue) => ({
        code: typeof issue.code === 'string' ? issue.code : '',
        field: Array.isArray(issue.path) && typeof issue.path[0] === 'string' ? issue.path[0] : '',
      }))
    : [];
  return { error: typeof body.error === 'string' ? body.error : '', issues };
}

/**
 * An error of the shared upstream client in Runway's terms. A non-2xx answer is already in gateway
 * words (401/403 and 5xx: 503; 429: 429 with Retry-After; other 4xx: 400); a 400 and a 404 say
 * more here. `sent` is the body of a creation: only its keys (and values the gateway chose: the
 * ratio, the duration, the model) are named.
 */
export function runwayError(error: unknown, call: CallKind, sent: Record<string, unknown> = {}, endpoint = ''): unknown {
  if (!(error instanceof UpstreamStatusError)) return error;
  const mapped = mappedAgain(error, call, sent, endpoint);
  return mapped === error ? error : remapped(error, mapped);
}

function mappedAgain(error: UpstreamStatusError, call: CallKind, sent: Record<string, unknown>, endpoint: string): GatewayError {
  const status = error.upstreamStatus;
  if (status === 404 && (call === 'create' || call === 'check')) {
    return new GatewayError('upstream_unavailable', `${RUNWAY} does not serve this route; the gateway\u2019s owner must check the provider\u2019s base URL (https://api.dev.runwayml.com).`);
  }
  if (status !== 400) return error;
  const refusal = refusalOf(error.upstreamBody);
  if (/credit/i.test(refusal.error)) {
    return new GatewayError('upstream_unavailable', `${RUNWAY} refused the request for lack of credits; the gateway\u2019s owner must check the Runway account.`);
  }
  if (/version/i.test(refusal.error) && refusal.issues.length === 0) {
    return new GatewayError('upstream_unavailable', `${RUNWAY} no longer takes the API version the gateway speaks (${RUNWAY_VERSION}); the gateway needs an update.`);
  }
  if (refusal.issues.some((issue) => issue.field === 'model')) {
    // No such model on this endpoint: the catalog entry's upstream model, or a request type its record should not offer.
    return new GatewayError('upstream_bad_request', `${RUNWAY} has no model "${String(sent.model)}" for this kind of request (${endpoint || 'this endpoint'}); the gateway’s owner must check the model’s upstream name and request types.`);
  }
  const named = refusal.issues.filter((issue) => issue.field in sent);
  if (named.length > 0) {
    const what = named.slice(0, 3).map((issue) => `${fieldWords(issue.field, sent)} is ${PROBLEMS[issue.code] ?? 'not valid'}`);
    return new GatewayError('upstream_bad_request', `${RUNWAY} refused the request: ${[...new Set(what)].join('; ')}.`);
  }
  // An asset it could not use: its sentence names the field (promptImage, referenceImages...).
  if (/promptImage|referenceImages|uri|asset|data URI/i.test(refusal.error)) {
    return new GatewayError('upstream_bad_request', `${RUNWAY} refused the request: it could not use a reference image (a PNG, JPEG or WebP it can read, under its size limit).`);
  }
  return new GatewayError('upstream_bad_request', `${RUNWAY} refused the request.`);
}

function fieldWords(field: string, sent: Record<string, unknown>): string {
  const words = FIELDS[field] ?? `the input "${field}"`;
  return words.replace(/\{(\w+)\}/g, (_, key: string) => String(sent[key] ?? ''));
}

export type Media = 'image' | 'video';

/** Why a task failed, in our words; `refused`: the request's own (not worth trying again as is). */
export function taskFailure(failureCode: string | null, media: Media): { message: string; refused: boolean } {
  const code = failureCode ?? '';
  if (/^(SAFETY\.INPUT|INPUT_PREPROCESSING\.SAFETY)\./.test(code)) {
    const input = code.endsWith('.TEXT') ? 'the prompt' : code.endsWith('.IMAGE') ? 'a reference image' : 'an input (the prompt or a reference image)';
    return { message: `${RUNWAY}\u2019s content moderation refused ${input}.`, refused: true };
  }
  if (code.startsWith('SAFETY.OUTPUT.') || code === 'SAFETY.OUTPUT') {
    return { message: `${RUNWAY}\u2019s content moderation refused the generated ${media}.`, refused: true };
  }
  if (code.startsWith('SAFETY')) return { message: `${RUNWAY}\u2019s content moderation refused the request.`, refused: true };
  if (code.startsWith('INTERNAL.BAD_OUTPUT')) {
    return { message: `${RUNWAY} rejected the generated ${media} for its quality (text or graphics overlaid on a reference image are a common cause).`, refused: true };
  }
  if (code.startsWith('ASSET.INVALID')) {
    return { message: `${RUNWAY} could not use a reference image (unreadable, or of a size or shape it does not take).`, refused: true };
  }
  return { message: `${RUNWAY} could not generate this ${media} (a failure on its side); it may work if tried again.`, refused: false };
}

/** A failed image task as the client's error: its own request's fault (400), or Runway's (503). */
export function imageFailure(failureCode: string | null): GatewayError {
  const { message, refused } = taskFailure(failureCode, 'image');
  return new GatewayError(refused ? 'upstream_bad_request' : 'upstream_unavailable', message);
}

export const IMAGE_CANCELLED = `${RUNWAY} cancelled the image task (from its dashboard, or it was deleted there).`;
export const VIDEO_CANCELLED = `${RUNWAY} cancelled this video task (from its dashboard, or it was deleted there).`;
export const VIDEO_GONE = `${RUNWAY} no longer has this video task (it was deleted there).`;
export const VIDEO_OUTPUT_LOST = `${RUNWAY} finished this video, but the gateway could not fetch it from its output URL.`;

/** An image request the client left, or the provider's timeout ended. */
export const generationEnded = (why: 'timeout' | 'left'): GatewayError =>
  why === 'timeout'
    ? new GatewayError('upstream_unavailable', `${RUNWAY} did not finish the image within the provider\u2019s timeout; its task was cancelled.`)
    : new GatewayError('upstream_unavailable', 'The image request was cancelled.');
