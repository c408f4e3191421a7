// What an AUTOMATIC1111 / Forge server lists: checkpoints (with the aliases override_settings and
// /options accept), samplers, schedulers, options and command-line flags.
// Source followed (AUTOMATIC1111/stable-diffusion-webui v1.10 and lllyasviel/stable-diffusion-webui-forge):
// modules/sd_models.py CheckpointInfo (name, name_for_extra, model_name, legacy hash, sha256,
// shorthash = sha256[:10], title = "name [shorthash]", ids / checkpoint_aliases),
// modules/api/api.py get_sd_models ({title, model_name, hash: shorthash, sha256, filename, config}),
// get_samplers ({name, aliases, options}), get_schedulers; modules/sd_samplers_kdiffusion.py,
// sd_samplers_timesteps.py, sd_samplers_lcm.py, modules_forge/alter_samplers.py (sampler tables);
// modules/sd_schedulers.py (scheduler table); modules/sd_samplers.py get_sampler_and_scheduler.
import { createHash } from 'node:crypto';

export type A1111Flavor = 'a1111' | 'forge';

export interface CheckpointSpec {
  /** Path under models/Stable-diffusion, e.g. 'v1-5-pruned-emaonly.safetensors' or 'XL/base.safetensors'. */
  name: string;
  /** Full sha256 hex, null when the server has not hashed the file yet (title then has no [hash]); default: derived from the name. */
  sha256?: string | null;
}

export interface Checkpoint {
  name: string;
  nameForExtra: string;
  modelName: string;
  /** The legacy 8-hex model_hash. */
  hash: string;
  sha256: string | null;
  shorthash: string | null;
  title: string;
  filename: string;
  ids: string[];
}

export const DEFAULT_CHECKPOINTS: CheckpointSpec[] = [{ name: 'v1-5-pruned-emaonly.safetensors' }, { name: 'sd_xl_base_1.0.safetensors' }];

const hex = (text: string) => createHash('sha256').update(text).digest('hex');

export function makeCheckpoint(spec: CheckpointSpec | string, flavor: A1111Flavor): Checkpoint {
  const { name, sha256: given } = typeof spec === 'string' ? { name: spec, sha256: undefined } : spec;
  const base = name.split('/').pop() ?? name;
  const stem = (path: string) => path.replace(/\.[^./]*$/, '');
  const sha256 = given === undefined ? hex(`checkpoint:${name}`) : given;
  const shorthash = sha256 ? sha256.slice(0, 10) : null;
  const title = shorthash ? `${name} [${shorthash}]` : name;
  const modelName = stem(name.replace(/[\\/]/g, '_'));
  const nameForExtra = stem(base);
  const hash = hex(`legacy:${name}`).slice(0, 8);
  const root = flavor === 'forge' ? '/opt/stable-diffusion-webui-forge' : '/opt/stable-diffusion-webui';
  const ids = [hash, modelName, title, name, nameForExtra, `${name} [${hash}]`];
  if (shorthash && sha256) ids.push(shorthash, sha256, `${name} [${shorthash}]`, `${nameForExtra} [${shorthash}]`);
  return { name, nameForExtra, modelName, hash, sha256, shorthash, title, filename: `${root}/models/Stable-diffusion/${name}`, ids };
}

/** checkpoint_aliases: every id of every checkpoint (later registrations win, as register() does). */
export function aliasMap(checkpoints: Checkpoint[]): Map<string, Checkpoint> {
  const aliases = new Map<string, Checkpoint>();
  for (const checkpoint of checkpoints) for (const id of checkpoint.ids) aliases.set(id, checkpoint);
  return aliases;
}

/** GET /sdapi/v1/sd-models items. `config` is find_checkpoint_config_near_filename (A1111) / getattr(x, 'config') (Forge): null without a .yaml. */
export function sdModelItem(checkpoint: Checkpoint) {
  return { title: checkpoint.title, model_name: checkpoint.modelName, hash: checkpoint.shorthash, sha256: checkpoint.sha256, filename: checkpoint.filename, config: null };
}

type SamplerRow = [name: string, aliases: string[], options: Record<string, unknown>];

