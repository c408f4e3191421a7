// AUTOMATIC1111 / Forge refusals in the gateway's words. The engine's body is read only to
// classify the refusal; what reaches the client is our own sentence, plus at most a field name
// or an error code reduced to identifier characters. Never the engine's free text: its messages
// can carry the prompt, paths of the owner's machine or a Python traceback.
//
// The two shapes (the source: modules/api/api.py, webui.py):
//   A1111 (api_middleware -> handle_exception, for HTTPException and any exception):
//     {error: <exception class>, detail: <HTTPException detail or ''>, body: '', errors: str(e)}
//   Forge (api_middleware is commented out): FastAPI's own {detail: <string>} for an
//     HTTPException, and {error, detail, body, message} from webui.py's _handle_exception for an
//     uncaught one (a 500).
//   Both: a request FastAPI cannot validate is 422 {detail: [{loc, msg, type}, ...]}, and a
//   route that does not exist (the engine started without --api) is 404 {detail: 'Not Found'}.
import { GatewayError } from '../../errors.js';
import { errorForStatus, remapped, UpstreamStatusError } from '../upstream/upstream-errors.js';
import { isObject } from './a1111-mapping.js';

const ENGINE = 'The AUTOMATIC1111/Forge engine';

/** What the gateway sent, to name it in a refusal (the owner's own values, never the engine's). */
export interface SentSettings {
  sampler_name?: string;
}

export interface EngineErrorBody {
  /** 'a1111': the {error, detail, ...} shape; 'fastapi': a bare {detail}; 'none': not JSON of either. */
  shape: 'a1111' | 'fastapi' | 'none';
  /** The exception class the A1111 shape names ('HTTPException', 'OutOfMemoryError'...). */
  errorName: string | null;
  detail: unknown;
}

export function parseErrorBody(text: string): EngineErrorBody {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { shape: 'none', errorName: null, detail: null };
  }
  if (!isObject(value) || !('detail' in value || 'error' in value)) return { shape: 'none', errorName: null, detail: null };
  if (typeof value.error === 'string') return { shape: 'a1111', errorName: value.error, detail: value.detail ?? null };
  return { shape: 'fastapi', errorName: null, detail: value.detail ?? null };
}

export const credentialsRefused = (): GatewayError =>
  new GatewayError('upstream_unavailable', `${ENGINE} refused the owner\u2019s credentials; the provider key must be the USER:PASS given to the engine\u2019s --api-auth.`);

export const apiNotServed = (): GatewayError =>
  new GatewayError('upstream_unavailable', `${ENGINE} does not serve its API (/sdapi/v1); the owner must start it with --api.`);

/** A non-2xx answer of the engine as a GatewayError. */
export function a1111Error(status: number, text: string, sent: SentSettings = {}): GatewayError {
  const body = parseErrorBody(text);
  if (status === 401 || status === 403) return credentialsRefused();
  // A route that is not there: FastAPI's plain "Not Found" (or a page that is not the API at all).
  if (status === 404 && (body.shape === 'none' || body.detail === 'Not Found')) return apiNotServed();
  if (status === 429) return errorForStatus(429, null);
  if (status >= 500) return engineFailed(body);
  return refused(body.detail, sent);
}

/**
 * An error of the shared upstream client in this engine's terms: a non-2xx answer is classified
 * again from the head of its body (kept on the UpstreamStatusError for adapters, never for
 * clients); anything else (no answer, a broken body) passes as it is.
 */
export function fromUpstream(error: unknown, sent: SentSettings = {}): unknown {
  return error instanceof UpstreamStatusError ? remapped(error, a1111Error(error.upstreamStatus, error.upstreamBody, sent)) : error;
}

/** 400, 404 and 422 with a detail: the request itself was refused. */
function refused(detail: unknown, sent: SentSettings): GatewayError {
  const bad = (why: string) => new GatewayError('upstream_bad_request', `${ENGINE} refused the request: ${why}.`);
  if (Array.isArray(detail)) {
    // FastAPI's validation list: the first problem, by its field path and error code.
    const first = detail.find(isObject);
    const field = first ? fieldOf(first.loc) : null;
    const code = first && typeof first.type === 'string' && /^[a-z0-9_.]{1,40}$/.test(first.type) ? first.type : null;
    if (field) return bad(`the field "${field}" is invalid${code ? ` (${code})` : ''}`);
    return bad('a field is invalid');
  }
  if (detail === 'Sampler not found') {
    const name = sent.sampler_name ? ` "${sent.sampler_name}"` : '';
    return bad(`it has no sampler${name}; the owner must set the model's capabilities.sampler to one the engine lists`);
  }
  if (detail === 'Init image not found') return bad('it received no reference image');
  if (typeof detail === 'string' && /script .* not found/i.test(detail)) return bad('it has no script by the name sent');
  return bad('the engine gave no reason the gateway can repeat');
}

/** The field path of a validation error ("steps", "override_settings.sd_model_checkpoint"). */
function fieldOf(loc: unknown): string | null {
  if (!Array.isArray(loc)) return null;
  const parts = loc.filter((part): part is string => typeof part === 'string' && part !== 'body' && /^[A-Za-z0-9_]{1,60}$/.test(part));
  return parts.length > 0 ? parts.join('.') : null;
}

/** Exception classes whose meaning can be said plainly (torch's and the webui's own). */
const KNOWN_FAILURES = new Map([
  ['OutOfMemoryError', 'it ran out of GPU memory'],
  ['NansException', 'the model produced NaNs (a VAE or precision problem on the engine)'],
  ['InterruptedException', 'the run was interrupted'],
]);

/** A 5xx: the engine broke while running (its log has the traceback). */
function engineFailed(body: EngineErrorBody): GatewayError {
  if (body.detail === 'Invalid encoded image') return new GatewayError('upstream_bad_request', `${ENGINE} could not read the reference image.`);
  const reason = body.errorName ? KNOWN_FAILURES.get(body.errorName) : undefined;
  return new GatewayError('upstream_unavailable', reason ? `${ENGINE} failed: ${reason}.` : `${ENGINE} failed while generating; its console has the error.`);
}
