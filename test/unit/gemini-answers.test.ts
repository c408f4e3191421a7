// The Gemini API's answers and refusals read by the gemini kind: the image of a generateContent
// answer (thoughts skipped) or why there is none, its usage, an operation's state, and every
// error body in the gateway's words (the owner's key 503 whatever the status, RetryInfo as
// Retry-After, only the gateway's own field names said).
import { describe, expect, it } from 'vitest';
import { GatewayError, isGatewayError } from '../../electron/core/errors.js';
import { durationSeconds, fieldsNamed, geminiError } from '../../electron/core/providers/gemini/gemini-errors.js';
import { apiRoot, imageOfAnswer, modelName, operationNameOf, operationStateOf, usageOf } from '../../electron/core/providers/gemini/gemini-mapping.js';
import { errorForStatus, UpstreamStatusError } from '../../electron/core/providers/upstream/upstream-errors.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex').toString('base64');
const image = (data = PNG, extra: Record<string, unknown> = {}) => ({ inlineData: { mimeType: 'image/png', data }, ...extra });
const answer = (parts: unknown[], finishReason = 'STOP') => ({ candidates: [{ content: { role: 'model', parts }, finishReason, index: 0 }] });

function thrown(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (error) {
    if (isGatewayError(error)) return error;
    throw error;
  }
  throw new Error('nothing was thrown');
}

describe('the image of an answer', () => {
  it('the first inlineData part that is not a thought, after text', () => {
    const thought = Buffer.from('thought').toString('base64');
    expect(imageOfAnswer(answer([{ text: 'Thinking', thought: true }, image(thought, { thought: true }), { text: 'Here it is' }, image()])).b64).toBe(PNG);
    // snake_case, as some proxies answer
    expect(imageOfAnswer(answer([{ inline_data: { mime_type: 'image/png', data: PNG } }])).b64).toBe(PNG);
  });

  it.each([
    ['a blocked prompt', { promptFeedback: { blockReason: 'PROHIBITED_CONTENT' } }, /blocked the prompt \(PROHIBITED_CONTENT\); nothing was charged/],
    ['a blocked prompt with a reason it does not know', { promptFeedback: { blockReason: 'NEW_REASON <script>' } }, /^The Gemini API blocked the prompt; nothing/],
    ['IMAGE_SAFETY', { candidates: [{ finishReason: 'IMAGE_SAFETY' }] }, /blocked the image \(IMAGE_SAFETY\)/],
    ['SAFETY', { candidates: [{ finishReason: 'SAFETY', content: { parts: [] } }] }, /blocked the image \(SAFETY\)/],
    ['PROHIBITED_CONTENT', { candidates: [{ finishReason: 'PROHIBITED_CONTENT' }] }, /blocked the image \(PROHIBITED_CONTENT\)/],
    ['NO_IMAGE', { candidates: [{ finishReason: 'NO_IMAGE' }] }, /gave no image \(NO_IMAGE\)/],
    ['text only', answer([{ text: 'I cannot draw that.' }]), /answered with text and no image/],
    ['an unknown finishReason', { candidates: [{ finishReason: 'SOMETHING_NEW' }] }, /^The Gemini API gave no image; nothing was charged\.$/],
  ])('%s: 400 upstream_bad_request in gateway words', (_name, body, message) => {
    const error = thrown(() => imageOfAnswer(body));
    expect(error.code).toBe('upstream_bad_request');
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain('cannot draw');
  });

  it.each([
    ['no candidates', {}],
    ['not an object', []],
    ['bad base64', answer([image('%%%not base64%%%')])],
  ])('%s: 502', (_name, body) => {
    expect(thrown(() => imageOfAnswer(body)).code).toBe('upstream_invalid_response');
  });
});