const K_DIFFUSION: SamplerRow[] = [
  ['DPM++ 2M', ['k_dpmpp_2m'], { scheduler: 'karras' }],
  ['DPM++ SDE', ['k_dpmpp_sde'], { scheduler: 'karras', second_order: true, brownian_noise: true }],
  ['DPM++ 2M SDE', ['k_dpmpp_2m_sde'], { scheduler: 'exponential', brownian_noise: true }],
  ['DPM++ 2M SDE Heun', ['k_dpmpp_2m_sde_heun'], { scheduler: 'exponential', brownian_noise: true, solver_type: 'heun' }],
  ['DPM++ 2S a', ['k_dpmpp_2s_a'], { scheduler: 'karras', uses_ensd: true, second_order: true }],
  ['DPM++ 3M SDE', ['k_dpmpp_3m_sde'], { scheduler: 'exponential', discard_next_to_last_sigma: true, brownian_noise: true }],
  ['Euler a', ['k_euler_a', 'k_euler_ancestral'], { uses_ensd: true }],
  ['Euler', ['k_euler'], {}],
  ['LMS', ['k_lms'], {}],
  ['Heun', ['k_heun'], { second_order: true }],
  ['DPM2', ['k_dpm_2'], { scheduler: 'karras', discard_next_to_last_sigma: true, second_order: true }],
  ['DPM2 a', ['k_dpm_2_a'], { scheduler: 'karras', discard_next_to_last_sigma: true, uses_ensd: true, second_order: true }],
  ['DPM fast', ['k_dpm_fast'], { uses_ensd: true }],
  ['DPM adaptive', ['k_dpm_ad'], { uses_ensd: true }],
  ['Restart', ['restart'], { scheduler: 'karras', second_order: true }],
];
const FORGE_K_EXTRA: SamplerRow[] = [
  ['HeunPP2', ['heunpp2'], {}],
  ['IPNDM', ['ipndm'], {}],
  ['IPNDM_V', ['ipndm_v'], {}],
  ['DEIS', ['deis'], {}],
];
const TIMESTEPS: SamplerRow[] = [
  ['DDIM', ['ddim'], {}],
  ['DDIM CFG++', ['ddim_cfgpp'], {}],
  ['PLMS', ['plms'], {}],
  ['UniPC', ['unipc'], {}],
];
const LCM: SamplerRow[] = [['LCM', ['k_lcm'], {}]];
const FORGE_ALTER: SamplerRow[] = [['DDPM', ['ddpm'], {}]];

export function samplerTable(flavor: A1111Flavor): SamplerRow[] {
  return flavor === 'forge' ? [...K_DIFFUSION, ...FORGE_K_EXTRA, ...TIMESTEPS, ...LCM, ...FORGE_ALTER] : [...K_DIFFUSION, ...TIMESTEPS, ...LCM];
}

/** [name, label, aliases, default_rho, need_inner_model] of sd_schedulers.schedulers. */
const SCHEDULERS: [string, string, string[] | null, number | null, boolean][] = [
  ['automatic', 'Automatic', null, null, false],
  ['uniform', 'Uniform', null, null, true],
  ['karras', 'Karras', null, 7.0, false],
  ['exponential', 'Exponential', null, null, false],
  ['polyexponential', 'Polyexponential', null, 1.0, false],
  ['sgm_uniform', 'SGM Uniform', ['SGMUniform'], null, true],
  ['kl_optimal', 'KL Optimal', null, null, false],
  ['align_your_steps', 'Align Your Steps', null, null, false],
  ['simple', 'Simple', null, null, true],
  ['normal', 'Normal', null, null, true],
  ['ddim', 'DDIM', null, null, true],
  ['beta', 'Beta', null, null, true],
];

export function schedulerItems() {
  return SCHEDULERS.map(([name, label, aliases, rho, inner]) => ({ name, label, aliases, default_rho: rho, need_inner_model: inner }));
}

/**
 * sd_samplers.get_sampler_and_scheduler: a trailing scheduler label/name ("DPM++ 2M Karras") is
 * split off; a name that is not a sampler's exact name falls back to the first sampler
 * (DPM++ 2M) without an error; the sampler's own default scheduler reads back as "Automatic".
 */
