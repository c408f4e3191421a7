// The comfyui kind's workflows without an engine: the built-in templates, the check of an
// owner's workflow when a model is put, the filling of placeholders per request, the reading of
// a history entry, the engine's refusals in gateway words, and the admin's name and combo reading.
import { describe, expect, it } from 'vitest';
import type { ModelRecord } from '../../shared/api-types.js';
import { GatewayError } from '../../electron/core/errors.js';
import { engineImageRecord } from '../../electron/core/providers/engine-records.js';
import type { Workflow } from '../../electron/core/providers/templates/placeholders.js';
import { comboOptions, modelName } from '../../electron/core/providers/comfyui/comfyui-admin.js';
import { checkWorkflow, isImageOutput } from '../../electron/core/providers/comfyui/comfyui-checks.js';
import { cleanText, executionFailure, refusedPrompt } from '../../electron/core/providers/comfyui/comfyui-errors.js';
import { checkReferenceCount, fillWorkflow, imageOutput, outcomeOf, videoOutput } from '../../electron/core/providers/comfyui/comfyui-mapping.js';
import { PromptProgress } from '../../electron/core/providers/comfyui/comfyui-progress.js';
import { notMp4Message } from '../../electron/core/providers/comfyui/comfyui-video.js';
import { checkContainer } from '../../electron/core/providers/upstream/video-file.js';
import { BUILT_IN_MAX_REFERENCES, EDIT_DENOISE, editWorkflow, textToImageWorkflow, withCheckpoint } from '../../electron/core/providers/comfyui/comfyui-workflow.js';

const discovered = engineImageRecord({ upstreamModel: 'sd15.safetensors', name: 'sd15', maxReferenceImages: BUILT_IN_MAX_REFERENCES }, 'comfy/sd15', 'comfy', 0);

function record(capabilities: ModelRecord['capabilities']): ModelRecord {
  return { ...discovered, capabilities: { supported_sizes: ['512x512'], ...capabilities } };
}
const generationRecord = record({ image_generation: true });
const editRecord = (max: number) => record({ image_edit: true, max_reference_images: max });
const videoRecord = (caps: ModelRecord['capabilities'] = {}) => record({ video_generation: true, supported_seconds: [2], ...caps });

type Node = { class_type: string; inputs: Record<string, unknown> };
const nodes = (workflow: Workflow) => Object.entries(workflow as Record<string, Node>);
const byClass = (workflow: Workflow, classType: string) => nodes(workflow).filter(([, node]) => node.class_type === classType);

function refusal(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('accepted');
}

/** A minimal owner workflow: a prompt, a latent, and an output of the given class (plus extra nodes). */
function ownerWorkflow(output = 'SaveImage', extra: Record<string, Node> = {}, text = '{{prompt}}'): Workflow {
  return {
    '1': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'x.safetensors' } },
    '2': { class_type: 'CLIPTextEncode', inputs: { text, clip: ['1', 1] } },
    '3': { class_type: 'EmptyLatentImage', inputs: { width: '{{width}}', height: '{{height}}', batch_size: 1 } },
    '4': { class_type: 'KSampler', inputs: { seed: '{{seed}}', model: ['1', 0], positive: ['2', 0], negative: ['2', 0], latent_image: ['3', 0] } },
    '5': { class_type: 'VAEDecode', inputs: { samples: ['4', 0], vae: ['1', 2] } },
    '9': { class_type: output, inputs: { images: ['5', 0] } },
    ...extra,
  } as unknown as Workflow;
}