describe('usage', () => {
  it('prompt and candidates; thoughts billed as output; cached tokens apart; none: null (the estimate)', () => {
    expect(usageOf({ usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 1290, totalTokenCount: 1302 } })).toEqual({ input_tokens: 12, output_tokens: 1290 });
    expect(usageOf({ usageMetadata: { promptTokenCount: 300, candidatesTokenCount: 1120, thoughtsTokenCount: 180, cachedContentTokenCount: 100 } })).toEqual({ input_tokens: 200, output_tokens: 1300, cache_tokens: 100 });
    expect(usageOf({ usageMetadata: { promptTokenCount: 12, totalTokenCount: 12 } })).toBeNull();
    expect(usageOf({})).toBeNull();
    expect(thrown(() => usageOf({ usageMetadata: { promptTokenCount: 1.5, candidatesTokenCount: 2 } })).code).toBe('upstream_invalid_response');
  });
});

describe('names and operations', () => {
  it('the API root with or without a version; model names as the SDK makes them', () => {
    expect(apiRoot('https://generativelanguage.googleapis.com')).toBe('https://generativelanguage.googleapis.com/v1beta');
    expect(apiRoot('http://127.0.0.1:9/v1beta/')).toBe('http://127.0.0.1:9/v1beta');
    expect(modelName('gemini-2.5-flash-image')).toBe('models/gemini-2.5-flash-image');
    expect(modelName('models/veo-3.0-generate-001')).toBe('models/veo-3.0-generate-001');
    expect(thrown(() => modelName('../files/x')).code).toBe('upstream_bad_request');
  });

  it('an operation name that is a resource path; anything else is a broken answer', () => {
    expect(operationNameOf({ name: 'models/veo-3.0-generate-001/operations/abc123' })).toBe('models/veo-3.0-generate-001/operations/abc123');
    for (const name of [undefined, '', 'models/../../x', '/abs', 'a b', 'https://elsewhere/x']) expect(thrown(() => operationNameOf({ name })).code).toBe('upstream_invalid_response');
  });

  it('states: running, an error, filtered, empty, a video by uri or inline', () => {
    expect(operationStateOf({ name: 'x' })).toEqual({ done: false });
    expect(operationStateOf({ name: 'x', done: true, error: { code: 13, message: 'boom' } })).toEqual({ done: true, outcome: 'error' });
    expect(operationStateOf({ done: true, response: { generateVideoResponse: { raiMediaFilteredCount: 1, raiMediaFilteredReasons: ['x'] } } })).toEqual({ done: true, outcome: 'filtered' });
    expect(operationStateOf({ done: true, response: {} })).toEqual({ done: true, outcome: 'empty' });
    const uri = 'https://generativelanguage.googleapis.com/v1beta/files/abc:download?alt=media';
    expect(operationStateOf({ done: true, response: { generateVideoResponse: { generatedSamples: [{ video: { uri } }] } } })).toEqual({ done: true, outcome: 'video', uri, bytes: null });
    const inline = operationStateOf({ done: true, response: { generateVideoResponse: { generatedSamples: [{ video: { encodedVideo: 'AAAA', encoding: 'video/mp4' } }] } } });
    expect(inline).toMatchObject({ outcome: 'video', uri: null, bytes: Buffer.from('AAAA', 'base64') });
  });
});

/** An UpstreamStatusError as the shared client makes it for `status` and `body`. */
function upstream(status: number, body: unknown, retryAfter: string | null = null): UpstreamStatusError {
  return new UpstreamStatusError(errorForStatus(status, retryAfter), status, null, typeof body === 'string' ? body : JSON.stringify(body));
}
const google = (code: number, status: string, message: string, details?: unknown[]) => ({ error: { code, message, status, ...(details ? { details } : {}) } });
const SENT = { contents: [{ parts: [{ text: 'x' }] }], generationConfig: { imageConfig: { aspectRatio: '7:4' }, seed: 3 } };

