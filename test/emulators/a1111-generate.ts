// process_images for the emulator: override_settings, the checkpoint that generates, the
// iteration loop over n_iter batches, and the TextToImageResponse / ImageToImageResponse body.
// Source followed: modules/processing.py process_images (override_settings: an
// sd_model_checkpoint that checkpoint_aliases does not know is popped, silently, and the current
// checkpoint generates; other keys go through opts.set (unknown key -> KeyError -> 500); restored
// afterwards unless override_settings_restore_afterwards is false), process_images_inner,
// StableDiffusionProcessingImg2Img.init (1 init image -> batch_size copies; up to batch_size ->
// batch_size = len; more -> RuntimeError "bad number of images passed"),
// StableDiffusionProcessingTxt2Img.init (unknown hr_upscaler -> Exception "could not find upscaler
// named x"; job_count doubled), sample_hr_pass (skipped once interrupted); modules/api/api.py
// text2imgapi / img2imgapi (queue_lock, state.begin(job="scripts_txt2img"), send_images, response
// {images, parameters: vars(request), info: processed.js()}; include_init_images).
import type { A1111Flavor, Checkpoint } from './a1111-catalog.js';
import { LATENT_UPSCALE_MODES, UPSCALERS, pyRepr } from './a1111-catalog.js';
import { type A1111State, type SamplingContext, sample } from './a1111-engine.js';
import { PyFloat, gridSize, hiresSize, img2imgSamplingSteps, infotext, latentSize, outputPng, pyDumps } from './a1111-output.js';
import { encodePng } from './png.js';
import type { Mode } from './a1111-request.js';

/** A Python exception escaping the handler (answered as the flavor's 500). */
export class PyError extends Error {
  constructor(
    readonly pyType: string,
    message: string,
  ) {
    super(message);
  }
}

/** An HTTPException raised by the handler. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
  ) {
    super(detail);
  }
}

export interface InitImage {
  width: number;
  height: number;
  /** Mean colour byte, so outputs differ with the init image. */
  tint: number;
}

export interface A1111GenerationRecord {
  mode: Mode;
  /** The JSON body as received. */
  body: Record<string, unknown>;
  /** Title of the checkpoint that generated (after override_settings). */
  checkpoint: string;
  sampler: string;
  scheduler: string;
  /** The init images as the engine decoded them (img2img; empty for txt2img or before decoding). */
  initImages: InitImage[];
  /** Size of each returned image (grid excluded). */
  width: number;
  height: number;
  samplingSteps: number;
  seeds: number[];
  /** Images generated (grid excluded; counted even when send_images is false). */
  images: number;
  interrupted: boolean;
  /** 'running' until the answer is built; 'failed' when the handler raised. */
  status: 'running' | 'done' | 'failed';
}

export interface GenerateDeps {
  flavor: A1111Flavor;
  state: A1111State;
  sampling: SamplingContext;
  options: Record<string, unknown>;
  aliases: Map<string, Checkpoint>;
  currentCheckpoint(): Checkpoint;
  /** The sd_model_checkpoint value opts keeps after loading (A1111: the title; Forge: as given). */
  storedCheckpointValue(given: string): string;
  nextSeed(): number;
  version: string;
  emptyInfo: boolean;
}

export interface GenerationRequest {
  mode: Mode;
  body: Record<string, unknown>;
  /** Coerced request model (every field; mutated like the pydantic object, and echoed as `parameters`). */
  values: Record<string, unknown>;
  sampler: string;
  scheduler: string;
  initImages: InitImage[];
}

const num = (v: unknown, fallback: number) => (typeof v === 'number' ? v : fallback);

