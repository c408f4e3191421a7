// Placeholders of workflows and request templates: typed when a value is exactly one, text inside
// a longer string, unknown names refused, and the size as ratios.
import { describe, expect, it } from 'vitest';
import { checkPlaceholders, fillTemplate, placeholdersIn, sizeRatios, TEMPLATE_PLACEHOLDERS, WORKFLOW_PLACEHOLDERS } from '../../electron/core/providers/templates/placeholders.js';
import { GatewayError } from '../../electron/core/errors.js';

describe('fillTemplate', () => {
  it('gives a value that is exactly a placeholder its type, and replaces one inside text as text', () => {
    const filled = fillTemplate(
      { w: '{{width}}', text: '{{prompt}}, at {{width}}x{{height}}', list: ['{{image_1}}', 2, null, true], nested: { seed: '{{seed}}' } },
      { width: 1280, height: 720, prompt: 'a fox', image_1: 'ref.png', seed: 7 },
    );
    expect(filled).toEqual({ w: 1280, text: 'a fox, at 1280x720', list: ['ref.png', 2, null, true], nested: { seed: 7 } });
  });

  it('fills a placeholder with spaces inside its braces as the check reads it, never leaving it as text', () => {
    const template = { w: '{{ width }}', text: '{{ prompt }}, at {{width }}x{{\theight}}', seed: '{{seed  }}' };
    const used = checkPlaceholders(template, WORKFLOW_PLACEHOLDERS, 'workflow');
    const filled = fillTemplate(template, { width: 1280, height: 720, prompt: 'a fox', seed: 7 });
    expect(filled).toEqual({ w: 1280, text: 'a fox, at 1280x720', seed: 7 });
    // Every name the check accepted was filled: nothing that looks like a placeholder is left.
    expect(used.sort()).toEqual(['height', 'prompt', 'seed', 'width']);
    expect(placeholdersIn(filled)).toEqual([]);
  });

  it('leaves the template as it was', () => {
    const template = { a: '{{prompt}}' };
    fillTemplate(template, { prompt: 'x' });
    expect(template).toEqual({ a: '{{prompt}}' });
  });

  it('a placeholder without a value is the caller\u2019s error, never sent unfilled', () => {
    expect(() => fillTemplate({ a: '{{image_2}}' }, { image_1: 'x' })).toThrow('{{image_2}}');
  });
});

describe('checkPlaceholders', () => {
  it('lists the placeholders used, each once', () => {
    expect(placeholdersIn({ a: '{{prompt}}', b: ['{{prompt}} {{seed}}'], c: { d: '{{ image_1 }}' } })).toEqual(['prompt', 'seed', 'image_1']);
  });

  it('refuses a name outside the known ones, naming it and the field', () => {
    let refusal: unknown;
    try {
      checkPlaceholders({ a: '{{prompt}}', b: '{{Prompt}}', c: '{{aspect_ratio}}' }, WORKFLOW_PLACEHOLDERS, 'workflow');
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(GatewayError);
    expect((refusal as GatewayError).param).toBe('workflow');
    expect((refusal as GatewayError).message).toContain('{{Prompt}}, {{aspect_ratio}}');
    expect(checkPlaceholders({ a: '{{aspect_ratio}}', b: '{{ratio}}' }, TEMPLATE_PLACEHOLDERS, 'template')).toEqual(['aspect_ratio', 'ratio']);
  });
});

describe('sizeRatios', () => {
  it.each([
    [1280, 720, '16:9', '1280:720'],
    [720, 1280, '9:16', '720:1280'],
    [1024, 1024, '1:1', '1024:1024'],
    [1536, 1024, '3:2', '1536:1024'],
    [854, 480, '427:240', '854:480'],
  ])('%ix%i -> %s and %s', (width, height, aspect, ratio) => {
    expect(sizeRatios(width, height)).toEqual({ aspect_ratio: aspect, ratio });
  });
});
