// The upstream faults the emulators can produce and the answer each must give (the mapping of
// docs/providers.md), shared by the one-at-a-time tests (test/integration/
// providers-faults.test.ts) and the same faults under concurrency (test/reliability/).
import type { Fault } from '../emulators/index.js';

/** [name, the fault, the status and code the client must get]. */
export type FaultCase = [string, Fault, number, string];
/** [name, the fal route, the fault, the status and code the client must get]. */
export type FalFaultCase = [string, string, Fault, number, string];

/** An upstream error body with `secret` in it, which must never reach a client. */
export const secretBody = (secret: string, status: number) => JSON.stringify({ error: { message: `upstream says no; internal token ${secret}`, type: 'x', code: 'y' } }) + ` status ${status}`;

/** A PNG head whose base64 needs '+' and '/', written with the URL-safe '-' and '_' instead. */
const urlSafePng = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d4948445200000010000000100806000000', 'hex'), Buffer.from([0, 0xfb, 0xef, 0xff])]).toString('base64url');
const notAnImage = JSON.stringify({ data: [{ b64_json: Buffer.from('GIF89a not an image at all').toString('base64') }] });

/** Faults of an OpenAI-compatible upstream's POST /v1/images/generations. */
export function openaiImageFaultCases(secret: string): FaultCase[] {
  const body = (status: number) => secretBody(secret, status);
  return [
    ['400', { status: 400, body: body(400) }, 400, 'upstream_bad_request'],
    ['404', { status: 404, body: body(404) }, 400, 'upstream_bad_request'],
    ['422', { status: 422, body: body(422) }, 400, 'upstream_bad_request'],
    ['429', { status: 429, body: body(429), headers: { 'retry-after': '7' } }, 429, 'upstream_rate_limited'],
    ['401 (the owner key is wrong)', { status: 401, body: body(401) }, 503, 'upstream_unavailable'],
    ['403', { status: 403, body: body(403) }, 503, 'upstream_unavailable'],
    ['402 (the owner account upstream is out of credit)', { status: 402, body: body(402) }, 503, 'upstream_unavailable'],
    ['500', { status: 500, body: body(500) }, 503, 'upstream_unavailable'],
    ['503', { status: 503, body: body(503) }, 503, 'upstream_unavailable'],
    ['connection reset', { reset: true }, 503, 'upstream_unavailable'],
    ['timeout', { latencyMs: 3_000 }, 503, 'upstream_unavailable'],
    ['truncated body', { truncate: true }, 503, 'upstream_unavailable'],
    ['malformed JSON', { body: `{"data": [ ${secret}` }, 502, 'upstream_invalid_response'],
    ['no image', { body: JSON.stringify({ data: [], note: secret }) }, 502, 'upstream_invalid_response'],
    ['missing data', { body: JSON.stringify({ created: 1, secret }) }, 502, 'upstream_invalid_response'],
    ['bad base64', { body: JSON.stringify({ data: [{ b64_json: `%%%${secret}%%%` }] }) }, 502, 'upstream_invalid_response'],
    ['not a decodable image', { body: notAnImage }, 502, 'upstream_invalid_response'],
    ['URL-safe base64', { body: JSON.stringify({ data: [{ b64_json: urlSafePng }] }) }, 502, 'upstream_invalid_response'],
  ];
}

/** Faults of a fal queue's image job, by the route they hit. */
export function falImageFaultCases(secret: string): FalFaultCase[] {
  const body = (status: number) => secretBody(secret, status);
  return [
    ['submit 422', 'POST submit', { status: 422, body: body(422) }, 400, 'upstream_bad_request'],
    ['submit 500', 'POST submit', { status: 500, body: body(500) }, 503, 'upstream_unavailable'],
    ['submit reset', 'POST submit', { reset: true }, 503, 'upstream_unavailable'],
    ['status malformed', 'GET status', { body: `not json ${secret}` }, 502, 'upstream_invalid_response'],
    ['result without images', 'GET result', { body: JSON.stringify({ images: [], secret }) }, 502, 'upstream_invalid_response'],
    ['file is not an image', 'GET file', { body: `plain text ${secret}` }, 502, 'upstream_invalid_response'],
    // The file a success named is gone or refused at its (CDN) URL: not a rejected request, not the provider key.
    ['file 404', 'GET file', { status: 404, body: body(404) }, 502, 'upstream_invalid_response'],
    ['file 403 (an expired signed URL)', 'GET file', { status: 403, body: body(403) }, 502, 'upstream_invalid_response'],
    ['file 503', 'GET file', { status: 503, body: body(503) }, 503, 'upstream_unavailable'],
  ];
}