describe('built-in workflows', () => {
  it('text-to-image: checkpoint, prompt and empty negative, latent of the requested size, KSampler, decode, save', () => {
    const filled = withCheckpoint(fillWorkflow(textToImageWorkflow(), { prompt: 'a fox', width: 768, height: 512, images: [], imageParam: 'image' }), 'sd15.safetensors');
    expect(byClass(filled, 'CheckpointLoaderSimple')[0]![1].inputs.ckpt_name).toBe('sd15.safetensors');
    expect(byClass(filled, 'CLIPTextEncode').map(([, n]) => n.inputs.text).sort()).toEqual(['', 'a fox']);
    expect(byClass(filled, 'EmptyLatentImage')[0]![1].inputs).toMatchObject({ width: 768, height: 512, batch_size: 1 });
    const sampler = byClass(filled, 'KSampler')[0]![1].inputs;
    expect(sampler).toMatchObject({ steps: 20, cfg: 7, sampler_name: 'euler', scheduler: 'normal', denoise: 1 });
    expect(Number.isInteger(sampler.seed)).toBe(true);
    expect(byClass(filled, 'VAEDecode')).toHaveLength(1);
    expect(byClass(filled, 'SaveImage')).toHaveLength(1);
    // The discovered record passes the same check as an owner's workflow would (for generation).
    expect(() => checkWorkflow(textToImageWorkflow(), generationRecord)).not.toThrow();
  });

  it('a checkpoint name with braces is set after filling, never read as a placeholder', () => {
    const filled = withCheckpoint(fillWorkflow(textToImageWorkflow(), { prompt: 'p', width: 512, height: 512, images: [], imageParam: 'image' }), '{{odd}}.ckpt');
    expect(byClass(filled, 'CheckpointLoaderSimple')[0]![1].inputs.ckpt_name).toBe('{{odd}}.ckpt');
  });

  it.each([1, 2, 3])('edit with %i reference(s): each loaded, scaled and encoded, blended into one latent, sampled below denoise 1', (count) => {
    const template = editWorkflow(count);
    const names = Array.from({ length: count }, (_, i) => `ref-${i + 1}.png`);
    const filled = fillWorkflow(template, { prompt: 'make it blue', width: 512, height: 768, images: names, imageParam: 'image' });
    expect(byClass(filled, 'LoadImage').map(([, n]) => n.inputs.image)).toEqual(names);
    expect(byClass(filled, 'ImageScale').every(([, n]) => n.inputs.width === 512 && n.inputs.height === 768)).toBe(true);
    expect(byClass(filled, 'VAEEncode')).toHaveLength(count);
    expect(byClass(filled, 'LatentBlend')).toHaveLength(count - 1);
    expect(byClass(filled, 'EmptyLatentImage')).toHaveLength(0);
    const sampler = byClass(filled, 'KSampler')[0]![1].inputs;
    expect(sampler.denoise).toBe(EDIT_DENOISE);
    expect(EDIT_DENOISE).toBeLessThan(1);
    // The sampler starts from the last blend (or the one encoded reference): every reference reaches it.
    const reaches = (id: string, seen = new Set<string>()): Set<string> => {
      const node = (filled as Record<string, Node>)[id]!;
      for (const value of Object.values(node.inputs)) {
        if (Array.isArray(value) && typeof value[0] === 'string' && !seen.has(value[0])) {
          seen.add(value[0]);
          reaches(value[0], seen);
        }
      }
      return seen;
    };
    const upstream = reaches(byClass(filled, 'SaveImage')[0]![0]);
    for (const [id] of byClass(filled, 'LoadImage')) expect(upstream.has(id)).toBe(true);
    // The blend weights give each reference an equal share of the latent.
    const weights = byClass(filled, 'LatentBlend').map(([, n]) => n.inputs.blend_factor);
    expect(weights).toEqual([0.5, 0.67].slice(0, count - 1));
  });

  it('discovered records allow as many references as the built-in edit takes', () => {
    expect(BUILT_IN_MAX_REFERENCES).toBe(3);
    expect(discovered.capabilities.max_reference_images).toBe(BUILT_IN_MAX_REFERENCES);
    expect(byClass(editWorkflow(5), 'LoadImage')).toHaveLength(BUILT_IN_MAX_REFERENCES);
  });
});

