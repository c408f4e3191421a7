// The node classes the ComfyUI emulator knows, declared as the real ones are (INPUT_TYPES,
// RETURN_TYPES, OUTPUT_NODE, VALIDATE_INPUTS, IS_CHANGED), and /object_info built from them as
// server.py's node_info() (V1 nodes) or comfy_api/latest/_io.py's get_v1_info() (V3 nodes) does.
// Sources: nodes.py (CheckpointLoaderSimple, CLIPTextEncode, EmptyLatentImage, KSampler,
// VAEDecode, VAEEncode, LoadImage, SaveImage, PreviewImage), comfy/samplers.py (sampler and
// scheduler names), comfy_extras/nodes_hunyuan.py (EmptyHunyuanLatentVideo), nodes_lt.py
// (EmptyLTXVLatentVideo), nodes_video.py (SaveWEBM, SaveVideo, CreateVideo), and
// Kosinkadink/ComfyUI-VideoHelperSuite videohelpersuite/nodes.py (VHS_VideoCombine) with its
// video_formats/*.json.

import { PyError, pyTypeName } from './comfyui-python.js';

export type ComboOptions = (string | number)[];
/** (input_type, extra_info): input_type is a type name or, for an old-style combo, the option list. */
export type InputSpec = [string | ComboOptions, Record<string, unknown>] | [string | ComboOptions];
export interface InputTypes {
  required: Record<string, InputSpec>;
  optional?: Record<string, InputSpec>;
  hidden?: Record<string, string | [string]>;
}

export interface NodeEnv {
  checkpoints: readonly string[];
  /** sorted(files) of the input directory's top level that are images (LoadImage's list). */
  inputImages(): string[];
  /** folder_paths.exists_annotated_filepath (names like 'sub/a.png' or 'a.png [output]'). */
  annotatedExists(name: string): boolean;
  /** How CheckpointLoaderSimple's ckpt_name shows in /object_info. */
  comboForm: 'list' | 'combo';
}

export interface NodeDef {
  name: string;
  displayName: string;
  category: string;
  description: string;
  pythonModule: string;
  /** A comfy_api V3 node (io.ComfyNode): its combos are typed 'COMBO' and are not checked by validate_inputs. */
  v3: boolean;
  inputTypes(env: NodeEnv): InputTypes;
  returnTypes: string[];
  returnNames?: string[];
  outputTooltips?: string[];
  outputNode: boolean;
  experimental?: boolean;
  /** VALIDATE_INPUTS: the argument names it takes, and its answer (true or a reason). */
  validate?: { args: string[]; run(values: Record<string, unknown>, env: NodeEnv): true | string };
  /** Has IS_CHANGED (LoadImage: the file's sha256), so re-uploads invalidate its cache entry. */
  isChanged?: boolean;
  /** "UNIQUE_ID" among its hidden inputs: its node id is part of its cache signature. */
  uniqueIdHidden?: boolean;
  /** VHS MultiInput: input types accepted besides the declared one. */
  multiInput?: Record<string, string[]>;
}

export const MAX_RESOLUTION = 16384;
const HIDDEN_V1 = { prompt: 'PROMPT', extra_pnginfo: 'EXTRA_PNGINFO' };
const HIDDEN_V3: Record<string, [string]> = { prompt: ['PROMPT'], extra_pnginfo: ['EXTRA_PNGINFO'] };