export function resolveSampler(flavor: A1111Flavor, samplerName: string | null | undefined, schedulerName: string | null | undefined): { sampler: string; scheduler: string } {
  const table = samplerTable(flavor);
  const first = table[0]!;
  // schedulers_map holds both names and labels.
  let found = SCHEDULERS.find((row) => row[0] === schedulerName || row[1] === schedulerName) ?? SCHEDULERS[0]!;
  let name = samplerName || first[0];
  for (const row of SCHEDULERS) {
    const option = [row[1], row[0], ...(row[2] ?? [])].find((candidate) => name.endsWith(` ${candidate}`));
    if (option) {
      found = row;
      name = name.slice(0, -(option.length + 1));
    }
  }
  const sampler = table.find((row) => row[0] === name) ?? first;
  if (sampler[2].scheduler === found[0]) found = SCHEDULERS[0]!;
  return { sampler: sampler[0], scheduler: found[1] };
}

/** Latent upscale modes (shared.latent_upscale_modes) and the upscalers a stock install lists. */
export const LATENT_UPSCALE_MODES = ['Latent', 'Latent (antialiased)', 'Latent (bicubic)', 'Latent (bicubic antialiased)', 'Latent (nearest)', 'Latent (nearest-exact)'];
export const UPSCALERS = ['None', 'Lanczos', 'Nearest', 'DAT x2', 'DAT x3', 'DAT x4', 'ESRGAN_4x', 'LDSR', 'R-ESRGAN 4x+', 'R-ESRGAN 4x+ Anime6B', 'ScuNET', 'ScuNET PSNR', 'SwinIR_4x'];

/** Options a stock install has (opts.data_labels keys the emulator knows; others are a KeyError, as opts.set raises). */
export function defaultOptions(flavor: A1111Flavor, checkpoint: Checkpoint): Record<string, unknown> {
  const common: Record<string, unknown> = {
    samples_save: true,
    samples_format: 'png',
    save_images_add_number: true,
    grid_save: true,
    grid_format: 'png',
    return_grid: true,
    n_rows: -1,
    grid_only_if_multiple: true,
    enable_pnginfo: true,
    jpeg_quality: 80,
    webp_lossless: false,
    img2img_fix_steps: false,
    img2img_color_correction: false,
    initial_noise_multiplier: 1.0,
    sd_model_checkpoint: checkpoint.title,
    sd_checkpoint_hash: checkpoint.sha256 ?? '',
    sd_checkpoints_limit: 1,
    sd_vae: 'Automatic',
    CLIP_stop_at_last_layers: 1,
    eta_noise_seed_delta: 0,
    live_previews_enable: true,
    show_progress_every_n_steps: 10,
    show_progress_type: 'Approx NN',
    live_previews_image_format: 'png',
    add_model_hash_to_info: true,
    add_model_name_to_info: true,
    add_version_to_infotext: true,
    api_enable_requests: true,
    api_forbid_local_requests: true,
    api_useragent: '',
    face_restoration: false,
    face_restoration_model: 'CodeFormer',
    tiling: false,
    hide_samplers: [],
  };
  if (flavor === 'forge') {
    return { ...common, forge_preset: 'sd', forge_additional_modules: [], forge_unet_storage_dtype: 'Automatic', forge_inference_memory: 1024, forge_async_loading: 'Queue', forge_pin_shared_memory: 'CPU' };
  }
  return common;
}

/** GET /sdapi/v1/cmd-flags: vars(shared.cmd_opts), the flags an API client looks at. */
export function cmdFlags(flavor: A1111Flavor, port: number, apiAuth: string | undefined): Record<string, unknown> {
  const root = flavor === 'forge' ? '/opt/stable-diffusion-webui-forge' : '/opt/stable-diffusion-webui';
  return {
    api: true,
    api_auth: apiAuth ?? null,
    api_log: false,
    nowebui: false,
    listen: false,
    port,
    ckpt: null,
    ckpt_dir: null,
    data_dir: root,
    models_dir: null,
    xformers: false,
    medvram: false,
    lowvram: false,
    no_half: false,
    skip_torch_cuda_test: false,
    api_server_stop: false,
    timeout_keep_alive: 30,
    disable_model_loading_ram_optimization: false,
  };
}

/** Python's repr() of a str (the quote choice of str.__repr__), for messages like model 'x' not found. */
export function pyRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  const body = text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t');
  return quote + (quote === "'" ? body.replace(/'/g, "\\'") : body) + quote;
}