describe('checkWorkflow', () => {
  it('accepts an API-format workflow with {{prompt}} and an image output for an image model', () => {
    expect(checkWorkflow(ownerWorkflow(), generationRecord)).toBeTypeOf('object');
    expect(checkWorkflow(ownerWorkflow('PreviewImage'), generationRecord)).toBeTypeOf('object');
  });

  it.each([
    ['not an object', [1, 2], /JSON object of nodes/],
    ['null', null, /JSON object of nodes/],
    ['the UI format', { nodes: [], links: [], version: 0.4 }, /UI format.*Export \(API\)/],
    ['no nodes', {}, /no nodes/],
    ['a node that is not an object', { '1': 'x' }, /Node 1 .*not an object/],
    ['a node without class_type', { '1': { inputs: {} } }, /Node 1 of the workflow has no class_type/],
    ['a node without inputs', { '1': { class_type: 'SaveImage' } }, /Node 1 \(SaveImage\) has no inputs/],
  ])('refuses %s, naming what is wrong (param workflow)', (_name, workflow, message) => {
    const error = refusal(() => checkWorkflow(workflow, generationRecord));
    expect({ code: error.code, param: error.param }).toEqual({ code: 'invalid_request', param: 'workflow' });
    expect(error.message).toMatch(message);
  });

  it('refuses a link to a node that is not there, naming the node and input', () => {
    const workflow = ownerWorkflow('SaveImage', { '9': { class_type: 'SaveImage', inputs: { images: ['42', 0] } } });
    expect(refusal(() => checkWorkflow(workflow, generationRecord)).message).toBe('Node 9 (SaveImage) input "images" is linked to node 42, which is not in the workflow.');
  });

  it('refuses unknown placeholders (typos) and a workflow without {{prompt}}', () => {
    expect(refusal(() => checkWorkflow(ownerWorkflow('SaveImage', {}, '{{Prompt}}'), generationRecord)).message).toMatch(/\{\{Prompt\}\}, which is not a placeholder/);
    expect(refusal(() => checkWorkflow(ownerWorkflow('SaveImage', {}, 'a fixed text'), generationRecord)).message).toMatch(/no \{\{prompt\}\}/);
    // A placeholder inside a longer string counts.
    expect(() => checkWorkflow(ownerWorkflow('SaveImage', {}, 'masterpiece, {{prompt}}'), generationRecord)).not.toThrow();
  });

  it('needs an output node of the model\u2019s kind', () => {
    expect(refusal(() => checkWorkflow(ownerWorkflow('SomeCustomNode'), generationRecord)).message).toBe(
      'The workflow has no output node the gateway can read for an image model; add one of SaveImage, PreviewImage, SaveAnimatedWEBP, SaveAnimatedPNG (or a custom output node with Save or Preview in its class name).',
    );
    expect(refusal(() => checkWorkflow(ownerWorkflow('SaveImage'), videoRecord())).message).toMatch(/video model; add one of SaveVideo, SaveWEBM, VHS_VideoCombine/);
    for (const output of ['SaveVideo', 'SaveWEBM', 'VHS_VideoCombine']) expect(() => checkWorkflow(ownerWorkflow(output), videoRecord())).not.toThrow();
    expect(refusal(() => checkWorkflow(ownerWorkflow('SaveVideo'), generationRecord)).message).toMatch(/image model/);
  });

  it('takes a custom image output node by its name, but not one saving something else or leaving nothing in /history', () => {
    for (const output of ['Image Save', 'VHS_SaveImage', 'SaveImageExtended', 'easy imageSave', 'PreviewBridge', 'Image Preview']) {
      expect(isImageOutput(output)).toBe(true);
      expect(() => checkWorkflow(ownerWorkflow(output), generationRecord)).not.toThrow();
    }
    for (const output of ['SaveAudio', 'SaveLatent', 'PreviewAny', 'Save Text File', 'CheckpointSave', 'SaveVideo', 'SaveWEBM', 'SaveImageWebsocket', 'KSampler']) {
      expect(isImageOutput(output)).toBe(false);
    }
    expect(refusal(() => checkWorkflow(ownerWorkflow('SaveImageWebsocket'), generationRecord)).message).toMatch(/only output is SaveImageWebsocket, which sends its image over the websocket .* use SaveImage or PreviewImage instead/);
    // Beside a readable output it does no harm: the image is read from the other.
    expect(() => checkWorkflow(ownerWorkflow('SaveImageWebsocket', { p: { class_type: 'PreviewImage', inputs: { images: ['5', 0] } } }), generationRecord)).not.toThrow();
    // A video model still needs one of the video outputs the gateway knows how to read.
    expect(refusal(() => checkWorkflow(ownerWorkflow('Image Save'), videoRecord())).message).toMatch(/video model; add one of SaveVideo/);
  });

  it('an image model\u2019s record must allow the references its workflow takes, and nothing more is asked of it', () => {
    const edit = (count: number) => {
      const extra: Record<string, Node> = {};
      for (let i = 1; i <= count; i++) extra[`l${i}`] = { class_type: 'LoadImage', inputs: { image: `{{image_${i}}}` } };
      return ownerWorkflow('SaveImage', extra);
    };
    expect(() => checkWorkflow(edit(2), editRecord(2))).not.toThrow();
    expect(() => checkWorkflow(edit(2), editRecord(3))).not.toThrow();
    // The discovered record (generation and edits, 3 references) serves a workflow of either kind.
    for (const workflow of [ownerWorkflow(), edit(1), edit(3)]) expect(() => checkWorkflow(workflow, discovered)).not.toThrow();
    expect(() => checkWorkflow(edit(1), record({ image_generation: true, image_edit: true, max_reference_images: 1 }))).not.toThrow();
    expect(() => checkWorkflow(ownerWorkflow(), editRecord(1))).not.toThrow();
    expect(refusal(() => checkWorkflow(edit(3), editRecord(2))).message).toBe(
      'The workflow takes 3 reference images ({{image_1}}..{{image_3}}), but the record allows 2; set capabilities.max_reference_images to at least 3.',
    );
    // An edit with no max allows 1 (the catalog's default).
    expect(refusal(() => checkWorkflow(edit(2), record({ image_edit: true }))).message).toMatch(/allows 1; set capabilities.max_reference_images to at least 2/);
    expect(refusal(() => checkWorkflow(edit(1), generationRecord)).message).toBe(
      'The workflow takes 1 reference image ({{image_1}}), but the record allows none; set capabilities.image_edit to true and max_reference_images to at least 1.',
    );
    const gap = ownerWorkflow('SaveImage', { l2: { class_type: 'LoadImage', inputs: { image: '{{image_2}}' } } });
    expect(refusal(() => checkWorkflow(gap, editRecord(2))).message).toMatch(/uses \{\{image_2\}\} but not \{\{image_1\}\}/);
    expect(refusal(() => checkWorkflow(ownerWorkflow('SaveImage', { f: { class_type: 'X', inputs: { n: '{{frames}}' } } }), generationRecord)).message).toMatch(/\{\{frames\}\}, which only video models fill/);
  });

  it('a video model\u2019s record must allow the references its workflow takes, and nothing more is asked of it', () => {
    const refs = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`l${i + 1}`, { class_type: 'LoadImage', inputs: { image: `{{image_${i + 1}}}` } }]));
    const i2v = (count: number) => ownerWorkflow('SaveVideo', { ...refs(count), f: { class_type: 'X', inputs: { length: '{{frames}}', fps: '{{fps}}' } } });
    expect(() => checkWorkflow(i2v(1), videoRecord({ requires_reference_image: true, max_reference_images: 1 }))).not.toThrow();
    // A reference need not be required (a text-to-video request is refused per request), nor refused when the workflow loads none.
    expect(() => checkWorkflow(i2v(1), videoRecord({ max_reference_images: 1 }))).not.toThrow();
    expect(() => checkWorkflow(i2v(3), videoRecord({ max_reference_images: 3 }))).not.toThrow();
    expect(() => checkWorkflow(ownerWorkflow('SaveVideo'), videoRecord({ max_reference_images: 1 }))).not.toThrow();
    expect(() => checkWorkflow(ownerWorkflow('SaveVideo'), videoRecord({ requires_reference_image: true, max_reference_images: 3 }))).not.toThrow();
    expect(refusal(() => checkWorkflow(i2v(1), videoRecord({ requires_reference_image: true }))).message).toBe(
      'The workflow takes 1 reference image ({{image_1}}), but the record allows 0; set capabilities.max_reference_images to at least 1.',
    );
    expect(refusal(() => checkWorkflow(i2v(2), videoRecord({ max_reference_images: 1 }))).message).toMatch(/takes 2 reference images .* allows 1; set capabilities.max_reference_images to at least 2/);
  });
});