export const SAMPLERS = [
  'euler', 'euler_cfg_pp', 'euler_ancestral', 'euler_ancestral_cfg_pp', 'heun', 'heunpp2', 'dpm_2', 'dpm_2_ancestral',
  'lms', 'dpm_fast', 'dpm_adaptive', 'dpmpp_2s_ancestral', 'dpmpp_2s_ancestral_cfg_pp', 'dpmpp_sde', 'dpmpp_sde_gpu',
  'dpmpp_2m', 'dpmpp_2m_cfg_pp', 'dpmpp_2m_sde', 'dpmpp_2m_sde_gpu', 'dpmpp_2m_sde_heun', 'dpmpp_2m_sde_heun_gpu', 'dpmpp_3m_sde', 'dpmpp_3m_sde_gpu', 'ddpm', 'lcm',
  'ipndm', 'ipndm_v', 'deis', 'res_multistep', 'res_multistep_cfg_pp', 'res_multistep_ancestral', 'res_multistep_ancestral_cfg_pp',
  'gradient_estimation', 'gradient_estimation_cfg_pp', 'er_sde', 'seeds_2', 'seeds_3', 'sa_solver', 'sa_solver_pece',
  'ddim', 'uni_pc', 'uni_pc_bh2',
];
export const SCHEDULERS = ['simple', 'sgm_uniform', 'karras', 'exponential', 'ddim_uniform', 'beta', 'normal', 'linear_quadratic', 'kl_optimal'];

/** VHS formats: base video_formats/*.json (gifski skipped: no gifski binary), with what the emulator writes. */
export const VHS_FORMATS: Record<string, { extension: string; kind: 'mp4' | 'webm' | 'gif' | 'webp' | 'other' }> = {
  'image/gif': { extension: 'gif', kind: 'gif' },
  'image/webp': { extension: 'webp', kind: 'webp' },
  'video/16bit-png': { extension: 'png', kind: 'other' },
  'video/8bit-png': { extension: 'png', kind: 'other' },
  'video/ProRes': { extension: 'mov', kind: 'other' },
  'video/av1-webm': { extension: 'webm', kind: 'webm' },
  'video/ffmpeg-gif': { extension: 'gif', kind: 'gif' },
  'video/ffv1-mkv': { extension: 'mkv', kind: 'other' },
  'video/h264-mp4': { extension: 'mp4', kind: 'mp4' },
  'video/h265-mp4': { extension: 'mp4', kind: 'mp4' },
  'video/nvenc_av1-mp4': { extension: 'mp4', kind: 'mp4' },
  'video/nvenc_h264-mp4': { extension: 'mp4', kind: 'mp4' },
  'video/nvenc_hevc-mp4': { extension: 'mp4', kind: 'mp4' },
  'video/webm': { extension: 'webm', kind: 'webm' },
};
const CRF = (d: number) => ['crf', 'INT', { default: d, min: 0, max: 100, step: 1 }];
const META = [['save_metadata', 'BOOLEAN', { default: true }], ['trim_to_audio', 'BOOLEAN', { default: false }]];
const VHS_WIDGETS: Record<string, unknown[]> = {
  'video/h264-mp4': [['pix_fmt', ['yuv420p', 'yuv420p10le']], CRF(19), ...META],
  'video/webm': [['pix_fmt', ['yuv420p', 'yuva420p']], CRF(20), ...META],
  'image/webp': [['lossless', 'BOOLEAN', { default: true }]],
};

const v1 = (name: string, rest: Omit<NodeDef, 'name' | 'v3' | 'pythonModule' | 'displayName'> & { displayName?: string; pythonModule?: string }): NodeDef => ({
  name,
  v3: false,
  pythonModule: 'nodes',
  displayName: name,
  ...rest,
});
const v3 = (name: string, module: string, rest: Omit<NodeDef, 'name' | 'v3' | 'pythonModule' | 'displayName' | 'description'> & { displayName?: string; description?: string }): NodeDef => ({
  name,
  v3: true,
  pythonModule: `comfy_extras.${module}`,
  displayName: name,
  description: '',
  ...rest,
});

