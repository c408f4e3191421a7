// The gemini kind's request templates: the default bodies, the owner's filled (ratios snapped to
// the Gemini API's names, images placed as each field takes them, missing ones left out with
// their part), and the check when a model is put.
import { describe, expect, it } from 'vitest';
import type { ModelRecord } from '../../shared/api-types.js';
import { isGatewayError } from '../../electron/core/errors.js';
import { checkTemplate, DEFAULT_IMAGE_TEMPLATE, DEFAULT_VIDEO_TEMPLATE, defaultImageBody, defaultVideoBody, fillBody, nearestRatio, type TemplateRequest } from '../../electron/core/providers/gemini/gemini-templates.js';

const png = Buffer.from('89504e470d0a1a0a', 'hex');
const jpeg = Buffer.from('ffd8ffe0', 'hex');
const request = (extra: Partial<TemplateRequest> = {}): TemplateRequest => ({ prompt: 'a red kite', width: 1344, height: 768, seed: 7, images: [], ...extra });

function record(capabilities: ModelRecord['capabilities']): ModelRecord {
  return { capabilities } as ModelRecord;
}

function refusal(template: unknown, rec: ModelRecord): string {
  try {
    checkTemplate(template, rec);
  } catch (error) {
    if (isGatewayError(error)) {
      expect(error.param).toBe('template');
      return error.message;
    }
    throw error;
  }
  throw new Error('the template was accepted');
}

describe('aspect ratios', () => {
  it.each([
    [1024, 1024, '1:1'], [1344, 768, '16:9'], [768, 1344, '9:16'], [864, 1184, '3:4'], [1184, 864, '4:3'], [896, 1152, '4:5'],
    [1152, 896, '5:4'], [832, 1248, '2:3'], [1248, 832, '3:2'], [1536, 672, '21:9'], [1280, 720, '16:9'], [1920, 1080, '16:9'], [720, 1280, '9:16'],
  ])('%ix%i -> %s (the models\u2019 own sizes map to their names)', (w, h, ratio) => {
    expect(nearestRatio(w, h)).toBe(ratio);
  });
});

describe('default bodies', () => {
  it('an image: the prompt, an image answer, the aspect ratio', () => {
    expect(defaultImageBody(request(), true)).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'a red kite' }] }],
      generationConfig: { responseModalities: ['IMAGE'], imageConfig: { aspectRatio: '16:9' } },
    });
  });

  it('an edit: every reference as inlineData after the prompt (five: more than a template takes); without a size no aspect ratio', () => {
    const images = Array.from({ length: 5 }, (_, i) => ({ mime: i % 2 ? 'image/jpeg' : 'image/png', bytes: i % 2 ? jpeg : png }));
    const body = defaultImageBody(request({ images }), false);
    expect(body.generationConfig).toEqual({ responseModalities: ['IMAGE'] });
    const parts = (body.contents as { parts: unknown[] }[])[0]!.parts;
    expect(parts).toHaveLength(6);
    expect(parts[1]).toEqual({ inlineData: { mimeType: 'image/png', data: png.toString('base64') } });
    expect(parts[2]).toEqual({ inlineData: { mimeType: 'image/jpeg', data: jpeg.toString('base64') } });
    // With a size, the ratio is asked.
    expect(defaultImageBody(request({ images }), true).generationConfig).toMatchObject({ imageConfig: { aspectRatio: '16:9' } });
  });

  it('a video: prompt, the first reference as Veo\u2019s image (bytesBase64Encoded), ratio and duration; 1080p from 1080 lines', () => {
    expect(defaultVideoBody(request({ width: 1280, height: 720, seconds: 4 }))).toEqual({ instances: [{ prompt: 'a red kite' }], parameters: { aspectRatio: '16:9', durationSeconds: 4 } });
    expect(defaultVideoBody(request({ width: 1080, height: 1920, seconds: 8, images: [{ mime: 'image/jpeg', bytes: jpeg }] }))).toEqual({
      instances: [{ prompt: 'a red kite', image: { bytesBase64Encoded: jpeg.toString('base64'), mimeType: 'image/jpeg' } }],
      parameters: { aspectRatio: '9:16', durationSeconds: 8, resolution: '1080p' },
    });
  });

  it('the documented default templates fill to the built-in bodies', () => {
    const one = { mime: 'image/png', bytes: png };
    expect(fillBody(DEFAULT_IMAGE_TEMPLATE, request())).toEqual(defaultImageBody(request(), true));
    expect(fillBody(DEFAULT_IMAGE_TEMPLATE, request({ images: [one] }))).toEqual(defaultImageBody(request({ images: [one] }), true));
    const video = request({ width: 1280, height: 720, seconds: 6, images: [one] });
    expect(fillBody(DEFAULT_VIDEO_TEMPLATE, video)).toEqual(defaultVideoBody(video));
    expect(fillBody(DEFAULT_VIDEO_TEMPLATE, { ...video, images: [] })).toEqual(defaultVideoBody({ ...video, images: [] }));
  });
});