describe('filling per request', () => {
  const twoRefs = ownerWorkflow('SaveImage', {
    l1: { class_type: 'LoadImage', inputs: { image: '{{image_1}}' } },
    l2: { class_type: 'LoadImage', inputs: { image: '{{image_2}}' } },
  });

  it('types exact placeholders, replaces inner ones as text, and draws a fresh seed each time', () => {
    const request = { prompt: 'a fox', width: 640, height: 448, images: ['a.png', 'b.png'], imageParam: 'image' };
    const workflow = { ...twoRefs, t: { class_type: 'X', inputs: { label: '{{width}}x{{height}} {{prompt}}' } } } as Workflow;
    const one = fillWorkflow(workflow, request) as Record<string, Node>;
    expect(one['3']!.inputs).toMatchObject({ width: 640, height: 448 });
    expect(one.l1!.inputs.image).toBe('a.png');
    expect(one.l2!.inputs.image).toBe('b.png');
    expect(one.t!.inputs.label).toBe('640x448 a fox');
    const seeds = new Set(Array.from({ length: 8 }, () => (fillWorkflow(workflow, request) as Record<string, Node>)['4']!.inputs.seed));
    expect(seeds.size).toBeGreaterThan(1);
  });

  it('fills {{ prompt }} with spaces inside its braces like {{prompt}}: the check accepts it, so the engine never gets it as text', () => {
    const workflow = ownerWorkflow('SaveImage', {}, 'masterpiece, {{ prompt }}');
    expect(() => checkWorkflow(workflow, generationRecord)).not.toThrow();
    const filled = fillWorkflow({ ...workflow, l: { class_type: 'X', inputs: { w: '{{ width }}' } } } as Workflow, { prompt: 'a fox', width: 640, height: 448, images: [], imageParam: 'image' }) as Record<string, Node>;
    expect(filled['2']!.inputs.text).toBe('masterpiece, a fox');
    expect(filled.l!.inputs.w).toBe(640);
  });

  it('fills a video\u2019s {{seconds}}, {{fps}} and {{frames}} = seconds x fps', () => {
    const workflow = ownerWorkflow('SaveVideo', { f: { class_type: 'X', inputs: { s: '{{seconds}}', fps: '{{fps}}', length: '{{frames}}' } } });
    const filled = fillWorkflow(workflow, { prompt: 'p', width: 512, height: 512, images: [], video: { seconds: 3, fps: 16 }, imageParam: 'input_reference' }) as Record<string, Node>;
    expect(filled.f!.inputs).toEqual({ s: 3, fps: 16, length: 48 });
  });

  it('refuses a request with fewer (or more) references than the workflow takes, with a 400 on the image field naming what is missing', () => {
    const fewer = refusal(() => fillWorkflow(twoRefs, { prompt: 'p', width: 512, height: 512, images: ['a.png'], imageParam: 'image' }));
    expect({ code: fewer.code, status: fewer.status, param: fewer.param }).toEqual({ code: 'invalid_request', status: 400, param: 'image' });
    expect(fewer.message).toBe("This model's workflow takes 2 reference images; only 1 was sent, so nothing fills {{image_2}}.");
    expect(refusal(() => checkReferenceCount(twoRefs, 0, 'image', (missing) => `send ${missing}`)).message).toBe(
      "This model's workflow takes 2 reference images; none was sent, so nothing fills {{image_1}}, {{image_2}}: send 2.",
    );
    expect(refusal(() => checkReferenceCount(twoRefs, 3, 'image')).message).toBe("This model's workflow takes only 2 reference images; 3 were sent.");
    const ignored = refusal(() => checkReferenceCount(ownerWorkflow(), 1, 'input_reference'));
    expect({ param: ignored.param, message: ignored.message }).toEqual({
      param: 'input_reference',
      message: "This model's workflow takes no reference image (it has no {{image_1}}); 1 was sent.",
    });
  });
});

