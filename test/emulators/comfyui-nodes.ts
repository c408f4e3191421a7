// The core node classes the ComfyUI emulator knows, declared as nodes.py declares them
// (INPUT_TYPES, RETURN_TYPES, OUTPUT_NODE, VALIDATE_INPUTS, IS_CHANGED): CheckpointLoaderSimple,
// CLIPTextEncode, EmptyLatentImage, KSampler (sampler and scheduler names from comfy/samplers.py),
// VAEDecode, VAEEncode, LoadImage, ImageScale, LatentBlend, SaveImage, PreviewImage; the video
// ones are in comfyui-nodes-video.ts. /object_info entries are built as server.py's node_info()
// (V1 nodes) or comfy_api/latest/_io.py's get_v1_info() (V3 nodes) builds them.

import { PyError, pyTypeName } from './comfyui-python.js';
import { HIDDEN_V1, MAX_RESOLUTION, int, v1, type InputSpec, type NodeDef, type NodeEnv } from './comfyui-node-types.js';
import { VIDEO_NODE_DEFS } from './comfyui-nodes-video.js';

export type { ComboOptions, InputSpec, InputTypes, NodeDef, NodeEnv } from './comfyui-node-types.js';
export { VHS_FORMATS } from './comfyui-nodes-video.js';

export const SAMPLERS = [
  'euler', 'euler_cfg_pp', 'euler_ancestral', 'euler_ancestral_cfg_pp', 'heun', 'heunpp2', 'dpm_2', 'dpm_2_ancestral',
  'lms', 'dpm_fast', 'dpm_adaptive', 'dpmpp_2s_ancestral', 'dpmpp_2s_ancestral_cfg_pp', 'dpmpp_sde', 'dpmpp_sde_gpu',
  'dpmpp_2m', 'dpmpp_2m_cfg_pp', 'dpmpp_2m_sde', 'dpmpp_2m_sde_gpu', 'dpmpp_2m_sde_heun', 'dpmpp_2m_sde_heun_gpu', 'dpmpp_3m_sde', 'dpmpp_3m_sde_gpu', 'ddpm', 'lcm',
  'ipndm', 'ipndm_v', 'deis', 'res_multistep', 'res_multistep_cfg_pp', 'res_multistep_ancestral', 'res_multistep_ancestral_cfg_pp',
  'gradient_estimation', 'gradient_estimation_cfg_pp', 'er_sde', 'seeds_2', 'seeds_3', 'sa_solver', 'sa_solver_pece',
  'ddim', 'uni_pc', 'uni_pc_bh2',
];
export const SCHEDULERS = ['simple', 'sgm_uniform', 'karras', 'exponential', 'ddim_uniform', 'beta', 'normal', 'linear_quadratic', 'kl_optimal'];

