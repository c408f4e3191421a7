// The a1111 kind's refusals: A1111's {error, detail, body, errors} and Forge's plain FastAPI
// {detail} (modules/api/api.py api_middleware; Forge's webui.py), in the gateway's words only.
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../electron/core/errors.js';
import { a1111Error, fromUpstream, parseErrorBody } from '../../electron/core/providers/a1111/a1111-errors.js';
import { errorForStatus, UpstreamStatusError } from '../../electron/core/providers/upstream/upstream-errors.js';

describe('a1111 refusals in gateway words', () => {
  const secret = 'C:\\Users\\owner\\models\\secret-prompt-text';
  const a1111 = (status: number, detail: unknown, error = 'HTTPException') =>
    JSON.stringify({ error, detail, body: '', errors: `${status}: ${typeof detail === 'string' ? detail : ''} ${secret}` });

  const expectClean = (error: GatewayError) => {
    expect(error).toBeInstanceOf(GatewayError);
    expect(error.message).not.toContain(secret);
    expect(error.message).not.toContain('Traceback');
  };

  it('both shapes are recognized', () => {
    expect(parseErrorBody(a1111(400, 'Sampler not found'))).toMatchObject({ shape: 'a1111', errorName: 'HTTPException', detail: 'Sampler not found' });
    expect(parseErrorBody('{"detail":"Sampler not found"}')).toMatchObject({ shape: 'fastapi', detail: 'Sampler not found' });
    expect(parseErrorBody('<html>Internal Server Error</html>')).toMatchObject({ shape: 'none' });
  });

  it.each([
    ['A1111', a1111(401, 'Incorrect username or password')],
    ['Forge', '{"detail":"Incorrect username or password"}'],
    ['no credentials', '{"detail":"Not authenticated"}'],
  ])('401 (%s): 503, the owner must fix the credentials', (_name, body) => {
    const error = a1111Error(401, body);
    expect(error).toMatchObject({ code: 'upstream_unavailable', status: 503 });
    expect(error.message).toMatch(/credentials/);
    expect(error.message).toMatch(/--api-auth/);
  });

  it('404 Not Found (a route the engine does not have: started without --api): 503 saying so', () => {
    for (const body of ['{"detail":"Not Found"}', 'Not Found', '<!doctype html><title>404</title>']) {
      const error = a1111Error(404, body);
      expect(error).toMatchObject({ code: 'upstream_unavailable', status: 503 });
      expect(error.message).toMatch(/--api\b/);
    }
  });

  it("Sampler not found (400 now, 404 in older A1111; both shapes): 400 naming the owner's sampler setting", () => {
    for (const [status, body] of [
      [400, a1111(400, 'Sampler not found')],
      [400, '{"detail":"Sampler not found"}'],
      [404, a1111(404, 'Sampler not found')],
    ] as const) {
      const error = a1111Error(status, body, { sampler_name: 'Euler z' });
      expect(error).toMatchObject({ code: 'upstream_bad_request', status: 400 });
      expect(error.message).toMatch(/"Euler z"/);
      expect(error.message).toMatch(/capabilities\.sampler/);
      expectClean(error);
    }
  });

  it('422 validation (pydantic v1 and v2 lists): 400 naming the field and the error code, never the message', () => {
    const v2 = JSON.stringify({ detail: [{ type: 'int_parsing', loc: ['body', 'steps'], msg: `Input should be a valid integer ${secret}`, input: secret }] });
    const v1 = JSON.stringify({ detail: [{ loc: ['body', 'override_settings', 'sd_model_checkpoint'], msg: secret, type: 'type_error.str' }] });
    const e2 = a1111Error(422, v2);
    expect(e2).toMatchObject({ code: 'upstream_bad_request', status: 400 });
    expect(e2.message).toContain('"steps"');
    expect(e2.message).toContain('int_parsing');
    expectClean(e2);
    const e1 = a1111Error(422, v1);
    expect(e1.message).toContain('"override_settings.sd_model_checkpoint"');
    expectClean(e1);
    // A field path with characters that are not an identifier is not repeated.
    const odd = a1111Error(422, JSON.stringify({ detail: [{ loc: ['body', `x ${secret}`], msg: 'm', type: 'Bad Type!' }] }));
    expect(odd.message).toMatch(/a field is invalid/);
    expectClean(odd);
  });

  it('an A1111 422 HTTPException (a script not found) and an unknown 400 detail: 400 without the text', () => {
    const script = a1111Error(422, a1111(422, `Script '${secret}' not found`));
    expect(script).toMatchObject({ code: 'upstream_bad_request' });
    expectClean(script);
    const other = a1111Error(400, JSON.stringify({ detail: secret }));
    expect(other).toMatchObject({ code: 'upstream_bad_request' });
    expectClean(other);
  });

  it('5xx (both shapes, or none): 503; known exception classes in plain words', () => {
    const oom = a1111Error(500, JSON.stringify({ error: 'OutOfMemoryError', detail: '', body: '', errors: `CUDA out of memory. ${secret}` }));
    expect(oom).toMatchObject({ code: 'upstream_unavailable', status: 503 });
    expect(oom.message).toMatch(/GPU memory/);
    expectClean(oom);
    const forge = a1111Error(500, JSON.stringify({ error: 'RuntimeError', detail: '', body: '', message: secret }));
    expect(forge).toMatchObject({ code: 'upstream_unavailable' });
    expectClean(forge);
    expect(a1111Error(502, 'Bad Gateway')).toMatchObject({ code: 'upstream_unavailable' });
    // A class name that is an object key is not looked up as one.
    expect(a1111Error(500, JSON.stringify({ error: 'constructor', detail: '' })).message).not.toMatch(/function/);
  });

  it('429 keeps its meaning', () => {
    expect(a1111Error(429, '{"detail":"busy"}')).toMatchObject({ code: 'upstream_rate_limited', status: 429 });
  });

  it('the shared client\u2019s refusal is classified again from the body it kept; other errors pass as they are', () => {
    const sampler = new UpstreamStatusError(errorForStatus(404, null), 404, null, '{"detail":"Sampler not found"}');
    expect(fromUpstream(sampler, { sampler_name: 'Euler a' })).toMatchObject({ code: 'upstream_bad_request', message: expect.stringMatching(/no sampler "Euler a"/) });
    expect(fromUpstream(new UpstreamStatusError(errorForStatus(404, null), 404, null, '{"detail":"Not Found"}'))).toMatchObject({ message: expect.stringMatching(/--api/) });
    expect(fromUpstream(new UpstreamStatusError(errorForStatus(401, null), 401, null, ''))).toMatchObject({ code: 'upstream_unavailable', message: expect.stringMatching(/--api-auth/) });
    const down = new GatewayError('upstream_unavailable', 'down');
    expect(fromUpstream(down)).toBe(down);
  });
});