describe('reading a history entry', () => {
  it('finds the saved image, preferring a saved still over a preview', () => {
    const outputs = {
      '12': { images: [{ filename: 'p_temp_00001_.png', subfolder: '', type: 'temp' }] },
      '9': { images: [{ filename: 'mgw_00001_.png', subfolder: '', type: 'output' }] },
    };
    expect(imageOutput(outputs)).toEqual({ filename: 'mgw_00001_.png', subfolder: '', type: 'output' });
    expect(imageOutput({})).toBeNull();
  });

  it('reads the image from whichever output node reported it, a custom one too (its entry is keyed by node id, whatever its class)', () => {
    // WAS "Image Save" reports {images: [...]} like SaveImage, under a subfolder of its own.
    expect(imageOutput({ '31': { images: [{ filename: 'portrait_00007.webp', subfolder: 'owner/2026', type: 'output' }] } })).toEqual({ filename: 'portrait_00007.webp', subfolder: 'owner/2026', type: 'output' });
    // A node reporting no images (SaveImageWebsocket's {}) beside one that does.
    expect(imageOutput({ '40': {}, '41': { images: [{ filename: 'x_temp_00001_.png', subfolder: '', type: 'temp' }] } })?.filename).toBe('x_temp_00001_.png');
  });

  it('finds the video under SaveVideo/SaveWEBM (images + animated) or VHS (gifs), an .mp4 first', () => {
    expect(videoOutput({ '9': { images: [{ filename: 'v_00001_.mp4', subfolder: 'video', type: 'output' }], animated: [true] } })).toEqual({ filename: 'v_00001_.mp4', subfolder: 'video', type: 'output' });
    expect(videoOutput({ '9': { gifs: [{ filename: 'AnimateDiff_00001.mp4', subfolder: '', type: 'output', format: 'video/h264-mp4', frame_rate: 8 }] } })?.filename).toBe('AnimateDiff_00001.mp4');
    expect(videoOutput({ a: { images: [{ filename: 'w.webm', subfolder: '', type: 'output' }], animated: [true] }, b: { gifs: [{ filename: 'x.mp4', subfolder: '', type: 'output' }] } })?.filename).toBe('x.mp4');
    expect(videoOutput({ a: { images: [{ filename: 'still.png', subfolder: '', type: 'output' }] } })).toBeNull();
  });

  it('reads a failure from the status messages: the node type and exception type, never the traceback', () => {
    const entry = {
      outputs: {},
      status: {
        status_str: 'error',
        completed: false,
        messages: [
          ['execution_start', { prompt_id: 'p' }],
          ['execution_error', { prompt_id: 'p', node_id: '3', node_type: 'KSampler', exception_type: 'torch.OutOfMemoryError', exception_message: 'CUDA out of memory. Tried to allocate 2 GiB', traceback: ['  File "x.py"\n'] }],
        ],
      },
    };
    expect(outcomeOf(entry)).toEqual({ state: 'failed', message: 'ComfyUI could not run the workflow: node 3 (KSampler) failed with torch.OutOfMemoryError.' });
    expect(outcomeOf({ outputs: {}, status: { status_str: 'error', messages: [['execution_interrupted', { prompt_id: 'p', node_id: '3', node_type: 'KSampler' }]] } })).toMatchObject({ state: 'failed', message: expect.stringMatching(/interrupted/) });
    expect(outcomeOf({ outputs: { '9': {} }, status: { status_str: 'success', completed: true, messages: [] } })).toEqual({ state: 'success', outputs: { '9': {} } });
  });
});