const int = (d: number, min: number, max: number, extra: Record<string, unknown> = {}): InputSpec => ['INT', { default: d, min, max, ...extra }];

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
  v1('EmptyHunyuanLatentVideo', {
    pythonModule: 'comfy_extras.nodes_hunyuan', category: 'latent/video', description: '',
    inputTypes: () => ({
      required: { width: int(848, 16, MAX_RESOLUTION, { step: 16 }), height: int(480, 16, MAX_RESOLUTION, { step: 16 }), length: int(25, 1, MAX_RESOLUTION, { step: 4 }), batch_size: int(1, 1, 4096) },
    }),
    returnTypes: ['LATENT'], outputNode: false,
  }),
  v3('EmptyLTXVLatentVideo', 'nodes_lt', {
    category: 'latent/video/ltxv',
    inputTypes: () => ({
      required: { width: int(768, 64, MAX_RESOLUTION, { step: 32 }), height: int(512, 64, MAX_RESOLUTION, { step: 32 }), length: int(97, 1, MAX_RESOLUTION, { step: 8 }), batch_size: int(1, 1, 4096) },
    }),
    returnTypes: ['LATENT'], outputNode: false,
  }),
  v3('SaveWEBM', 'nodes_video', {
    category: 'image/video', experimental: true,
    inputTypes: () => ({
      required: {
        images: ['IMAGE', {}],
        filename_prefix: ['STRING', { default: 'ComfyUI', multiline: false }],
        codec: ['COMBO', { multiselect: false, options: ['vp9', 'av1'] }],
        fps: ['FLOAT', { default: 24.0, min: 0.01, max: 1000.0, step: 0.01 }],
        crf: ['FLOAT', { tooltip: 'Higher crf means lower quality with a smaller file size, lower crf means higher quality higher filesize.', default: 32.0, min: 0, max: 63.0, step: 1 }],
      },
      hidden: HIDDEN_V3,
    }),
    returnTypes: [], outputNode: true,
  }),
  v3('SaveVideo', 'nodes_video', {
    displayName: 'Save Video', category: 'image/video', description: 'Saves the input images to your ComfyUI output directory.',
    inputTypes: () => ({
      required: {
        video: ['VIDEO', { tooltip: 'The video to save.' }],
        filename_prefix: ['STRING', { tooltip: 'The prefix for the file to save. This may include formatting information such as %date:yyyy-MM-dd% or %Empty Latent Image.width% to include values from nodes.', default: 'video/ComfyUI', multiline: false }],
        format: ['COMBO', { tooltip: 'The format to save the video as.', default: 'auto', multiselect: false, options: ['auto', 'mp4'] }],
        codec: ['COMBO', { tooltip: 'The codec to use for the video.', default: 'auto', multiselect: false, options: ['auto', 'h264'] }],
      },
      hidden: HIDDEN_V3,
    }),
    returnTypes: [], outputNode: true,
  }),
  v3('CreateVideo', 'nodes_video', {
    displayName: 'Create Video', category: 'image/video', description: 'Create a video from images.',
    inputTypes: () => ({
      required: { images: ['IMAGE', { tooltip: 'The images to create a video from.' }], fps: ['FLOAT', { default: 30.0, min: 1.0, max: 120.0, step: 1.0 }] },
      optional: { audio: ['AUDIO', { tooltip: 'The audio to add to the video.' }] },
    }),
    returnTypes: ['VIDEO'], outputNode: false,
  }),
  v1('VHS_VideoCombine', {
    displayName: 'Video Combine 🎥🅥🅗🅢', pythonModule: 'custom_nodes.ComfyUI-VideoHelperSuite', category: 'Video Helper Suite 🎥🅥🅗🅢', description: '',
    inputTypes: () => ({
      required: {
        images: ['IMAGE'],
        frame_rate: ['FLOAT', { default: 8, min: 1, step: 1 }],
        loop_count: ['INT', { default: 0, min: 0, max: 100, step: 1 }],
        filename_prefix: ['STRING', { default: 'AnimateDiff' }],
        format: [Object.keys(VHS_FORMATS), { formats: VHS_WIDGETS }],
        pingpong: ['BOOLEAN', { default: false }],
        save_output: ['BOOLEAN', { default: true }],
      },
      optional: { audio: ['AUDIO'], meta_batch: ['VHS_BatchManager'], vae: ['VAE'] },
      hidden: { prompt: 'PROMPT', extra_pnginfo: 'EXTRA_PNGINFO', unique_id: 'UNIQUE_ID' },
    }),
    returnTypes: ['VHS_FILENAMES'], returnNames: ['Filenames'], outputNode: true, uniqueIdHidden: true,
    multiInput: { images: ['IMAGE', 'LATENT'], frame_rate: ['FLOAT', 'INT'] },
  }),
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
