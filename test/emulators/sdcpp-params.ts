// stable-diffusion.cpp server: generation parameters as the server reads, clamps and checks them,
// output formats, size / frame alignment, and GET /sdcpp/v1/capabilities.
// Source followed (leejet/stable-diffusion.cpp HEAD 97d29908, examples/): common/common.h
// SDGenerationParams defaults (width = height = -1 -> 512, seed 42, batch_count 1, strength 0.75,
// video_frames 1, fps 16, sample_steps 20, txt_cfg 7), common/common.cpp from_json_str
// (load_if_exists: a key of the wrong JSON type is ignored; image fields must be base64 strings
// or data URLs, else "invalid generation parameters"), resolve(strict: batch_count clamped to
// 1..8, sample_steps to 1..100), validate (video_frames > 0, fps > 0, strength in [0, 1], ...);
// server/runtime.cpp (supported_img_output_formats png, jpeg[, webp];
// supported_vid_output_formats [webm][, webp], avi; assign_output_options: lower-cased,
// compression clamped 0..100, "invalid output_format, must be one of [...]"; video_mime_type);
// server/routes_sdcpp.cpp make_capabilities_json; src/stable-diffusion.cpp
// (align_image_size: width/height rounded UP to vae_scale_factor * diffusion_model_down_factor,
// 64 for UNet models, 16 for Wan; align_video_frames: Wan keeps 4n + 1 frames, the largest not
// above the request; sample_method_to_str, scheduler_to_str).

export type SdcppMode = 'img_gen' | 'vid_gen';
export type VideoFormat = 'webm' | 'webp' | 'avi';
export type ImageFormat = 'png' | 'jpeg' | 'webp';

export interface SdcppModel {
  path: string;
  modes: SdcppMode[];
  imageFormats: ImageFormat[];
  videoFormats: VideoFormat[];
  /** Sizes are rounded up to a multiple of this. */
  sizeMultiple: number;
  /** 'wan': 4n + 1 frames; 'none': as requested. */
  frameAlign: 'wan' | 'none';
}

export interface GenParams {
  prompt: string;
  negativePrompt: string;
  width: number;
  height: number;
  seed: number;
  batchCount: number;
  strength: number;
  videoFrames: number;
  fps: number;
  sampleSteps: number;
  cfg: number;
  images: { field: string; bytes: Buffer }[];
}

export const DEFAULT_PARAMS: GenParams = { prompt: '', negativePrompt: '', width: -1, height: -1, seed: 42, batchCount: 1, strength: 0.75, videoFrames: 1, fps: 16, sampleSteps: 20, cfg: 7, images: [] };

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/** from_json_str over `base` (a copy); false when an image field is not decodable base64. */
export function readParams(base: GenParams, j: Record<string, unknown>): GenParams | undefined {
  const p: GenParams = { ...base, images: [...base.images] };
  if (typeof j.prompt === 'string') p.prompt = j.prompt;
  if (typeof j.negative_prompt === 'string') p.negativePrompt = j.negative_prompt;
  if (isInt(j.width)) p.width = j.width;
  if (isInt(j.height)) p.height = j.height;
  if (isInt(j.batch_count)) p.batchCount = j.batch_count;
  if (isInt(j.video_frames)) p.videoFrames = j.video_frames;
  if (isInt(j.fps)) p.fps = j.fps;
  if (isInt(j.seed)) p.seed = j.seed;
  if (typeof j.strength === 'number') p.strength = j.strength;
  const sample = j.sample_params;
  if (sample && typeof sample === 'object' && !Array.isArray(sample)) {
    const s = sample as Record<string, unknown>;
    if (isInt(s.sample_steps)) p.sampleSteps = s.sample_steps;
    const guidance = s.guidance as Record<string, unknown> | undefined;
    if (guidance && typeof guidance.txt_cfg === 'number') p.cfg = guidance.txt_cfg;
  }
  for (const field of ['init_image', 'end_image', 'mask_image', 'control_image', 'ip_adapter_image']) {
    if (!(field in j) || j[field] === null) continue;
    const bytes = decodeImageField(j[field]);
    if (!bytes) return undefined;
    p.images.push({ field, bytes });
  }
  for (const field of ['ref_images', 'control_frames']) {
    const list = j[field];
    if (!(field in j) || list === null) continue;
    if (!Array.isArray(list)) return undefined;
    for (const item of list) {
      const bytes = decodeImageField(item);
      if (!bytes) return undefined;
      p.images.push({ field, bytes });
    }
  }
  return p;
}