describe('progress across samplers', () => {
  it('splits the bar between the samplers, skips cached ones, never goes back, ends at 100', () => {
    const workflow = ownerWorkflow('SaveImage', { s2: { class_type: 'KSamplerAdvanced', inputs: {} }, sel: { class_type: 'KSamplerSelect', inputs: {} } });
    const progress = new PromptProgress(workflow);
    const event = (node: string, value: number, max: number) => ({ type: 'progress', data: { prompt_id: 'p', node, value, max } });
    expect(progress.feed(event('4', 10, 20))).toBe(true);
    expect(progress.percent).toBe(25);
    progress.feed(event('4', 20, 20));
    progress.feed(event('s2', 5, 10));
    expect(progress.percent).toBe(75);
    expect(progress.feed(event('4', 1, 20))).toBe(false);
    expect(progress.percent).toBe(75);
    progress.feed(event('s2', 10, 10));
    expect(progress.percent).toBe(99);
    progress.feed({ type: 'execution_success', data: { prompt_id: 'p' } });
    expect(progress.percent).toBe(100);
    const cached = new PromptProgress(workflow);
    cached.feed({ type: 'execution_cached', data: { prompt_id: 'p', nodes: ['4'] } });
    cached.feed(event('s2', 5, 10));
    expect(cached.percent).toBe(50);
  });
});

