// stable-diffusion.cpp server refusals in the gateway's words. The server answers every error as
// a flat JSON object, {"error": "<fixed sentence>"} (plus "message": e.what() on a 500 or on JSON
// it could not parse): examples/server/routes_openai.cpp, routes_sdcpp.cpp, runtime.cpp. Its
// sentence is read only to pick one of our own; the engine's text never reaches a client (an
// exception's message may carry paths of the owner's machine).
import { GatewayError } from '../../errors.js';
import { errorForStatus, UpstreamStatusError } from '../upstream/upstream-errors.js';

export const ENGINE = 'The stable-diffusion.cpp server';

/**
 * A non-2xx answer of the engine, already in the gateway's words (code, message, param). What it
 * said stays on the side for the adapter (a poll tells an unknown job from an expired one by
 * status and sentence) and never reaches a client. An UpstreamStatusError, so that failover and
 * the providers' health read its status like any upstream's.
 */
export class SdcppStatusError extends UpstreamStatusError {
  constructor(
    mapped: GatewayError,
    readonly engineStatus: number,
    /** The engine's own `error` sentence, when it sent one (for the adapter and the log only). */
    readonly engineError: string | null,
  ) {
    super(mapped, engineStatus, null);
  }
}

/** The `error` of a flat error body, when it is one. */
export function engineErrorOf(text: string): string | null {
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value === 'object' && value !== null && typeof (value as { error?: unknown }).error === 'string') return (value as { error: string }).error;
  } catch {
    // Not JSON (a proxy's page, httplib's empty 404): no sentence.
  }
  return null;
}

/** The engine's fixed sentences for a refused request, and what the client is told instead. */
const REFUSALS: [RegExp, string][] = [
  [/^prompt required$/, 'the prompt is empty'],
  [/^empty body$/, 'it received an empty request'],
  [/^invalid json$/, 'it could not read the request as JSON'],
  [/^Content-Type must be multipart\/form-data$/, 'an edit must be sent as multipart/form-data'],
  [/^at least one image\[\] required$/, 'it received no reference image it could use'],
  [/^loaded model does not support img_gen$/, 'the model it has loaded does not generate images'],
  [/^loaded model does not support vid_gen$/, 'the model it has loaded does not generate videos'],
  [/^invalid output_format/, 'it cannot write the output format the gateway asks for (PNG images, AVI videos)'],
  [/^invalid sd_cpp_extra_args$/, 'it refused the generation settings the gateway sent (the seed)'],
  [/^invalid (params|generation parameters)$/, 'it found the generation parameters invalid (the size, a reference image, or its own defaults)'],
];

const QUEUE_FULL = `${ENGINE}'s job queue is full; retry later.`;

/**
 * A non-2xx answer as a GatewayError: 429 (its job queue is full) keeps Retry-After; 400 and
 * the other refusals name what was wrong from the engine's fixed sentence, or say nothing more;
 * 5xx, and credentials a proxy in front refused, are the engine being unavailable (503).
 */
export function sdcppError(status: number, engineError: string | null, retryAfter: string | null): SdcppStatusError {
  return new SdcppStatusError(mapped(status, engineError, retryAfter), status, engineError);
}

function mapped(status: number, engineError: string | null, retryAfter: string | null): GatewayError {
  if (status === 429) {
    const limited = errorForStatus(429, retryAfter);
    return new GatewayError(limited.code, QUEUE_FULL, null, limited.headers);
  }
  if (status === 401 || status === 403 || status === 402) return errorForStatus(status, null);
  if (status >= 500) {
    const what = engineError === 'generate_image returned no results' || engineError === 'generate_video returned no results' ? 'failed to generate' : 'failed';
    return new GatewayError('upstream_unavailable', `${ENGINE} ${what}; its console has the reason.`);
  }
  if (status === 404 && engineError === null) {
    // httplib's own 404 (no body): a route this build of the server does not have.
    return new GatewayError('upstream_unavailable', `${ENGINE} does not serve this route; the owner may need a newer build of its server.`);
  }
  if (status === 404) return new GatewayError('upstream_bad_request', `${ENGINE} no longer knows the job (it restarted).`);
  if (status === 410) return new GatewayError('upstream_bad_request', `${ENGINE} no longer holds the job's result: it expired.`);
  if (status === 409) return new GatewayError('upstream_bad_request', `${ENGINE} cannot stop a job while it is generating.`);
  const reason = REFUSALS.find(([pattern]) => engineError !== null && pattern.test(engineError))?.[1];
  return new GatewayError('upstream_bad_request', `${ENGINE} refused the request${reason ? `: ${reason}` : ''}.`);
}

/**
 * An error of the shared upstream client in this engine's terms: a non-2xx answer is mapped again
 * from its flat body (kept on the UpstreamStatusError for adapters, never for clients), its
 * Retry-After kept; anything else (no answer, a broken body) passes as it is.
 */
export function fromUpstream(error: unknown): unknown {
  if (!(error instanceof UpstreamStatusError) || error instanceof SdcppStatusError) return error;
  return sdcppError(error.upstreamStatus, engineErrorOf(error.upstreamBody), error.headers['retry-after'] ?? null);
}

/** A generation the client left, or the provider's timeout ended. */
export const generationEnded = (why: 'timeout' | 'left'): GatewayError =>
  why === 'timeout'
    ? new GatewayError('upstream_unavailable', `${ENGINE} did not finish the image within the provider's timeout.`)
    : new GatewayError('upstream_unavailable', 'The image request was cancelled.');

/** The message of a video task whose engine job ended without a video. */
export const VIDEO_FAILED = `${ENGINE} could not generate this video.`;
export const VIDEO_CANCELLED = `${ENGINE} cancelled this video job.`;
export const VIDEO_EXPIRED = `${ENGINE} no longer holds this video: it expired before the gateway fetched it.`;