export const NODE_DEFS: NodeDef[] = [
  v1('CheckpointLoaderSimple', {
    displayName: 'Load Checkpoint', category: 'loaders', description: 'Loads a diffusion model checkpoint, diffusion models are used to denoise latents.',
    inputTypes: (env) => ({
      required: {
        ckpt_name: env.comboForm === 'combo'
          ? ['COMBO', { tooltip: 'The name of the checkpoint (model) to load.', multiselect: false, options: [...env.checkpoints] }]
          : [[...env.checkpoints], { tooltip: 'The name of the checkpoint (model) to load.' }],
      },
    }),
    returnTypes: ['MODEL', 'CLIP', 'VAE'], outputNode: false,
    outputTooltips: ['The model used for denoising latents.', 'The CLIP model used for encoding text prompts.', 'The VAE model used for encoding and decoding images to and from latent space.'],
  }),
  v1('CLIPTextEncode', {
    displayName: 'CLIP Text Encode (Prompt)', category: 'conditioning',
    description: 'Encodes a text prompt using a CLIP model into an embedding that can be used to guide the diffusion model towards generating specific images.',
    inputTypes: () => ({ required: { text: ['STRING', { multiline: true, dynamicPrompts: true, tooltip: 'The text to be encoded.' }], clip: ['CLIP', { tooltip: 'The CLIP model used for encoding the text.' }] } }),
    returnTypes: ['CONDITIONING'], outputNode: false,
    outputTooltips: ['A conditioning containing the embedded text used to guide the diffusion model.'],
  }),
  v1('EmptyLatentImage', {
    displayName: 'Empty Latent Image', category: 'latent', description: 'Create a new batch of empty latent images to be denoised via sampling.',
    inputTypes: () => ({
      required: {
        width: int(512, 16, MAX_RESOLUTION, { step: 8, tooltip: 'The width of the latent images in pixels.' }),
        height: int(512, 16, MAX_RESOLUTION, { step: 8, tooltip: 'The height of the latent images in pixels.' }),
        batch_size: int(1, 1, 4096, { tooltip: 'The number of latent images in the batch.' }),
      },
    }),
    returnTypes: ['LATENT'], outputNode: false, outputTooltips: ['The empty latent image batch.'],
  }),
  v1('KSampler', {
    displayName: 'KSampler', category: 'sampling', description: 'Uses the provided model, positive and negative conditioning to denoise the latent image.',
    inputTypes: () => ({
      required: {
        model: ['MODEL', { tooltip: 'The model used for denoising the input latent.' }],
        seed: ['INT', { default: 0, min: 0, max: 0xffffffffffffffff, control_after_generate: true, tooltip: 'The random seed used for creating the noise.' }],
        steps: int(20, 1, 10000, { tooltip: 'The number of steps used in the denoising process.' }),
        cfg: ['FLOAT', { default: 8.0, min: 0.0, max: 100.0, step: 0.1, round: 0.01, tooltip: 'The Classifier-Free Guidance scale balances creativity and adherence to the prompt. Higher values result in images more closely matching the prompt however too high values will negatively impact quality.' }],
        sampler_name: [SAMPLERS, { tooltip: 'The algorithm used when sampling, this can affect the quality, speed, and style of the generated output.' }],
        scheduler: [SCHEDULERS, { tooltip: 'The scheduler controls how noise is gradually removed to form the image.' }],
        positive: ['CONDITIONING', { tooltip: 'The conditioning describing the attributes you want to include in the image.' }],
        negative: ['CONDITIONING', { tooltip: 'The conditioning describing the attributes you want to exclude from the image.' }],
        latent_image: ['LATENT', { tooltip: 'The latent image to denoise.' }],
        denoise: ['FLOAT', { default: 1.0, min: 0.0, max: 1.0, step: 0.01, tooltip: 'The amount of denoising applied, lower values will maintain the structure of the initial image allowing for image to image sampling.' }],
      },
    }),
    returnTypes: ['LATENT'], outputNode: false, outputTooltips: ['The denoised latent.'],
  }),
  v1('VAEDecode', {
    displayName: 'VAE Decode', category: 'latent', description: 'Decodes latent images back into pixel space images.',
    inputTypes: () => ({ required: { samples: ['LATENT', { tooltip: 'The latent to be decoded.' }], vae: ['VAE', { tooltip: 'The VAE model used for decoding the latent.' }] } }),
    returnTypes: ['IMAGE'], outputNode: false, outputTooltips: ['The decoded image.'],
  }),
  v1('VAEEncode', {
    displayName: 'VAE Encode', category: 'latent', description: '',
    inputTypes: () => ({ required: { pixels: ['IMAGE'], vae: ['VAE'] } }),
    returnTypes: ['LATENT'], outputNode: false,
  }),
  v1('LoadImage', {
    displayName: 'Load Image', category: 'image', description: '',
    inputTypes: (env) => ({ required: { image: [env.inputImages(), { image_upload: true }] } }),
    returnTypes: ['IMAGE', 'MASK'], outputNode: false, isChanged: true,
    validate: {
      args: ['image'],
      run: (values, env) => {
        const image = values.image;
        if (typeof image !== 'string') throw new PyError('AttributeError', `'${pyTypeName(image)}' object has no attribute 'endswith'`);
        return env.annotatedExists(image) ? true : `Invalid image file: ${image}`;
      },
    },
  }),
  v1('ImageScale', {
    displayName: 'Upscale Image', category: 'image/upscaling', description: '',
    inputTypes: () => ({
      required: {
        image: ['IMAGE'], upscale_method: [['nearest-exact', 'bilinear', 'area', 'bicubic', 'lanczos']],
        width: int(512, 0, MAX_RESOLUTION, { step: 1 }), height: int(512, 0, MAX_RESOLUTION, { step: 1 }), crop: [['disabled', 'center']],
      },
    }),
    returnTypes: ['IMAGE'], outputNode: false,
  }),
  v1('LatentBlend', {
    displayName: 'Latent Blend', category: '_for_testing', description: '',
    inputTypes: () => ({ required: { samples1: ['LATENT'], samples2: ['LATENT'], blend_factor: ['FLOAT', { default: 0.5, min: 0, max: 1, step: 0.01 }] } }),
    returnTypes: ['LATENT'], outputNode: false,
  }),
  v1('SaveImage', {
    displayName: 'Save Image', category: 'image', description: 'Saves the input images to your ComfyUI output directory.',
    inputTypes: () => ({
      required: {
        images: ['IMAGE', { tooltip: 'The images to save.' }],
        filename_prefix: ['STRING', { default: 'ComfyUI', tooltip: 'The prefix for the file to save. This may include formatting information such as %date:yyyy-MM-dd% or %Empty Latent Image.width% to include values from nodes.' }],
      },
      hidden: HIDDEN_V1,
    }),
    returnTypes: [], outputNode: true,
  }),
  v1('PreviewImage', {
    displayName: 'Preview Image', category: 'image', description: 'Saves the input images to your ComfyUI output directory.',
    inputTypes: () => ({ required: { images: ['IMAGE'] }, hidden: HIDDEN_V1 }),
    returnTypes: [], outputNode: true,
  }),
  ...VIDEO_NODE_DEFS,
];