describe('engine refusals in gateway words', () => {
  it('a 400 with node_errors names the node, its class and input, and the short reason', () => {
    const body = {
      error: { type: 'prompt_outputs_failed_validation', message: 'Prompt outputs failed validation', details: 'secret\ntraceback', extra_info: {} },
      node_errors: {
        '4': {
          errors: [{ type: 'value_not_in_list', message: 'Value not in list', details: "ckpt_name: 'gone.safetensors' not in ['sd15.safetensors']", extra_info: { input_name: 'ckpt_name', input_config: null, received_value: 'gone.safetensors' } }],
          dependent_outputs: ['9'],
          class_type: 'CheckpointLoaderSimple',
        },
        '6': { errors: [{ type: 'required_input_missing', message: 'Required input is missing', details: 'clip', extra_info: { input_name: 'clip' } }], dependent_outputs: ['9'], class_type: 'CLIPTextEncode' },
      },
    };
    const error = refusedPrompt(body);
    expect({ code: error.code, status: error.status }).toEqual({ code: 'upstream_bad_request', status: 400 });
    expect(error.message).toBe(`ComfyUI refused the workflow: node 4 (CheckpointLoaderSimple) input "ckpt_name": Value not in list (ckpt_name: 'gone.safetensors' not in ['sd15.safetensors']) (and 1 more problem).`);
    expect(error.message).not.toMatch(/traceback|secret/);
  });

  it('no outputs, an invalid prompt, and engine text with control characters or at length', () => {
    expect(refusedPrompt({ error: { type: 'prompt_no_outputs', message: 'Prompt has no outputs', details: '' }, node_errors: {} }).message).toMatch(/no output node/);
    expect(refusedPrompt({ error: { type: 'invalid_prompt', message: 'Cannot execute because node Foo does not exist.', details: "Node ID '#3'" }, node_errors: {} }).message).toBe(
      "ComfyUI refused the workflow as invalid: Cannot execute because node Foo does not exist.: Node ID '#3'.",
    );
    expect(refusedPrompt('not json at all').message).toBe('ComfyUI refused the workflow.');
    expect(cleanText('a\u001b[31mb\nc\td')).toBe('a [31mb c d');
    expect(cleanText('x'.repeat(500)).length).toBe(160);
    expect(executionFailure({ node_id: '7', node_type: 'Evil\nNode', exception_type: 'ValueError' })).toBe('ComfyUI could not run the workflow: node 7 (Evil Node) failed with ValueError.');
  });
});

describe('the admin side', () => {
  it('reads ckpt_name in both combo forms', () => {
    expect(comboOptions({ CheckpointLoaderSimple: { input: { required: { ckpt_name: [['a.safetensors', 'b.ckpt'], { tooltip: 't' }] } } } })).toEqual(['a.safetensors', 'b.ckpt']);
    expect(comboOptions({ CheckpointLoaderSimple: { input: { required: { ckpt_name: ['COMBO', { options: ['c.safetensors'], tooltip: 't' }] } } } })).toEqual(['c.safetensors']);
    expect(comboOptions({})).toBeNull();
    expect(comboOptions({ CheckpointLoaderSimple: { input: { required: { ckpt_name: ['STRING', {}] } } } })).toBeNull();
  });

  it('names a checkpoint for the catalog: lowercase, safe characters, subfolders joined with -', () => {
    expect(modelName('v1-5-pruned-emaonly.safetensors')).toBe('v1-5-pruned-emaonly');
    expect(modelName('SDXL/Juggernaut XL v9.safetensors')).toBe('sdxl-juggernaut-xl-v9');
    expect(modelName('SDXL\\dream.ckpt')).toBe('sdxl-dream');
    expect(modelName('flux1-dev-Q4_0.gguf')).toBe('flux1-dev-q4_0');
    expect(modelName('..')).toBe('');
  });
});

describe('the MP4 check of a downloaded video', () => {
  const ftyp = (major: string, ...compatible: string[]) => {
    const box = Buffer.alloc(16 + 4 * compatible.length);
    box.writeUInt32BE(box.length, 0);
    box.write('ftyp', 4, 'latin1');
    box.write(major, 8, 'latin1');
    compatible.forEach((brand, i) => box.write(brand, 16 + 4 * i, 'latin1'));
    return Buffer.concat([box, Buffer.alloc(48)]);
  };

  it('takes an ftyp box with an MP4-family brand, and names what else it got', () => {
    expect(checkContainer(ftyp('isom', 'iso2', 'avc1', 'mp41'))).toEqual({ mp4: true });
    expect(checkContainer(ftyp('mp42'))).toEqual({ mp4: true });
    expect(checkContainer(ftyp('XYZW', 'isom'))).toEqual({ mp4: true });
    expect(checkContainer(ftyp('qt  '))).toEqual({ mp4: false, what: 'a QuickTime (.mov) video' });
    expect(checkContainer(Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x01, 0, 0, 0, 0, 0, 0, 0x1f, 0x42, 0x86]))).toEqual({ mp4: false, what: 'a WebM video' });
    expect(checkContainer(Buffer.from('GIF89a......'))).toEqual({ mp4: false, what: 'a GIF animation' });
    expect(checkContainer(Buffer.alloc(0))).toEqual({ mp4: false, what: 'an empty file' });
    expect(notMp4Message('a WebM video')).toMatch(/^The engine produced a WebM video, not an MP4; change the workflow's output node to save MP4/);
  });
});
