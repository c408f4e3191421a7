// The runway kind's requests and answers without a server: the ratio a size maps to, the default
// templates and an owner's filled (references left out with what stands for them), the check of
// a template when a model is put, task answers, and Runway's refusals and failures in our words.
import { describe, expect, it } from 'vitest';
import type { ModelRecord } from '../../shared/api-types.js';
import { isGatewayError } from '../../electron/core/errors.js';
import { errorForStatus, UpstreamStatusError } from '../../electron/core/providers/upstream/upstream-errors.js';
import { imageFailure, runwayError, taskFailure } from '../../electron/core/providers/runway/runway-errors.js';
import { apiRoot, createdIdOf, MODEL_RATIOS, nearestRatio, percent, runwayRatio, taskOf } from '../../electron/core/providers/runway/runway-mapping.js';
import { checkTemplate, defaultTemplate, requestBody, type BodyRequest } from '../../electron/core/providers/runway/runway-templates.js';

const image = (caps: ModelRecord['capabilities']): ModelRecord => ({ id: 'rw/x', capabilities: caps } as unknown as ModelRecord);
const request = (extra: Partial<BodyRequest> = {}): BodyRequest => ({ endpoint: 'text_to_image', upstreamModel: 'gen4_image', prompt: 'a fox', width: 1280, height: 720, seed: 7, images: [], ...extra });
const refusal = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new UpstreamStatusError(errorForStatus(status, headers['retry-after'] ?? null), status, null, typeof body === 'string' ? body : JSON.stringify(body));
const gateway = (error: unknown) => {
  if (!isGatewayError(error)) throw new Error('not a GatewayError');
  return { status: error.status, code: error.code, message: error.message, headers: error.headers };
};

describe('ratios', () => {
  it.each([
    ['1280x720 is one of its own', 1280, 720, '1280:720'],
    ['1024x576 (16:9): the 16:9 nearest in area', 1024, 576, '1280:720'],
    ['1920x1080 exactly', 1920, 1080, '1920:1080'],
    ['1024x1024: the square nearest in area', 1024, 1024, '1024:1024'],
    ['700x700: the smaller square', 700, 700, '720:720'],
    ['1344x768 (1.75): 1360:768 is nearest in shape and area', 1344, 768, '1360:768'],
    ['768x1344 (portrait 0.57): the 9:16 nearest in area', 768, 1344, '720:1280'],
    ['2400x1000 (2.4): 1808:768 (2.35) is nearest in shape', 2400, 1000, '1808:768'],
  ])('gen4_image, %s', (_label, w, h, ratio) => {
    expect(runwayRatio('text_to_image', 'gen4_image', w, h)).toBe(ratio);
  });

  it('video models pick from their own sets; gen4.5 text-to-video takes only two; an unknown model gets the size as asked', () => {
    expect(runwayRatio('image_to_video', 'gen4_turbo', 1024, 1024)).toBe('960:960');
    expect(runwayRatio('image_to_video', 'gen4_turbo', 1920, 1080)).toBe('1280:720');
    expect(runwayRatio('image_to_video', 'gen4.5', 1104, 832)).toBe('1104:832');
    expect(runwayRatio('text_to_video', 'gen4.5', 1104, 832)).toBe('1280:720');
    expect(runwayRatio('text_to_video', 'veo3.1', 1920, 1080)).toBe('1920:1080');
    expect(runwayRatio('text_to_video', 'veo3.1', 1024, 1024)).toMatch(/^(1280:720|720:1280|1080:1920|1920:1080)$/);
    expect(runwayRatio('text_to_image', 'gen9_future', 1500, 1000)).toBe('1500:1000');
    // Every listed ratio maps to itself.
    for (const [endpoint, models] of Object.entries(MODEL_RATIOS)) {
      for (const ratios of Object.values(models)) for (const ratio of ratios) {
        const [w, h] = ratio.split(':').map(Number);
        expect(nearestRatio(ratios, w!, h!), `${endpoint} ${ratio}`).toBe(ratio);
      }
    }
  });
});