/** decode_base64_image: text after the first ',' (data URLs), base64 -> bytes; undefined when not a string or empty. */
function decodeImageField(value: unknown): Buffer | undefined {
  if (typeof value !== 'string') return undefined;
  const comma = value.indexOf(',');
  const bytes = Buffer.from(comma === -1 ? value : value.slice(comma + 1), 'base64');
  return bytes.length > 0 ? bytes : undefined;
}

/** resolve(strict) then validate(mode); false -> "invalid generation parameters" / "invalid params". */
export function resolveAndValidate(p: GenParams, mode: SdcppMode, nextSeed: () => number): boolean {
  if (p.seed < 0) p.seed = nextSeed();
  p.batchCount = Math.min(8, Math.max(1, p.batchCount));
  p.sampleSteps = Math.min(100, Math.max(1, p.sampleSteps));
  if (p.strength < 0 || p.strength > 1 || p.cfg < 0) return false;
  if (mode === 'vid_gen' && (p.videoFrames <= 0 || p.fps <= 0)) return false;
  return true;
}

export function outputFormatProblem(format: string, allowed: readonly string[]): string | undefined {
  return allowed.includes(format) ? undefined : `invalid output_format, must be one of [${allowed.join(', ')}]`;
}

export const clampCompression = (value: unknown): number => Math.min(100, Math.max(0, isInt(value) ? value : 100));

export function videoMimeType(format: string): string {
  if (format === 'webm') return 'video/webm';
  if (format === 'webp') return 'image/webp';
  return 'video/x-msvideo';
}

/** Output size: get_resolved_width/height (512 when unset), rounded up to the model's multiple. */
export function outputSize(model: SdcppModel, p: GenParams): { width: number; height: number } {
  const up = (n: number) => Math.ceil(n / model.sizeMultiple) * model.sizeMultiple;
  return { width: up(p.width > 0 ? p.width : 512), height: up(p.height > 0 ? p.height : 512) };
}

/** align_video_frames: Wan-family models decode ((n - 1) / 4) * 4 + 1 frames. */
export function alignFrames(model: SdcppModel, requested: number): number {
  const frames = Math.max(1, requested);
  return model.frameAlign === 'wan' ? Math.floor((frames - 1) / 4) * 4 + 1 : frames;
}

export const SAMPLERS = ['euler', 'euler_a', 'heun', 'dpm2', 'dpm++2s_a', 'dpm++2m', 'dpm++2mv2', 'ipndm', 'ipndm_v', 'lcm', 'ddim_trailing', 'tcd', 'res_multistep', 'res_2s', 'er_sde', 'euler_cfg_pp', 'euler_a_cfg_pp', 'euler_ge', 'dpm++2m_sde', 'dpm++2m_sde_bt', 'lms'];
// make_capabilities_json inserts "normal" after "discrete".
const SCHEDULERS = ['discrete', 'normal', 'karras', 'exponential', 'ays', 'gits', 'sgm_uniform', 'simple', 'smoothstep', 'kl_optimal', 'lcm', 'bong_tangent', 'ltx2', 'logit_normal', 'flux2', 'flux', 'beta'];
const UPSCALERS = ['None', 'Lanczos', 'Nearest', 'Latent', 'Latent (nearest)', 'Latent (nearest-exact)', 'Latent (antialiased)', 'Latent (bicubic)', 'Latent (bicubic antialiased)'];

function sampleParamsJson() {
  return { scheduler: 'default', sample_method: 'default', sample_steps: 20, eta: null, shifted_timestep: 0, flow_shift: null, guidance: { txt_cfg: 7, img_cfg: null, distilled_guidance: 3.5, slg: { layers: [7, 8, 9], layer_start: 0.01, layer_end: 0.2, scale: 0 } } };
}

