// The built-in ComfyUI workflows (API format) for a discovered checkpoint: text-to-image and
// image-to-image. Placeholders are filled per request like an owner's workflow; the checkpoint
// name is set after filling, so a file name with braces in it is never read as a placeholder.
import type { JsonValue, Workflow } from '../templates/placeholders.js';

/**
 * References the built-in edit takes (one LoadImage chain per {{image_N}}): discovery gives each
 * checkpoint's record this maximum.
 */
export const BUILT_IN_MAX_REFERENCES = 3;

/** How much of a reference the edit keeps: below 1, so the sampler starts from it (0.6 keeps its layout). */
export const EDIT_DENOISE = 0.6;

const CHECKPOINT_NODE = '4';

type Node = { class_type: string; inputs: { [key: string]: JsonValue }; _meta: { title: string } };

const node = (classType: string, title: string, inputs: Node['inputs']): Node => ({ class_type: classType, inputs, _meta: { title } });

/** The loader, the prompt and an empty negative prompt, shared by both templates. */
function conditioning(): Workflow {
  return {
    [CHECKPOINT_NODE]: node('CheckpointLoaderSimple', 'Load Checkpoint', { ckpt_name: '' }),
    '6': node('CLIPTextEncode', 'Prompt', { text: '{{prompt}}', clip: [CHECKPOINT_NODE, 1] }),
    '7': node('CLIPTextEncode', 'Negative prompt', { text: '', clip: [CHECKPOINT_NODE, 1] }),
  };
}

function sampleAndSave(latent: JsonValue, denoise: number): Workflow {
  return {
    '3': node('KSampler', 'KSampler', {
      seed: '{{seed}}',
      steps: 20,
      cfg: 7,
      sampler_name: 'euler',
      scheduler: 'normal',
      denoise,
      model: [CHECKPOINT_NODE, 0],
      positive: ['6', 0],
      negative: ['7', 0],
      latent_image: latent,
    }),
    '8': node('VAEDecode', 'VAE Decode', { samples: ['3', 0], vae: [CHECKPOINT_NODE, 2] }),
    '9': node('SaveImage', 'Save Image', { filename_prefix: 'mgw', images: ['8', 0] }),
  };
}

export function textToImageWorkflow(): Workflow {
  return {
    ...conditioning(),
    '5': node('EmptyLatentImage', 'Empty Latent Image', { width: '{{width}}', height: '{{height}}', batch_size: 1 }),
    ...sampleAndSave(['5', 0], 1),
  };
}

/**
 * Image-to-image from 1 to BUILT_IN_MAX_REFERENCES references. Each is loaded, scaled (and
 * centre-cropped) to the output size and encoded; several are blended in latent space with
 * equal weights (LatentBlend takes two, so the running mean is blended with the next one), and
 * the sampler starts from the blend at EDIT_DENOISE. A plain checkpoint has no other way to
 * take more than one image: every reference shapes the result, none is dropped, and the output
 * is one image (batching them instead would give one image per reference).
 */
export function editWorkflow(references: number): Workflow {
  const count = Math.max(1, Math.min(BUILT_IN_MAX_REFERENCES, Math.floor(references)));
  const workflow: Workflow = conditioning();
  const encoded: string[] = [];
  for (let i = 1; i <= count; i++) {
    const load = String(7 + 3 * i); // 10, 13, 16
    const scale = String(8 + 3 * i);
    const encode = String(9 + 3 * i);
    workflow[load] = node('LoadImage', `Reference ${i}`, { image: `{{image_${i}}}` });
    workflow[scale] = node('ImageScale', `Scale reference ${i}`, { image: [load, 0], upscale_method: 'lanczos', width: '{{width}}', height: '{{height}}', crop: 'center' });
    workflow[encode] = node('VAEEncode', `Encode reference ${i}`, { pixels: [scale, 0], vae: [CHECKPOINT_NODE, 2] });
    encoded.push(encode);
  }
  let latent = encoded[0]!;
  for (let i = 1; i < encoded.length; i++) {
    const blend = String(18 + i); // 19, 20
    // The mean of the first i references weighs i / (i + 1) against the next one.
    workflow[blend] = node('LatentBlend', `Blend reference ${i + 1}`, { samples1: [latent, 0], samples2: [encoded[i]!, 0], blend_factor: Math.round((i / (i + 1)) * 100) / 100 });
    latent = blend;
  }
  return { ...workflow, ...sampleAndSave([latent, 0], EDIT_DENOISE) };
}

/** A filled built-in workflow with its checkpoint set. */
export function withCheckpoint(workflow: Workflow, checkpoint: string): Workflow {
  const loader = workflow[CHECKPOINT_NODE] as Node | undefined;
  if (loader) loader.inputs.ckpt_name = checkpoint;
  return workflow;
}