describe('templates', () => {
  it('the default image template: prompt, ratio, a seed for Gen-4, tagged references; a generation sends none', () => {
    expect(requestBody(null, request())).toEqual({ model: 'gen4_image', promptText: 'a fox', ratio: '1280:720', seed: 7 });
    const edit = requestBody(null, request({ images: ['data:image/png;base64,AA==', 'data:image/png;base64,BB=='] }));
    expect(edit.referenceImages).toEqual([{ uri: 'data:image/png;base64,AA==', tag: 'image_1' }, { uri: 'data:image/png;base64,BB==', tag: 'image_2' }]);
    // Partner models take no seed; Seedream takes no tags.
    expect(requestBody(null, request({ upstreamModel: 'gemini_2.5_flash', width: 1024, height: 1024 }))).toEqual({ model: 'gemini_2.5_flash', promptText: 'a fox', ratio: '1024:1024' });
    expect(defaultTemplate('text_to_image', 'seedream5_pro').referenceImages).toEqual([{ uri: '{{image_1}}' }, { uri: '{{image_2}}' }, { uri: '{{image_3}}' }]);
  });

  it('the default video template: promptImage only with a reference, duration from seconds', () => {
    expect(requestBody(null, request({ endpoint: 'text_to_video', upstreamModel: 'veo3.1', seconds: 8 }))).toEqual({ model: 'veo3.1', promptText: 'a fox', ratio: '1280:720', duration: 8 });
    expect(requestBody(null, request({ endpoint: 'image_to_video', upstreamModel: 'gen4_turbo', seconds: 5, width: 1024, height: 1024, images: ['data:image/jpeg;base64,/9j/'] }))).toEqual({
      model: 'gen4_turbo', promptImage: 'data:image/jpeg;base64,/9j/', promptText: 'a fox', ratio: '960:960', duration: 5, seed: 7,
    });
  });

  it('an owner template: placeholders typed, {{aspect_ratio}} reduced, missing references left out with their entries, model always the upstream one', () => {
    const template = {
      promptText: 'Style: {{prompt}}', ratio: '{{ratio}}', seed: '{{seed}}', note: '{{aspect_ratio}} {{width}}x{{height}}',
      referenceImages: [{ uri: '{{image_1}}', tag: 'face' }, { uri: '{{image_2}}', tag: 'style' }],
      promptImage: [{ uri: '{{image_1}}', position: 'first' }],
      contentModeration: { publicFigureThreshold: 'low' },
    };
    const one = requestBody(template, request({ images: ['data:a'] }));
    expect(one).toEqual({
      model: 'gen4_image', promptText: 'Style: a fox', ratio: '1280:720', seed: 7, note: '16:9 1280x720',
      referenceImages: [{ uri: 'data:a', tag: 'face' }], promptImage: [{ uri: 'data:a', position: 'first' }], contentModeration: { publicFigureThreshold: 'low' },
    });
    // No reference at all: the arrays that held only references go too.
    expect(Object.keys(requestBody(template, request()))).toEqual(['model', 'promptText', 'ratio', 'seed', 'note', 'contentModeration']);
  });

  it.each([
    ['not an object', [1, 2], image({ image_generation: true }), /must be a JSON object/],
    ['"model" in it', { model: 'gen4_image', promptText: '{{prompt}}' }, image({ image_generation: true }), /leave "model" out/],
    ['no {{prompt}}', { promptText: 'a fox' }, image({ image_generation: true }), /no \{\{prompt\}\}/],
    ['an unknown placeholder', { promptText: '{{prompt}}', ratio: '{{size}}' }, image({ image_generation: true }), /\{\{size\}\}, which is not a placeholder/],
    ['a gap in the references', { promptText: '{{prompt}}', referenceImages: [{ uri: '{{image_2}}' }] }, image({ image_edit: true, max_reference_images: 2 }), /not \{\{image_1\}\}/],
    ['references on a model that does not edit', { promptText: '{{prompt}}', referenceImages: [{ uri: '{{image_1}}' }] }, image({ image_generation: true }), /allows none/],
    ['fewer references than the record allows', { promptText: '{{prompt}}', referenceImages: [{ uri: '{{image_1}}' }] }, image({ image_edit: true, max_reference_images: 3 }), /record allows 3/],
    ['{{seconds}} on an image model', { promptText: '{{prompt}}', duration: '{{seconds}}' }, image({ image_generation: true }), /only video models/],
    ['a video template without the reference its record allows', { promptText: '{{prompt}}', duration: '{{seconds}}' }, image({ video_generation: true, max_reference_images: 1 }), /no \{\{image_1\}\}/],
  ])('checkTemplate refuses %s (param template)', (_label, template, record, message) => {
    let caught: unknown;
    try {
      checkTemplate(template, record);
    } catch (error) {
      caught = error;
    }
    expect(gateway(caught)).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(message) });
    expect((caught as { param: string }).param).toBe('template');
  });

  it('checkTemplate takes a template that agrees with its record', () => {
    const edit = { promptText: '{{prompt}}', ratio: '{{ratio}}', referenceImages: [{ uri: '{{image_1}}' }, { uri: '{{image_2}}' }, { uri: '{{image_3}}' }] };
    expect(checkTemplate(edit, image({ image_generation: true, image_edit: true, max_reference_images: 3 }))).toBe(edit);
    const video = { promptImage: '{{image_1}}', promptText: '{{prompt}}', ratio: '{{ratio}}', duration: '{{seconds}}' };
    expect(checkTemplate(video, image({ video_generation: true, max_reference_images: 1 }))).toBe(video);
  });
});