export async function processImages(deps: GenerateDeps, req: GenerationRequest, record: A1111GenerationRecord): Promise<Record<string, unknown>> {
  const { state, options } = deps;
  const values = req.values;
  const override = values.override_settings && typeof values.override_settings === 'object' ? (values.override_settings as Record<string, unknown>) : {};
  const stored: Record<string, unknown> = {};
  for (const key of Object.keys(override)) if (key in options) stored[key] = options[key];
  state.begin(req.mode === 'txt2img' ? 'scripts_txt2img' : 'scripts_img2img');
  try {
    const wanted = override.sd_model_checkpoint;
    if (typeof wanted !== 'string' || !deps.aliases.has(wanted)) delete override.sd_model_checkpoint;
    for (const [key, value] of Object.entries(override)) {
      if (!(key in options)) throw new PyError('KeyError', pyRepr(key));
      options[key] = key === 'sd_model_checkpoint' ? deps.storedCheckpointValue(String(value)) : value;
    }
    return await run(deps, req, record);
  } finally {
    if (values.override_settings_restore_afterwards !== false) Object.assign(options, stored);
    state.end();
  }
}

async function run(deps: GenerateDeps, req: GenerationRequest, record: A1111GenerationRecord) {
  const { state } = deps;
  const values = req.values;
  const checkpoint = deps.currentCheckpoint();
  record.checkpoint = checkpoint.title;
  const width = num(values.width, 512);
  const height = num(values.height, 512);
  state.previewSize = { width, height };
  const steps = num(values.steps, 50);
  const nIter = num(values.n_iter, 1);
  let batchSize = num(values.batch_size, 1);
  const denoising = num(values.denoising_strength, 0.75);
  const enableHr = req.mode === 'txt2img' && values.enable_hr === true;
  const extra: [string, unknown][] = [];

  if (req.mode === 'img2img') {
    extra.push(['Denoising strength', new PyFloat(denoising)]);
    if (req.initImages.length === 0) throw new PyError('UnboundLocalError', "local variable 'batch_images' referenced before assignment");
    if (req.initImages.length > 1 && req.initImages.length <= batchSize) batchSize = req.initImages.length;
    else if (req.initImages.length > batchSize) throw new PyError('RuntimeError', `bad number of images passed: ${req.initImages.length}; expecting ${batchSize} or less`);
  }
  let hr: { width: number; height: number; steps: number } | undefined;
  if (enableHr) {
    const upscaler = typeof values.hr_upscaler === 'string' ? values.hr_upscaler : null;
    extra.push(['Denoising strength', new PyFloat(denoising)]);
    if (upscaler !== null && !LATENT_UPSCALE_MODES.includes(upscaler) && !UPSCALERS.includes(upscaler)) throw new PyError('Exception', `could not find upscaler named ${upscaler}`);
    const rx = num(values.hr_resize_x, 0);
    const ry = num(values.hr_resize_y, 0);
    extra.push(rx === 0 && ry === 0 ? ['Hires upscale', new PyFloat(num(values.hr_scale, 2))] : ['Hires resize', `${rx}x${ry}`]);
    if (num(values.hr_second_pass_steps, 0)) extra.push(['Hires steps', values.hr_second_pass_steps]);
    if (upscaler !== null) extra.push(['Hires upscaler', upscaler]);
    hr = { ...hiresSize(width, height, num(values.hr_scale, 2), rx, ry), steps: num(values.hr_second_pass_steps, 0) || steps };
  }

  const count = nIter * batchSize;
  const seedGiven = num(values.seed, -1);
  const seed = seedGiven === -1 ? deps.nextSeed() : seedGiven;
  const subseedGiven = num(values.subseed, -1);
  const subseed = subseedGiven === -1 ? deps.nextSeed() : subseedGiven;
  const variation = num(values.subseed_strength, 0) !== 0;
  const allSeeds = Array.from({ length: count }, (_, i) => seed + (variation ? 0 : i));
  const allSubseeds = Array.from({ length: count }, (_, i) => subseed + i);
  const prompt = String(values.prompt ?? '');
  const negative = String(values.negative_prompt ?? '');
  const samplingSteps = req.mode === 'img2img' ? img2imgSamplingSteps(steps, denoising, deps.options.img2img_fix_steps === true) : steps;
  const text = (index: number) =>
    infotext({ prompt, negativePrompt: negative, steps, sampler: req.sampler, scheduler: req.scheduler, cfgScale: num(values.cfg_scale, 7), seed: allSeeds[index] ?? seed, width, height, modelHash: checkpoint.shorthash, modelName: checkpoint.nameForExtra, extra, version: deps.version });

  state.jobCount = hr ? nIter * 2 : nIter;
  const images: { png: Buffer; width: number; height: number }[] = [];
  const infotexts: string[] = [];
  let outW = latentSize(width);
  let outH = latentSize(height);
  for (let n = 0; n < nIter; n++) {
    if (state.skipped) state.skipped = false;
    if (state.interrupted || state.stoppingGeneration) break;
    if (nIter > 1) state.job = `Batch ${n + 1} out of ${nIter}`;
    await sample(deps.sampling, samplingSteps);
    outW = latentSize(width);
    outH = latentSize(height);
    if (hr && !state.interrupted) {
      state.nextjob();
      await sample(deps.sampling, hr.steps);
      outW = hr.width;
      outH = hr.height;
    }
    for (let i = 0; i < batchSize; i++) {
      const index = n * batchSize + i;
      const tint = req.initImages[Math.min(i, req.initImages.length - 1)]?.tint ?? 0;
      const t = text(index);
      infotexts.push(t);
      images.push({ png: outputPng(outW, outH, allSeeds[index] ?? seed, tint, t), width: outW, height: outH });
    }
    state.nextjob();
  }
  if (infotexts.length === 0) infotexts.push(text(0));

  const pngs = images.map((image) => image.png);
  let indexOfFirst = 0;
  const saveGrid = values.save_images === true && images.length >= 2 && deps.options.return_grid !== false;
  if (saveGrid) {
    const grid = gridSize(images.length, outW, outH);
    const t = text(0);
    pngs.unshift(outputPng(grid.width, grid.height, seed, 0, t));
    infotexts.unshift(t);
    indexOfFirst = 1;
  }

  const info = {
    prompt,
    all_prompts: Array(count).fill(prompt),
    negative_prompt: negative,
    all_negative_prompts: Array(count).fill(negative),
    seed,
    all_seeds: allSeeds,
    subseed,
    all_subseeds: allSubseeds,
    subseed_strength: new PyFloat(num(values.subseed_strength, 0)),
    width,
    height,
    sampler_name: req.sampler,
    cfg_scale: new PyFloat(num(values.cfg_scale, 7)),
    steps,
    batch_size: batchSize,
    restore_faces: values.restore_faces ?? deps.options.face_restoration ?? false,
    face_restoration_model: values.restore_faces === true ? deps.options.face_restoration_model : null,
    sd_model_name: checkpoint.nameForExtra,
    sd_model_hash: checkpoint.shorthash,
    sd_vae_name: null,
    sd_vae_hash: null,
    seed_resize_from_w: num(values.seed_resize_from_w, -1),
    seed_resize_from_h: num(values.seed_resize_from_h, -1),
    denoising_strength: values.denoising_strength === null ? null : new PyFloat(denoising),
    extra_generation_params: Object.fromEntries(extra),
    index_of_first_image: indexOfFirst,
    infotexts,
    styles: values.styles ?? [],
    job_timestamp: state.jobTimestamp,
    clip_skip: num(deps.options.CLIP_stop_at_last_layers, 1),
    is_using_inpainting_conditioning: false,
    version: deps.version,
  };
  const parameters = { ...values };
  if (req.mode === 'img2img' && values.include_init_images !== true) {
    parameters.init_images = null;
    parameters.mask = null;
  }
  const body = {
    images: values.send_images === false ? [] : pngs.map((png) => png.toString('base64')),
    parameters,
    info: deps.emptyInfo ? '' : pyDumps(info),
  };
  Object.assign(record, { checkpoint: checkpoint.title, width: outW, height: outH, samplingSteps, seeds: allSeeds, images: images.length, interrupted: state.interrupted, status: 'done' });
  return body;
}

/** The live preview /progress returns (state.current_image): the current output size, seed-tinted. */
export function previewPng(width: number, height: number, step: number): Buffer {
  return encodePng(latentSize(width), latentSize(height), { seed: step * 13 });
}