describe('an owner\u2019s template filled', () => {
  it('typed values, the exact ratio, images at each field as the API takes them, missing ones left out with their part or item', () => {
    const template = {
      contents: [{ parts: [{ text: 'Style: {{prompt}} ({{width}}x{{height}}, {{ratio}})' }, { inlineData: '{{image_1}}' }, { inlineData: '{{image_2}}' }] }],
      generationConfig: { seed: '{{seed}}', imageConfig: { aspectRatio: '{{aspect_ratio}}', imageSize: '2K' } },
    };
    expect(fillBody(template, request({ images: [{ mime: 'image/jpeg', bytes: jpeg }] }))).toEqual({
      contents: [{ parts: [{ text: 'Style: a red kite (1344x768, 1344:768)' }, { inlineData: { mimeType: 'image/jpeg', data: jpeg.toString('base64') } }] }],
      generationConfig: { seed: 7, imageConfig: { aspectRatio: '16:9', imageSize: '2K' } },
    });
    const veo = {
      instances: [{ prompt: '{{prompt}}', image: '{{image_1}}', referenceImages: [{ image: '{{image_2}}', referenceType: 'asset' }, { image: '{{image_3}}', referenceType: 'asset' }] }],
      parameters: { durationSeconds: '{{seconds}}', aspectRatio: '{{aspect_ratio}}' },
    };
    const images = [png, jpeg].map((bytes, i) => ({ mime: i ? 'image/jpeg' : 'image/png', bytes }));
    expect(fillBody(veo, request({ width: 1280, height: 720, seconds: 8, images }))).toEqual({
      instances: [{
        prompt: 'a red kite',
        image: { bytesBase64Encoded: png.toString('base64'), mimeType: 'image/png' },
        referenceImages: [{ image: { bytesBase64Encoded: jpeg.toString('base64'), mimeType: 'image/jpeg' }, referenceType: 'asset' }],
      }],
      parameters: { durationSeconds: 8, aspectRatio: '16:9' },
    });
    expect(fillBody(veo, request({ seconds: 4 })).instances).toEqual([{ prompt: 'a red kite', referenceImages: [] }]);
  });
});

describe('the check when a model is put', () => {
  const image = record({ image_generation: true, image_edit: true, max_reference_images: 2 });
  const video = record({ video_generation: true, max_reference_images: 1 });
  const parts = (...extra: unknown[]) => ({ contents: [{ parts: [{ text: '{{prompt}}' }, ...extra] }] });

  it('accepts the documented templates and an owner\u2019s with its references', () => {
    expect(() => checkTemplate(parts({ inlineData: '{{image_1}}' }, { inlineData: '{{image_2}}' }), image)).not.toThrow();
    expect(() => checkTemplate(DEFAULT_VIDEO_TEMPLATE, video)).not.toThrow();
    expect(() => checkTemplate(DEFAULT_IMAGE_TEMPLATE, record({ image_generation: true, image_edit: true, max_reference_images: 3 }))).not.toThrow();
  });

  it('takes an image placeholder with spaces inside its braces as the whole value, and fills it as the API takes it', () => {
    const spaced = parts({ inlineData: '{{ image_1 }}' }, { inlineData: '{{image_2 }}' });
    expect(() => checkTemplate(spaced, image)).not.toThrow();
    const body = fillBody(spaced, request({ images: [{ mime: 'image/png', bytes: png }] }));
    expect(body.contents).toEqual([{ parts: [{ text: 'a red kite' }, { inlineData: { mimeType: 'image/png', data: png.toString('base64') } }] }]);
  });

  it.each([
    ['not an object', [], /JSON object/],
    ['no contents on an image model', { prompt: '{{prompt}}' }, /generateContent body/],
    ['Imagen\u2019s :predict body', { instances: [{ prompt: '{{prompt}}' }] }, /:predict body \(Imagen\)/],
    ['no {{prompt}}', { contents: [{ parts: [{ text: 'x' }] }] }, /no \{\{prompt\}\}/],
    ['a typo', { contents: [{ parts: [{ text: '{{Prompt}}' }] }] }, /\{\{Prompt\}\}, which is not a placeholder/],
    ['{{seconds}} on an image model', parts({ text: '{{seconds}}' }), /only video models fill/],
    ['an image inside text', parts({ text: 'see {{image_1}}' }, { inlineData: '{{image_2}}' }), /\{\{image_1\}\} must be the whole value of a part.s "inlineData"/],
    ['an image placed as data', parts({ inlineData: { mimeType: 'image/png', data: '{{image_1}}' } }), /must be the whole value/],
    ['a gap in the numbering', parts({ inlineData: '{{image_2}}' }), /uses \{\{image_2\}\} but not \{\{image_1\}\}/],
    ['fewer places than references allowed', parts({ inlineData: '{{image_1}}' }), /allows 2 reference images, but the template places only 1.*\{\{image_2\}\}/],
  ])('refuses %s', (_name, template, message) => {
    expect(refusal(template, image)).toMatch(message);
  });

  it('refuses images on a record that takes none, more references than placeholders exist, and a video template without instances', () => {
    expect(refusal(parts({ inlineData: '{{image_1}}' }), record({ image_generation: true }))).toMatch(/the record allows none/);
    expect(refusal(parts(), record({ image_edit: true, max_reference_images: 5 }))).toMatch(/at most 3/);
    expect(refusal({ contents: [] }, video)).toMatch(/predictLongRunning body/);
    expect(refusal({ instances: [{ prompt: '{{prompt}}' }] }, video)).toMatch(/allows 1 reference images, but the template places only 0/);
    expect(refusal({ instances: [{ prompt: '{{prompt}}', video: '{{image_1}}' }] }, video)).toMatch(/Veo image field/);
  });
});