describe('answers', () => {
  it('tasks: statuses, progress clamped, output URLs required, failure codes kept', () => {
    expect(taskOf({ id: 'x', status: 'THROTTLED' })).toEqual({ status: 'THROTTLED' });
    expect(taskOf({ status: 'RUNNING', progress: 1.7 })).toEqual({ status: 'RUNNING', progress: 1 });
    expect(taskOf({ status: 'RUNNING' })).toEqual({ status: 'RUNNING', progress: 0 });
    expect(taskOf({ status: 'SUCCEEDED', output: ['https://cdn/x.mp4'] })).toEqual({ status: 'SUCCEEDED', output: ['https://cdn/x.mp4'] });
    expect(taskOf({ status: 'FAILED', failure: 'secret words', failureCode: 'SAFETY.INPUT.TEXT' })).toEqual({ status: 'FAILED', failureCode: 'SAFETY.INPUT.TEXT' });
    for (const bad of [null, { status: 'DONE' }, { status: 'SUCCEEDED', output: [] }, { status: 'SUCCEEDED', output: ['ftp://x'] }]) {
      expect(gateway((() => { try { taskOf(bad); } catch (e) { return e; } })())).toMatchObject({ status: 502, code: 'upstream_invalid_response' });
    }
    expect(createdIdOf({ id: '1a2b-3c' })).toBe('1a2b-3c');
    expect(() => createdIdOf({ id: '../x' })).toThrow(/no id/);
    expect([percent(0), percent(0.5), percent(1)]).toEqual([0, 50, 99]);
    expect(apiRoot('https://api.dev.runwayml.com/v1/')).toBe('https://api.dev.runwayml.com/v1');
  });

  it.each([
    ['SAFETY.INPUT.TEXT', true, /moderation refused the prompt/],
    ['INPUT_PREPROCESSING.SAFETY.TEXT', true, /moderation refused the prompt/],
    ['SAFETY.INPUT.IMAGE', true, /moderation refused a reference image/],
    ['SAFETY.OUTPUT.VIDEO', true, /moderation refused the generated video/],
    ['INTERNAL.BAD_OUTPUT.CODE01', true, /rejected the generated video for its quality/],
    ['ASSET.INVALID', true, /could not use a reference image/],
    ['INPUT_PREPROCESSING.INTERNAL', false, /a failure on its side/],
    ['INTERNAL', false, /a failure on its side/],
    [null, false, /a failure on its side/],
  ])('failure code %s', (code, refused, message) => {
    expect(taskFailure(code, 'video')).toEqual({ refused, message: expect.stringMatching(message) });
    expect(gateway(imageFailure(code))).toMatchObject({ code: refused ? 'upstream_bad_request' : 'upstream_unavailable' });
  });

  it('refusals: fields named by the keys the gateway sent, never by the body; credits, routes, keys, limits', () => {
    const sent = { model: 'veo3.1', promptText: 'x', ratio: '1280:720', duration: 5 };
    const invalid = { error: 'Validation of body failed', issues: [{ code: 'invalid_value', path: ['duration'], message: 'SECRET-1' }, { code: 'too_big', path: ['promptText'], message: 'x' }, { code: 'custom', path: ['whatever'], message: 'SECRET-2' }] };
    const named = gateway(runwayError(refusal(400, invalid), 'create', sent, 'text_to_video'));
    expect(named).toMatchObject({ status: 400, code: 'upstream_bad_request' });
    expect(named.message).toBe('Runway refused the request: the duration (5 seconds) is not one this model takes; the prompt is too large or too long.');
    expect(gateway(runwayError(refusal(400, { error: 'Validation of body failed', issues: [{ code: 'invalid_union', path: ['model'] }] }), 'create', sent, 'text_to_video')).message).toMatch(/no model "veo3.1" for this kind of request \(text_to_video\)/);
    expect(gateway(runwayError(refusal(400, { error: 'You do not have enough credits to run this task.' }), 'create', sent))).toMatchObject({ status: 503, message: expect.stringMatching(/lack of credits/) });
    expect(gateway(runwayError(refusal(400, { error: 'promptImage: Invalid data URI. SECRET' }), 'create', sent))).toMatchObject({ status: 400, message: expect.stringMatching(/could not use a reference image/) });
    expect(gateway(runwayError(refusal(400, 'SECRET plain'), 'create', sent)).message).toBe('Runway refused the request.');
    expect(gateway(runwayError(refusal(404, { error: 'Not found.' }), 'create', sent))).toMatchObject({ status: 503, message: expect.stringMatching(/base URL/) });
    expect(gateway(runwayError(refusal(401, { error: 'SECRET' }), 'create', sent))).toMatchObject({ status: 503, code: 'upstream_unavailable' });
    expect(gateway(runwayError(refusal(429, {}, { 'retry-after': '9' }), 'create', sent))).toMatchObject({ status: 429, headers: { 'retry-after': '9' } });
    for (const error of [invalid, { error: 'promptImage: Invalid data URI. SECRET' }]) expect(JSON.stringify(gateway(runwayError(refusal(400, error), 'create', sent)))).not.toContain('SECRET');
  });
});
