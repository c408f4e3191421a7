// The default record of a model made from a workflow uploaded in the studio: sized to the
// references the workflow loads, so the workflow check (comfyui-checks.ts) accepts the pair.
import { describe, expect, it } from 'vitest';
import { defaultWorkflowRecord } from '../../electron/core/catalog/workflow-model.js';
import { checkWorkflow } from '../../electron/core/providers/comfyui/comfyui-checks.js';
import type { Workflow } from '../../electron/core/providers/templates/placeholders.js';

/** A video workflow loading `references` images ({{image_1}}..), saved with SaveVideo. */
function videoWorkflow(references: number): Workflow {
  const workflow: Workflow = {
    '6': { class_type: 'CLIPTextEncode', inputs: { text: '{{prompt}}' } },
    '5': { class_type: 'EmptyHunyuanLatentVideo', inputs: { width: '{{width}}', height: '{{height}}', length: '{{frames}}' } },
    '9': { class_type: 'SaveVideo', inputs: { fps: '{{fps}}' } },
  };
  for (let i = 1; i <= references; i++) workflow[`l${i}`] = { class_type: 'LoadImage', inputs: { image: `{{image_${i}}}` } };
  return workflow;
}

describe('defaultWorkflowRecord', () => {
  it.each([0, 1, 2, 3])('a video workflow with %i reference(s): the record allows them all, and the check accepts it', (references) => {
    const workflow = videoWorkflow(references);
    const record = defaultWorkflowRecord('comfy/clip', 'comfy', workflow, 'video', 0);
    expect(record.capabilities).toMatchObject({
      max_reference_images: references,
      requires_reference_image: references > 0,
      request_types: references > 0 ? ['image-to-video'] : ['text-to-video'],
    });
    expect(() => checkWorkflow(workflow, record)).not.toThrow();
  });

  it('an image workflow with references: an edit model allowing them all', () => {
    const workflow: Workflow = {
      '6': { class_type: 'CLIPTextEncode', inputs: { text: '{{prompt}}' } },
      l1: { class_type: 'LoadImage', inputs: { image: '{{image_1}}' } },
      l2: { class_type: 'LoadImage', inputs: { image: '{{image_2}}' } },
      '9': { class_type: 'SaveImage', inputs: {} },
    };
    const record = defaultWorkflowRecord('comfy/pair', 'comfy', workflow, 'image', 0);
    expect(record.capabilities).toMatchObject({ image_generation: false, image_edit: true, max_reference_images: 2 });
    expect(() => checkWorkflow(workflow, record)).not.toThrow();
  });
});
