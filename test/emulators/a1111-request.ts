// The txt2img / img2img request models (every field, type and default an API request may set) and
// what the handlers check before generating.
// Source followed: modules/api/models.py (StableDiffusionTxt2ImgProcessingAPI /
// StableDiffusionImg2ImgProcessingAPI: the __init__ parameters of the processing classes minus
// API_NOT_ALLOWED, all Optional, plus sampler_index="Euler", script_name, script_args,
// send_images=True, save_images=False, alwayson_scripts, force_task_id, infotext, and for img2img
// init_images, denoising_strength=0.75, mask, include_init_images); modules/processing.py dataclass
// defaults (steps=50, cfg_scale=7.0, width=height=512, seed=-1, txt2img denoising_strength=0.75,
// hr_scale=2.0, ...; Forge adds distilled_cfg_scale, hr_cfg, hr_distilled_cfg, hr_additional_modules);
// modules/api/api.py get_selectable_script / get_script / init_script_args (422 "Script 'x' not
// found", "Cannot have a selectable script in the always on scripts params").
import type { FieldType } from './a1111-errors.js';
import type { A1111Flavor } from './a1111-catalog.js';

type Fields = Record<string, [FieldType, unknown]>;

const PROCESSING: Fields = {
  prompt: ['str', ''],
  negative_prompt: ['str', ''],
  styles: ['list', null],
  seed: ['int', -1],
  subseed: ['int', -1],
  subseed_strength: ['float', 0],
  seed_resize_from_h: ['int', -1],
  seed_resize_from_w: ['int', -1],
  sampler_name: ['str', null],
  scheduler: ['str', null],
  batch_size: ['int', 1],
  n_iter: ['int', 1],
  steps: ['int', 50],
  cfg_scale: ['float', 7.0],
  width: ['int', 512],
  height: ['int', 512],
  restore_faces: ['bool', null],
  tiling: ['bool', null],
  do_not_save_samples: ['bool', false],
  do_not_save_grid: ['bool', false],
  eta: ['float', null],
  denoising_strength: ['float', null],
  s_min_uncond: ['float', null],
  s_churn: ['float', null],
  s_tmax: ['float', null],
  s_tmin: ['float', null],
  s_noise: ['float', null],
  override_settings: ['dict', null],
  override_settings_restore_afterwards: ['bool', true],
  refiner_checkpoint: ['str', null],
  refiner_switch_at: ['float', null],
  disable_extra_networks: ['bool', false],
  firstpass_image: ['any', null],
  comments: ['dict', null],
};

const TXT2IMG: Fields = {
  enable_hr: ['bool', false],
  denoising_strength: ['float', 0.75],
  firstphase_width: ['int', 0],
  firstphase_height: ['int', 0],
  hr_scale: ['float', 2.0],
  hr_upscaler: ['str', null],
  hr_second_pass_steps: ['int', 0],
  hr_resize_x: ['int', 0],
  hr_resize_y: ['int', 0],
  hr_checkpoint_name: ['str', null],
  hr_sampler_name: ['str', null],
  hr_scheduler: ['str', null],
  hr_prompt: ['str', ''],
  hr_negative_prompt: ['str', ''],
  force_task_id: ['str', null],
};

const IMG2IMG: Fields = {
  init_images: ['list', null],
  resize_mode: ['int', 0],
  denoising_strength: ['float', 0.75],
  image_cfg_scale: ['float', null],
  mask: ['str', null],
  mask_blur_x: ['int', 4],
  mask_blur_y: ['int', 4],
  mask_blur: ['int', null],
  mask_round: ['bool', true],
  inpainting_fill: ['int', 0],
  inpaint_full_res: ['bool', true],
  inpaint_full_res_padding: ['int', 0],
  inpainting_mask_invert: ['int', 0],
  initial_noise_multiplier: ['float', null],
  latent_mask: ['any', null],
  force_task_id: ['str', null],
};

const API_EXTRAS: Fields = {
  sampler_index: ['str', 'Euler'],
  script_name: ['str', null],
  script_args: ['list', []],
  send_images: ['bool', true],
  save_images: ['bool', false],
  alwayson_scripts: ['dict', {}],
  infotext: ['str', null],
};

export type Mode = 'txt2img' | 'img2img';

export function requestFields(flavor: A1111Flavor, mode: Mode): Fields {
  const forge: Fields = flavor === 'forge' ? { distilled_cfg_scale: ['float', 3.5] } : {};
  const forgeHr: Fields =
    flavor === 'forge'
      ? mode === 'txt2img'
        ? { hr_additional_modules: ['list', null], hr_cfg: ['float', 1.0], hr_distilled_cfg: ['float', 3.5] }
        : { hr_distilled_cfg: ['float', 3.5] }
      : {};
  const own = mode === 'txt2img' ? TXT2IMG : { ...IMG2IMG, include_init_images: ['bool', false] as [FieldType, unknown] };
  return { ...PROCESSING, ...forge, ...own, ...forgeHr, ...API_EXTRAS };
}

/** Selectable scripts (script_name) of a stock install; titles are compared lower-cased. */
const SELECTABLE: Record<Mode, string[]> = {
  txt2img: ['Prompt matrix', 'Prompts from file or textbox', 'X/Y/Z plot'],
  img2img: ['img2img alternative test', 'Loopback', 'Outpainting mk2', 'Poor man\'s outpainting', 'Prompt matrix', 'Prompts from file or textbox', 'SD upscale', 'X/Y/Z plot'],
};

/** Always-on scripts of a stock install (alwayson_scripts keys). */
export function alwaysOnScripts(flavor: A1111Flavor, mode: Mode): string[] {
  const common = ['Extra options', 'Hypertile', 'Refiner', 'Seed', 'Sampler'];
  const img = mode === 'img2img' ? ['Soft inpainting'] : [];
  const forge = flavor === 'forge' ? ['ControlNet', 'FreeU Integrated (SD 1.x, SD 2.x, SDXL)', 'Kohya HRFix Integrated', 'SelfAttentionGuidance Integrated (SD 1.x, SD 2.x, SDXL)', 'Never OOM Integrated', 'MultiDiffusion Integrated', 'StyleAlign Integrated', 'DynamicThresholding (CFG-Fix) Integrated'] : [];
  return [...common, ...img, ...forge];
}

/** Every script's name (GET /sdapi/v1/scripts: script.name, the lower-cased title). */
export function scriptNames(flavor: A1111Flavor, mode: Mode): string[] {
  return [...SELECTABLE[mode], ...alwaysOnScripts(flavor, mode)].map((title) => title.toLowerCase());
}

/** The 422 detail the script checks raise, or undefined. */
export function scriptProblem(flavor: A1111Flavor, mode: Mode, values: Record<string, unknown>): string | undefined {
  const scriptName = values.script_name;
  if (typeof scriptName === 'string' && scriptName !== '' && !SELECTABLE[mode].some((title) => title.toLowerCase() === scriptName.toLowerCase())) {
    return `Script '${scriptName}' not found`;
  }
  const always = values.alwayson_scripts;
  if (always && typeof always === 'object') {
    // get_script looks the name up among all scripts: unknown -> script_name_to_index's 422.
    const known = alwaysOnScripts(flavor, mode).map((title) => title.toLowerCase());
    for (const name of Object.keys(always)) {
      if (SELECTABLE[mode].some((title) => title.toLowerCase() === name.toLowerCase())) return 'Cannot have a selectable script in the always on scripts params';
      if (!known.includes(name.toLowerCase())) return `Script '${name}' not found`;
    }
  }
  return undefined;
}
