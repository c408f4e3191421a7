// The faults the Runway emulator can produce on an image request and the answer each must give
// (the mapping of docs/providers.md), by the route they hit: the API's, or the output host's.
// Every error body carries `secret`, which must never reach a client.
import type { Fault } from '../emulators/index.js';
import { secretBody } from './upstream-fault-cases.js';

/** [name, where ('api' | 'cdn'), the route, the fault, the status and code the client must get]. */
export type RunwayFaultCase = [string, 'api' | 'cdn', string, Fault, number, string];

export function runwayImageFaultCases(secret: string): RunwayFaultCase[] {
  const body = (status: number) => secretBody(secret, status);
  const runway = (error: unknown) => JSON.stringify(error);
  return [
    ['create 400 validation', 'api', 'POST text_to_image', { status: 400, body: runway({ error: 'Validation of body failed', issues: [{ code: 'invalid_value', path: ['ratio'], message: secret }] }) }, 400, 'upstream_bad_request'],
    ['create 400 an asset it could not use', 'api', 'POST text_to_image', { status: 400, body: runway({ error: `referenceImages: Invalid data URI. ${secret}` }) }, 400, 'upstream_bad_request'],
    ['create 400 out of credits', 'api', 'POST text_to_image', { status: 400, body: runway({ error: `You do not have enough credits to run this task. ${secret}` }) }, 503, 'upstream_unavailable'],
    ['create 401 (the owner key is wrong)', 'api', 'POST text_to_image', { status: 401, body: body(401) }, 503, 'upstream_unavailable'],
    ['create 403', 'api', 'POST text_to_image', { status: 403, body: body(403) }, 503, 'upstream_unavailable'],
    ['create 404 (a wrong base URL)', 'api', 'POST text_to_image', { status: 404, body: body(404) }, 503, 'upstream_unavailable'],
    ['create 429', 'api', 'POST text_to_image', { status: 429, body: body(429), headers: { 'retry-after': '7' } }, 429, 'upstream_rate_limited'],
    ['create 502 (shedding load)', 'api', 'POST text_to_image', { status: 502, body: body(502) }, 503, 'upstream_unavailable'],
    ['create 504', 'api', 'POST text_to_image', { status: 504, body: body(504) }, 503, 'upstream_unavailable'],
    ['create connection reset', 'api', 'POST text_to_image', { reset: true }, 503, 'upstream_unavailable'],
    ['create malformed JSON', 'api', 'POST text_to_image', { body: `{"id": ${secret}` }, 502, 'upstream_invalid_response'],
    ['create without an id', 'api', 'POST text_to_image', { body: runway({ task: secret }) }, 502, 'upstream_invalid_response'],
    ['task 401 (the key revoked meanwhile)', 'api', 'GET task', { status: 401, body: body(401) }, 503, 'upstream_unavailable'],
    ['task 404 (deleted at Runway)', 'api', 'GET task', { status: 404, body: body(404) }, 502, 'upstream_invalid_response'],
    ['task with an unknown status', 'api', 'GET task', { body: runway({ id: 'x', status: secret }) }, 502, 'upstream_invalid_response'],
    ['task SUCCEEDED without output', 'api', 'GET task', { body: runway({ id: 'x', status: 'SUCCEEDED', output: [], note: secret }) }, 502, 'upstream_invalid_response'],
    // The output a success named is gone or refused at its (storage) URL: not a rejected request, not the provider key.
    ['output 403 (an expired signed URL)', 'cdn', 'GET output', { status: 403, body: body(403) }, 502, 'upstream_invalid_response'],
    ['output 404', 'cdn', 'GET output', { status: 404, body: body(404) }, 502, 'upstream_invalid_response'],
    ['output 503', 'cdn', 'GET output', { status: 503, body: body(503) }, 503, 'upstream_unavailable'],
    ['output is not an image', 'cdn', 'GET output', { body: `plain text ${secret}` }, 502, 'upstream_invalid_response'],
  ];
}
