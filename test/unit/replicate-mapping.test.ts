// The replicate kind's pure parts: which endpoint an upstream model takes, how predictions and
// outputs are read, the templates (defaults, the owner's checked and filled), the refusals in
// gateway words, and where the key may go.
import { describe, expect, it } from 'vitest';
import type { ModelRecord } from '../../shared/api-types.js';
import { GatewayError } from '../../electron/core/errors.js';
import { apiRoot } from '../../electron/core/providers/replicate/replicate-admin.js';
import { replicateError } from '../../electron/core/providers/replicate/replicate-errors.js';
import { keyAllowed } from '../../electron/core/providers/replicate/replicate-files.js';
import { outputUrls, predictionBody, predictionOf, predictionRoute, progressOf } from '../../electron/core/providers/replicate/replicate-mapping.js';
import { checkTemplate, commonRatio, defaultImageInput, defaultVideoInput, fillInput } from '../../electron/core/providers/replicate/replicate-templates.js';
import { errorForStatus, UpstreamStatusError } from '../../electron/core/providers/upstream/upstream-errors.js';

const VERSION = '7762fd07cf82c948538e41f63f77d685e02b063e37e496e96eefd46c929f9bdc';

const record = (capabilities: Record<string, unknown>): ModelRecord => ({ id: 'rep/x', capabilities } as unknown as ModelRecord);
const statusError = (status: number, body: unknown) => new UpstreamStatusError(errorForStatus(status, null), status, null, JSON.stringify(body));

describe('upstream models', () => {
  it('owner/name: the official-model endpoint; owner/name:version and a bare version id: /predictions with the version', () => {
    expect(predictionRoute('black-forest-labs/flux-1.1-pro')).toEqual({ path: '/models/black-forest-labs/flux-1.1-pro/predictions', version: null });
    expect(predictionRoute(`stability-ai/sdxl:${VERSION}`)).toEqual({ path: '/predictions', version: VERSION });
    expect(predictionRoute(VERSION)).toEqual({ path: '/predictions', version: VERSION });
    expect(predictionBody({ path: '/predictions', version: VERSION }, { prompt: 'x' })).toEqual({ version: VERSION, input: { prompt: 'x' } });
    expect(predictionBody({ path: '/models/a/b/predictions', version: null }, { prompt: 'x' })).toEqual({ input: { prompt: 'x' } });
  });

  it.each(['flux-schnell', 'a/b/c', 'a/b:short', '../x/y', 'a/b:', ''])('%j is refused as the owner\u2019s misconfiguration (503)', (name) => {
    expect(() => predictionRoute(name)).toThrow(expect.objectContaining({ code: 'upstream_unavailable' }));
  });

  it('the API root is <base>/v1 whether or not the base URL names /v1', () => {
    expect(apiRoot('https://api.replicate.com')).toBe('https://api.replicate.com/v1');
    expect(apiRoot('https://api.replicate.com/v1/')).toBe('https://api.replicate.com/v1');
  });
});

describe('predictions and outputs', () => {
  it('reads the fields the gateway uses and refuses what breaks the protocol', () => {
    expect(predictionOf({ id: 'abc', status: 'processing', output: null, logs: 'x', data_removed: false })).toEqual({ id: 'abc', status: 'processing', output: null, logs: 'x', dataRemoved: false });
    expect(() => predictionOf({ status: 'succeeded' })).toThrow(/no id/);
    expect(() => predictionOf({ id: 'a b', status: 'succeeded' })).toThrow(/no id/);
    expect(() => predictionOf({ id: 'abc', status: 'done' })).toThrow(/unknown status/);
  });

  it('an output is a URL, an array of them, or an object of them; data: URLs count', () => {
    expect(outputUrls('https://replicate.delivery/x.png')).toEqual(['https://replicate.delivery/x.png']);
    expect(outputUrls(['https://a/1.png', 'https://a/2.png'])).toEqual(['https://a/1.png', 'https://a/2.png']);
    expect(outputUrls({ video: 'https://a/v.mp4', seed: 3 })).toEqual(['https://a/v.mp4']);
    expect(outputUrls('data:image/png;base64,AAAA')).toHaveLength(1);
    expect(outputUrls(['ftp://x', 42, null])).toEqual([]);
    expect(outputUrls(null)).toEqual([]);
  });

  it('progress is the last tqdm line of the logs', () => {
    expect(progressOf('Using seed: 1\n 10%|█         | 2/20 [00:01<00:09]\n 55%|█████     | 11/20 [00:05<00:04]\n')).toBe(55);
    expect(progressOf('nothing here')).toBeNull();
    expect(progressOf(null)).toBeNull();
  });
});

