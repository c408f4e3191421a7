// Which failures send a request on to the next route. Only those that came before the upstream
// did any work that could cost money: it could not be reached (or called at all), it timed out
// connecting, it answered 429 or 5xx, or it refused the gateway's account (credentials, credit),
// whichever adapter read the answer (each maps its upstream's errors again, keeping the status).
// A 4xx about the request itself would be refused by the next route too, and a timeout after the
// request went out, a broken answer, or a job the upstream accepted may all have been paid for.
import { GatewayError } from '../errors.js';
import { ProviderUnreached, UpstreamStatusError } from '../providers/upstream/upstream-errors.js';

/** Why the next route may take the request, in a few words; null when it may not. */
export function failoverReason(error: unknown): string | null {
  if (error instanceof ProviderUnreached) return error.reason;
  if (!(error instanceof UpstreamStatusError)) return null;
  const status = error.upstreamStatus;
  if (status === 429) return 'rate limited (429)';
  if (status >= 500) return `unavailable (${status})`;
  if (status === 401 || status === 403) return `refused the gateway's credentials (${status})`;
  if (status === 402) return 'out of credit (402)';
  // An adapter that reads the answer as the provider's own unavailability (a route its server
  // does not serve, an account out of credits, a project its region refuses): nothing ran.
  if (error.code === 'upstream_unavailable') return `unavailable (${status})`;
  if (error.code === 'upstream_rate_limited') return `rate limited (${status})`;
  return null;
}

/**
 * What a failure says about the provider's health: a failover reason, or, for a failure that is
 * answered to the client but is still the provider's (a timeout, a broken answer), its message.
 * Null when the provider answered and the request was at fault (a 4xx about it).
 */
export function providerFault(error: unknown): string | null {
  const reason = failoverReason(error);
  if (reason !== null) return reason;
  if (!(error instanceof GatewayError)) return 'failed';
  return error.code === 'upstream_unavailable' || error.code === 'upstream_invalid_response' ? error.message : null;
}
