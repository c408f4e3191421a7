// An owner's ComfyUI workflow as the docs' worked example has it: text-to-image in API format with
// the gateway's placeholders, for the tests that put one as a model (CLI, studio).
export interface ComfyNode {
  class_type: string;
  inputs: Record<string, unknown>;
}

export function portraitWorkflow(checkpoint = 'sd_xl_base_1.0.safetensors'): Record<string, ComfyNode> {
  return {
    '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: checkpoint } },
    '5': { class_type: 'EmptyLatentImage', inputs: { width: '{{width}}', height: '{{height}}', batch_size: 1 } },
    '6': { class_type: 'CLIPTextEncode', inputs: { text: '{{prompt}}, studio portrait', clip: ['4', 1] } },
    '7': { class_type: 'CLIPTextEncode', inputs: { text: 'blurry', clip: ['4', 1] } },
    '3': {
      class_type: 'KSampler',
      inputs: { seed: '{{seed}}', steps: 8, cfg: 6.5, sampler_name: 'euler', scheduler: 'normal', denoise: 1, model: ['4', 0], positive: ['6', 0], negative: ['7', 0], latent_image: ['5', 0] },
    },
    '8': { class_type: 'VAEDecode', inputs: { samples: ['3', 0], vae: ['4', 2] } },
    '9': { class_type: 'SaveImage', inputs: { filename_prefix: 'mgw', images: ['8', 0] } },
  };
}