describe('errors in gateway words', () => {
  it.each([
    ['400 API_KEY_INVALID', upstream(400, google(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' }])), 503, /provider key \(API_KEY_INVALID\)/],
    ['400 "API key expired" without details', upstream(400, google(400, 'INVALID_ARGUMENT', 'API key expired. Please renew the API key.')), 503, /provider key/],
    ['403 SERVICE_DISABLED', upstream(403, google(403, 'PERMISSION_DENIED', 'Generative Language API has not been used', [{ reason: 'SERVICE_DISABLED' }])), 503, /\(SERVICE_DISABLED\)/],
    ['403 without a reason', upstream(403, google(403, 'PERMISSION_DENIED', 'The caller does not have permission')), 503, /Google AI Studio project/],
    ['400 FAILED_PRECONDITION (region or billing)', upstream(400, google(400, 'FAILED_PRECONDITION', 'User location is not supported for the API use.')), 503, /region, or billing/],
    ['404 model', upstream(404, google(404, 'NOT_FOUND', 'models/x is not found for API version v1beta')), 400, /no such model, or the model does not take generateContent/],
    ['400 naming a field the gateway sent', upstream(400, google(400, 'INVALID_ARGUMENT', 'Unsupported aspect_ratio 7:4; also seed')), 400, /^The Gemini API refused the request: it found fault with aspectRatio, seed\.$/],
    ['400 naming nothing the gateway sent', upstream(400, google(400, 'INVALID_ARGUMENT', 'Something about secretField')), 400, /^The Gemini API refused the request\.$/],
    ['400 OUT_OF_RANGE', upstream(400, google(400, 'OUT_OF_RANGE', 'x')), 400, /\(OUT_OF_RANGE\)/],
    ['413', upstream(413, 'Request Entity Too Large'), 400, /too large/],
    ['500', upstream(500, google(500, 'INTERNAL', 'x')), 503, /temporarily unavailable/],
    ['503 overloaded', upstream(503, google(503, 'UNAVAILABLE', 'The model is overloaded.')), 503, /temporarily unavailable/],
    ['an HTML 502 of a proxy', upstream(502, '<html>bad gateway</html>'), 503, /temporarily unavailable/],
  ])('%s', (_name, error, status, message) => {
    const mapped = geminiError(error, 'image', SENT) as GatewayError;
    expect(mapped.status).toBe(status);
    expect(mapped.message).toMatch(message);
    expect(mapped.message).not.toMatch(/not valid|location|model is overloaded|secretField|permission/);
  });

  it('429: Retry-After from the header, else from RetryInfo; none without either', () => {
    const retryInfo = [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '30.2s' }];
    const fromBody = geminiError(upstream(429, google(429, 'RESOURCE_EXHAUSTED', 'quota', retryInfo)), 'image') as GatewayError;
    expect(fromBody).toMatchObject({ code: 'upstream_rate_limited', headers: { 'retry-after': '31' } });
    expect((geminiError(upstream(429, google(429, 'RESOURCE_EXHAUSTED', 'quota', retryInfo), '5'), 'image') as GatewayError).headers['retry-after']).toBe('5');
    expect((geminiError(upstream(429, google(429, 'RESOURCE_EXHAUSTED', 'quota')), 'poll') as GatewayError).headers).toEqual({});
    expect(durationSeconds('0.5s')).toBe('1');
    expect(durationSeconds('7200s')).toBe('3600');
    expect(durationSeconds('soon')).toBeNull();
  });

  it('a video call\u2019s 404 names predictLongRunning; other failures pass as they are', () => {
    expect((geminiError(upstream(404, {}), 'video') as GatewayError).message).toMatch(/predictLongRunning/);
    const other = new GatewayError('upstream_unavailable', 'x');
    expect(geminiError(other, 'image')).toBe(other);
    expect(fieldsNamed('bad durationSeconds and parts', { instances: [{ prompt: 'x' }], parameters: { durationSeconds: 4 } })).toEqual(['durationSeconds']);
  });
});