describe('templates', () => {
  const request = { prompt: 'a fox', width: 1280, height: 720, seed: 7, images: [] as string[] };

  it('the default image input: prompt, the reduced aspect ratio, a seed; an edit adds image_input and keeps the first reference\u2019s shape without a size', () => {
    expect(defaultImageInput(request, true)).toEqual({ prompt: 'a fox', aspect_ratio: '16:9', seed: 7 });
    expect(defaultImageInput({ ...request, images: ['data:a', 'data:b', 'data:c', 'data:d'] }, false)).toEqual({ prompt: 'a fox', aspect_ratio: 'match_input_image', seed: 7, image_input: ['data:a', 'data:b', 'data:c', 'data:d'] });
    expect(defaultImageInput({ ...request, images: ['data:a'] }, true).aspect_ratio).toBe('16:9');
  });

  it('the default inputs send a common aspect ratio: the size\u2019s own when it is one, else the nearest', () => {
    expect(commonRatio(1024, 1536)).toBe('2:3');
    expect(commonRatio(854, 480)).toBe('16:9');
    expect(commonRatio(1000, 700)).toBe('3:2');
    expect(commonRatio(2520, 1080)).toBe('21:9');
    expect(fillInput({ prompt: '{{prompt}}', aspect_ratio: '{{aspect_ratio}}' }, { ...request, width: 854, height: 480 }).aspect_ratio).toBe('427:240');
  });

  it('the default video input: prompt, duration, aspect ratio, and the first reference as image', () => {
    expect(defaultVideoInput({ ...request, seconds: 5 })).toEqual({ prompt: 'a fox', duration: 5, aspect_ratio: '16:9' });
    expect(defaultVideoInput({ ...request, seconds: 10, images: ['data:a'] })).toMatchObject({ duration: 10, image: 'data:a' });
  });

  it('an owner\u2019s template is filled with typed values; image placeholders without an image are left out with their key or array item', () => {
    const template = { prompt: 'style: {{prompt}}', size: '{{width}}x{{height}}', width: '{{width}}', seed: '{{seed}}', ratio: '{{ratio}}', aspect: '{{aspect_ratio}}', start: '{{image_1}}', refs: ['{{image_1}}', '{{image_2}}', 'fixed'], n: 1 };
    expect(fillInput(template, { ...request, images: ['data:a'] })).toEqual({ prompt: 'style: a fox', size: '1280x720', width: 1280, seed: 7, ratio: '1280:720', aspect: '16:9', start: 'data:a', refs: ['data:a', 'fixed'], n: 1 });
    expect(fillInput(template, request)).not.toHaveProperty('start');
    expect(fillInput({ prompt: '{{prompt}}', duration: '{{seconds}}' }, { ...request, seconds: 6 })).toEqual({ prompt: 'a fox', duration: 6 });
  });

  const image = record({ image_generation: true, image_edit: false });
  const edit = (max?: number) => record({ image_generation: false, image_edit: true, ...(max !== undefined ? { max_reference_images: max } : {}) });
  const video = (max: number) => record({ video_generation: true, max_reference_images: max });

  it('accepts templates that agree with their record', () => {
    expect(checkTemplate({ prompt: '{{prompt}}', aspect_ratio: '{{aspect_ratio}}' }, image)).toBeTruthy();
    expect(checkTemplate({ prompt: '{{prompt}}', input_image: '{{image_1}}' }, edit())).toBeTruthy();
    expect(checkTemplate({ prompt: '{{prompt}}', image_input: ['{{image_1}}', '{{image_2}}'] }, edit(2))).toBeTruthy();
    expect(checkTemplate({ prompt: '{{prompt}}', start_image: '{{image_1}}', duration: '{{seconds}}' }, video(1))).toBeTruthy();
    expect(checkTemplate({ prompt: '{{prompt}}', duration: '{{seconds}}' }, video(0))).toBeTruthy();
  });

  it.each([
    ['not an object', ['prompt'], image, /must be a JSON object/],
    ['the API page\u2019s {input: ...} wrapper', { input: { prompt: '{{prompt}}' } }, image, /inside "input"/],
    ['no prompt', { text: 'fixed' }, image, /no \{\{prompt\}\}/],
    ['a typo', { prompt: '{{prompt}}', seed: '{{ Seed }}' }, image, /\{\{Seed\}\}, which is not a placeholder/],
    ['a workflow placeholder', { prompt: '{{prompt}}', frames: '{{frames}}' }, image, /\{\{frames\}\}/],
    ['seconds on an image model', { prompt: '{{prompt}}', d: '{{seconds}}' }, image, /only video models/],
    ['references on a model that does not edit', { prompt: '{{prompt}}', image: '{{image_1}}' }, image, /allows none/],
    ['no references on a model that edits', { prompt: '{{prompt}}' }, edit(), /would be ignored/],
    ['fewer placeholders than references allowed', { prompt: '{{prompt}}', a: '{{image_1}}' }, edit(3), /allows 3/],
    ['a gap', { prompt: '{{prompt}}', a: '{{image_2}}' }, edit(2), /not \{\{image_1\}\}/],
    ['a video template with an image its record does not allow', { prompt: '{{prompt}}', image: '{{image_1}}' }, video(0), /allows none/],
  ])('refuses %s, naming the template', (_what, template, rec, message) => {
    try {
      checkTemplate(template, rec);
    } catch (error) {
      expect(error).toBeInstanceOf(GatewayError);
      expect((error as GatewayError).param).toBe('template');
      expect((error as GatewayError).message).toMatch(message);
      return;
    }
    throw new Error('accepted');
  });
});

