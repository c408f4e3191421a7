// The faults of Replicate's prediction creation the emulator can produce, and the answer each
// must give (the mapping of docs/providers.md), with `secret` planted in every body Replicate
// sends: it must never reach a client.
import type { FaultCase } from './upstream-fault-cases.js';

/** A problem details body, as Replicate answers errors. */
export const problemBody = (status: number, secret: string, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ title: `title ${secret}`, detail: `detail ${secret}`, status, ...extra });

export function replicateCreateFaultCases(secret: string): FaultCase[] {
  const body = (status: number, extra: Record<string, unknown> = {}) => ({ status, body: problemBody(status, secret, extra), headers: { 'content-type': 'application/problem+json' } });
  const fields = { invalid_fields: [{ type: 'enum', field: 'input.aspect_ratio', description: `must be one of ${secret}` }, { type: 'required', field: `input.${secret}`, description: secret }] };
  return [
    ['401 (the owner key is wrong)', body(401), 503, 'upstream_unavailable'],
    ['403', body(403), 503, 'upstream_unavailable'],
    ['402 (out of credit)', body(402), 503, 'upstream_unavailable'],
    ['404 (no such model)', body(404), 400, 'upstream_bad_request'],
    ['422 with invalid_fields', body(422, fields), 400, 'upstream_bad_request'],
    ['422 without fields', body(422), 400, 'upstream_bad_request'],
    ['429 with Retry-After', { ...body(429), headers: { 'content-type': 'application/problem+json', 'retry-after': '7' } }, 429, 'upstream_rate_limited'],
    ['500', body(500), 503, 'upstream_unavailable'],
    ['503', body(503), 503, 'upstream_unavailable'],
    ['connection reset', { reset: true }, 503, 'upstream_unavailable'],
    ['truncated body', { truncate: true }, 503, 'upstream_unavailable'],
    ['malformed JSON', { status: 201, body: `{"id": "x", ${secret}` }, 502, 'upstream_invalid_response'],
    ['a prediction without an id', { status: 201, body: JSON.stringify({ status: 'starting', note: secret }) }, 502, 'upstream_invalid_response'],
    ['an unknown status', { status: 201, body: JSON.stringify({ id: 'abc', status: secret }) }, 502, 'upstream_invalid_response'],
  ];
}