function defaultsJson(mode: SdcppMode, outputFormat: string) {
  const common = { prompt: '', negative_prompt: '', clip_skip: -1, width: 512, height: 512, strength: 0.75, seed: 42 };
  const hires = { enabled: false, upscaler: 'Latent', scale: 2, target_width: 0, target_height: 0, steps: 0, denoising_strength: 0.7, custom_sigmas: [], upscale_tile_size: 128 };
  const tiling = { enabled: false, temporal_tiling: false, tile_size_x: 0, tile_size_y: 0, target_overlap: 0.5, rel_size_x: 0, rel_size_y: 0, extra_tiling_args: '' };
  const tail = { hires, vae_tiling_params: tiling, cache_mode: '', cache_option: '', scm_mask: '', scm_policy_dynamic: true, output_format: outputFormat, output_compression: 100 };
  if (mode === 'img_gen') {
    return { ...common, batch_count: 1, qwen_image_layers: 3, auto_resize_ref_image: true, increase_ref_index: false, control_strength: 0.9, ip_adapter_strength: 1, sample_params: sampleParamsJson(), ...tail };
  }
  return { ...common, video_frames: 1, fps: 16, moe_boundary: 0.875, vace_strength: 1, sample_params: sampleParamsJson(), high_noise_sample_params: { ...sampleParamsJson(), sample_steps: -1 }, ...tail };
}

function featuresJson(mode: SdcppMode) {
  if (mode === 'img_gen') return { init_image: true, mask_image: true, control_image: true, ip_adapter_image: true, ref_images: true, lora: true, vae_tiling: true, hires: true, cache: true, cancel_queued: true, cancel_generating: false };
  return { init_image: true, end_image: true, control_frames: true, high_noise_sample_params: true, lora: true, vae_tiling: true, cache: true, cancel_queued: true, cancel_generating: false };
}

/** GET /sdcpp/v1/capabilities. */
export function capabilitiesJson(model: SdcppModel, maxQueue: number) {
  const name = model.path.split('/').pop() ?? model.path;
  const formats = { img_gen: model.imageFormats, vid_gen: model.videoFormats };
  const byMode = <T>(make: (mode: SdcppMode) => T) => Object.fromEntries(model.modes.map((mode) => [mode, make(mode)]));
  const current = model.modes.includes('img_gen') ? 'img_gen' : model.modes.includes('vid_gen') ? 'vid_gen' : '';
  const defaultsByMode = byMode((mode) => defaultsJson(mode, formats[mode][0] ?? (mode === 'img_gen' ? 'png' : 'avi')));
  return {
    model: { name, stem: name.replace(/\.[^.]*$/, ''), path: model.path },
    current_mode: current,
    supported_modes: model.modes,
    defaults: current ? defaultsByMode[current] : {},
    defaults_by_mode: defaultsByMode,
    limits: { min_width: 64, max_width: 4096, min_height: 64, max_height: 4096, max_batch_count: 8, max_queue_size: maxQueue },
    samplers: SAMPLERS,
    schedulers: SCHEDULERS,
    output_formats: current ? formats[current] : [],
    output_formats_by_mode: byMode((mode) => formats[mode]),
    features: current ? featuresJson(current) : { cancel_queued: true, cancel_generating: false },
    features_by_mode: byMode(featuresJson),
    loras: [],
    upscalers: UPSCALERS.map((n) => ({ name: n })),
  };
}

/** get_image_params: the "parameters" text embedded in each image. */
export function imageParamsText(model: SdcppModel, p: GenParams, seed: number): string {
  const f = (n: number) => (Number.isFinite(n) ? n.toFixed(6) : 'inf');
  const negative = p.negativePrompt ? `Negative prompt: ${p.negativePrompt}\n` : '';
  const size = `${p.width > 0 ? p.width : 512}x${p.height > 0 ? p.height : 512}`;
  return `${p.prompt}\n${negative}Steps: ${p.sampleSteps}, CFG scale: ${f(p.cfg)}, Guidance: ${f(3.5)}, Eta: inf, Seed: ${seed}, Size: ${size}, Model: ${model.path.split('/').pop()}, RNG: cuda, Sampler: NONE`;
}