describe('refusals in gateway words', () => {
  const sent = { prompt: 'x', aspect_ratio: '10:7', seed: 1 };

  it('a 422 names the inputs the gateway sent that Replicate refused, nothing Replicate wrote', () => {
    const error = replicateError(statusError(422, {
      title: 'Input validation failed', detail: 'secret-detail', status: 422,
      invalid_fields: [
        { type: 'enum', field: 'input.aspect_ratio', description: 'secret-description' },
        { type: 'required', field: 'input.start_image', description: 'start_image is required' },
        { type: 'weird', field: 'input.secret_field_name', description: 'x' },
      ],
    }), 'create', sent) as GatewayError;
    expect(error.code).toBe('upstream_bad_request');
    expect(error.message).toBe('Replicate refused the model\u2019s input: aspect_ratio (not one of the values it takes), an input the model requires is missing.');
    expect(error.message).not.toMatch(/secret/);
  });

  it('404 on a creation names the model; 401/402/5xx stay 503, 429 keeps its wait', () => {
    expect((replicateError(statusError(404, {}), 'create') as GatewayError).message).toMatch(/no such model or version/);
    expect((replicateError(statusError(404, {}), 'poll') as GatewayError).code).toBe('upstream_bad_request');
    expect((replicateError(statusError(413, {}), 'upload') as GatewayError).message).toMatch(/too large/);
    for (const status of [401, 402, 403, 500, 503]) expect((replicateError(statusError(status, {}), 'create') as GatewayError).code).toBe('upstream_unavailable');
    const limited = replicateError(new UpstreamStatusError(errorForStatus(429, '7'), 429, null, '{}'), 'create') as GatewayError;
    expect(limited.code).toBe('upstream_rate_limited');
    expect(limited.headers['retry-after']).toBe('7');
  });
});

describe('where the key goes', () => {
  it('to the API, replicate.delivery and its subdomains over https, the API\u2019s loopback port; nowhere else', () => {
    const api = 'https://api.replicate.com/v1';
    expect(keyAllowed('https://api.replicate.com/v1/files/abc', api)).toBe(true);
    expect(keyAllowed('https://replicate.delivery/xezq/out.png', api)).toBe(true);
    expect(keyAllowed('https://pbxt.replicate.delivery/out.png', api)).toBe(true);
    expect(keyAllowed('http://replicate.delivery/out.png', api)).toBe(false);
    expect(keyAllowed('https://replicate.delivery.evil.com/out.png', api)).toBe(false);
    expect(keyAllowed('https://evilreplicate.delivery/out.png', api)).toBe(false);
    expect(keyAllowed('https://cdn.example.com/out.png', api)).toBe(false);
    expect(keyAllowed('http://localhost:4100/delivery/x', 'http://127.0.0.1:4100/v1')).toBe(true);
    expect(keyAllowed('http://127.0.0.1:4101/delivery/x', 'http://127.0.0.1:4100/v1')).toBe(false);
    expect(keyAllowed('not a url', api)).toBe(false);
  });
});
