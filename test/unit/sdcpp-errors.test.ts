// stable-diffusion.cpp refusals (electron/core/providers/sdcpp/sdcpp-errors.ts): its flat
// {"error": "..."} sentences become the gateway's own words, never its text; 429 keeps
// Retry-After; 5xx and no answer are 503.
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../electron/core/errors.js';
import { engineErrorOf, fromUpstream, sdcppError, SdcppStatusError } from '../../electron/core/providers/sdcpp/sdcpp-errors.js';
import { errorForStatus, UpstreamStatusError } from '../../electron/core/providers/upstream/upstream-errors.js';

describe('sd.cpp errors', () => {
  it('reads the flat error sentence, and nothing from other bodies', () => {
    expect(engineErrorOf('{"error":"prompt required"}')).toBe('prompt required');
    expect(engineErrorOf('{"error":"server_error","message":"std::bad_alloc at /home/owner/models"}')).toBe('server_error');
    expect(engineErrorOf('')).toBeNull();
    expect(engineErrorOf('<html>')).toBeNull();
    expect(engineErrorOf('{"detail":"x"}')).toBeNull();
  });

  it.each([
    ['prompt required', /the prompt is empty/],
    ['loaded model does not support img_gen', /does not generate images/],
    ['loaded model does not support vid_gen', /does not generate videos/],
    ['invalid output_format, must be one of [png, jpeg]', /output format/],
    ['invalid generation parameters', /parameters invalid/],
    ['invalid params', /parameters invalid/],
    ['at least one image[] required', /no reference image/],
    ['something new the gateway has never seen /home/owner', /^The stable-diffusion\.cpp server refused the request\.$/],
  ])('400 %j is upstream_bad_request in the gateway\u2019s words', (sentence, message) => {
    const error = sdcppError(400, sentence, null);
    expect(error).toMatchObject({ code: 'upstream_bad_request', status: 400, engineStatus: 400, engineError: sentence });
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain(sentence);
    expect(error.message).not.toContain('/home/owner');
  });

  it('429 (its job queue is full) is upstream_rate_limited, keeping Retry-After when sent', () => {
    const withWait = sdcppError(429, 'job queue is full', '7');
    expect(withWait).toMatchObject({ code: 'upstream_rate_limited', status: 429, headers: { 'retry-after': '7' } });
    expect(withWait.message).toMatch(/queue is full/);
    expect(sdcppError(429, 'job queue is full', null).headers).toEqual({});
  });

  it('5xx is 503 upstream_unavailable, never the exception text', () => {
    const error = sdcppError(500, 'server_error', null);
    expect(error).toMatchObject({ code: 'upstream_unavailable', status: 503 });
    expect(sdcppError(500, 'generate_image returned no results', null).message).toMatch(/failed to generate/);
    expect(sdcppError(503, null, null).code).toBe('upstream_unavailable');
  });

  it('job answers: 404 with its sentence (unknown job), httplib\u2019s bare 404 (no such route), 410 expired, 409 generating', () => {
    expect(sdcppError(404, 'job not found', null)).toMatchObject({ code: 'upstream_bad_request', engineStatus: 404 });
    expect(sdcppError(404, null, null)).toMatchObject({ code: 'upstream_unavailable', message: expect.stringMatching(/does not serve this route/) });
    expect(sdcppError(410, 'job expired', null)).toMatchObject({ code: 'upstream_bad_request', message: expect.stringMatching(/expired/) });
    expect(sdcppError(409, 'job is currently generating and cannot be interrupted yet', null)).toMatchObject({ code: 'upstream_bad_request' });
  });

  it('maps the shared client\u2019s refusal again from the body it kept; other errors pass as they are', () => {
    const refused = new UpstreamStatusError(errorForStatus(400, null), 400, null, '{"error":"loaded model does not support vid_gen"}');
    expect(fromUpstream(refused)).toMatchObject({ code: 'upstream_bad_request', engineStatus: 400, message: expect.stringMatching(/does not generate videos/) });
    const limited = new UpstreamStatusError(errorForStatus(429, '4'), 429, null, '{"error":"job queue is full"}');
    expect(fromUpstream(limited)).toMatchObject({ code: 'upstream_rate_limited', headers: { 'retry-after': '4' } });
    expect(fromUpstream(new UpstreamStatusError(errorForStatus(404, null), 404, null, ''))).toBeInstanceOf(SdcppStatusError);
    const down = new GatewayError('upstream_unavailable', 'down');
    expect(fromUpstream(down)).toBe(down);
  });
});