export function nodeRegistry(options: { videoHelperSuite: boolean }): Map<string, NodeDef> {
  return new Map(NODE_DEFS.filter((def) => options.videoHelperSuite || !def.name.startsWith('VHS_')).map((def) => [def.name, def]));
}

/** GET /object_info's entry for one node class. */
export function nodeInfo(def: NodeDef, env: NodeEnv): Record<string, unknown> {
  const input = def.inputTypes(env);
  const inputOrder = Object.fromEntries(Object.entries(input).map(([key, value]) => [key, Object.keys(value as object)]));
  if (def.v3) {
    // asdict(NodeInfoV1): every field, in the dataclass's order.
    return {
      input, input_order: inputOrder, output: def.returnTypes, output_is_list: def.returnTypes.map(() => false),
      output_name: def.returnNames ?? def.returnTypes, output_tooltips: def.returnTypes.map((_, i) => def.outputTooltips?.[i] ?? null),
      name: def.name, display_name: def.displayName, description: def.description, python_module: def.pythonModule,
      category: def.category, output_node: def.outputNode, deprecated: false, experimental: def.experimental ?? false, api_node: false,
    };
  }
  const info: Record<string, unknown> = {
    input, input_order: inputOrder, output: def.returnTypes, output_is_list: def.returnTypes.map(() => false),
    output_name: def.returnNames ?? def.returnTypes, name: def.name, display_name: def.displayName, description: def.description,
    python_module: def.pythonModule, category: def.category, output_node: def.outputNode,
  };
  if (def.outputTooltips) info.output_tooltips = def.outputTooltips;
  if (def.experimental) info.experimental = true;
  return info;
}
