// shared.state and the sampling loop of one generation, stepped in real (small) time so
// /sdapi/v1/progress can be watched, with a gate to pause at a chosen step.
// Source followed: modules/shared_state.py (State.begin: job_count = -1, job_no = 0, sampling_step
// = 0, interrupted/skipped reset, job_timestamp; end: job = "", job_count = 0 (interrupted and
// sampling_step(s) stay); nextjob: job_no += 1, sampling_step = 0; interrupt/skip only set flags;
// dict()), modules/processing.py process_images_inner (job_count = n_iter, or 2*n_iter with hires
// fix; per iteration: `if state.skipped: state.skipped = False`, `if state.interrupted: break`,
// job = "Batch n out of N" when n_iter > 1, sample, decode, nextjob), modules/sd_samplers_common.py
// (launch_sampling: sampling_steps = steps, sampling_step = 0; callback_state: sampling_step = i for
// i = 0..steps-1; InterruptedException -> the last latent is returned, so an interrupted batch
// still yields its images), modules/sd_samplers_cfg_denoiser.py (each model call raises
// InterruptedException when state.interrupted or state.skipped), modules/api/api.py progressapi.
import { Gate, pause } from './restartable-server.js';

export interface StateDict {
  skipped: boolean;
  interrupted: boolean;
  stopping_generation: boolean;
  job: string;
  job_count: number;
  job_timestamp: string;
  job_no: number;
  sampling_step: number;
  sampling_steps: number;
}

/** The restart of the engine (emulator down()) ends a running generation with this. */
export class EngineRestarted extends Error {}

export class A1111State {
  skipped = false;
  interrupted = false;
  stoppingGeneration = false;
  job = '';
  jobCount = 0;
  jobTimestamp = '0';
  jobNo = 0;
  samplingStep = 0;
  samplingSteps = 0;
  timeStart = 0;
  textinfo: string | null = null;
  /** Whether a latent exists to preview, and the step the current preview image was made at. */
  hasLatent = false;
  currentImage: Buffer | null = null;
  currentImageStep = 0;
  /** Size of the running generation (the live preview's size). */
  previewSize = { width: 512, height: 512 };

  /** A fresh process's state (the emulator's down(): the engine restarted). */
  reset(): void {
    Object.assign(this, new A1111State());
  }

  begin(job: string): void {
    this.samplingStep = 0;
    this.timeStart = Date.now();
    this.jobCount = -1;
    this.jobNo = 0;
    const now = new Date();
    const two = (n: number) => String(n).padStart(2, '0');
    this.jobTimestamp = `${now.getFullYear()}${two(now.getMonth() + 1)}${two(now.getDate())}${two(now.getHours())}${two(now.getMinutes())}${two(now.getSeconds())}`;
    this.hasLatent = false;
    this.currentImage = null;
    this.currentImageStep = 0;
    this.skipped = false;
    this.interrupted = false;
    this.stoppingGeneration = false;
    this.textinfo = null;
    this.job = job;
  }

  end(): void {
    this.job = '';
    this.jobCount = 0;
  }

  nextjob(): void {
    this.jobNo += 1;
    this.samplingStep = 0;
    this.currentImageStep = 0;
  }

  dict(): StateDict {
    return {
      skipped: this.skipped,
      interrupted: this.interrupted,
      stopping_generation: this.stoppingGeneration,
      job: this.job,
      job_count: this.jobCount,
      job_timestamp: this.jobTimestamp,
      job_no: this.jobNo,
      sampling_step: this.samplingStep,
      sampling_steps: this.samplingSteps,
    };
  }

  /**
   * GET /sdapi/v1/progress. `preview(previewStepEvery)` makes the live preview (state.set_current_image:
   * a new one once sampling_step - current_image_sampling_step >= show_progress_every_n_steps).
   */
  progress(skipCurrentImage: boolean, everyNSteps: number, livePreviews: boolean, preview: () => Buffer) {
    if (this.jobCount === 0) {
      return { progress: 0, eta_relative: 0, state: this.dict(), current_image: null, textinfo: this.textinfo };
    }
    let progress = 0.01;
    if (this.jobCount > 0) progress += this.jobNo / this.jobCount;
    if (this.samplingSteps > 0) progress += ((1 / this.jobCount) * this.samplingStep) / this.samplingSteps;
    const sinceStart = (Date.now() - this.timeStart) / 1000;
    const eta = sinceStart / progress;
    progress = Math.min(progress, 1);
    if (livePreviews && everyNSteps !== -1 && this.hasLatent && this.samplingStep - this.currentImageStep >= everyNSteps) {
      this.currentImage = preview();
      this.currentImageStep = this.samplingStep;
    }
    const current = this.currentImage && !skipCurrentImage ? this.currentImage.toString('base64') : null;
    return { progress, eta_relative: eta - sinceStart, state: this.dict(), current_image: current, textinfo: this.textinfo };
  }
}

export interface StepHold {
  step: number;
  gate: Gate;
}

export interface SamplingContext {
  state: A1111State;
  stepDelayMs(): number;
  /** The pending holdAt() gate, taken by the first generation that reaches its step. */
  takeHold(step: number): Gate | undefined;
  /** Throws EngineRestarted once the emulator went down after this generation began. */
  checkAlive(): void;
}

/**
 * One sampler run (launch_sampling): `steps` model calls, each preceded by the interrupt check.
 * Returns the number of completed steps (fewer when interrupted or skipped).
 */
export async function sample(ctx: SamplingContext, steps: number): Promise<number> {
  const { state } = ctx;
  state.samplingSteps = steps;
  state.samplingStep = 0;
  let done = 0;
  for (let i = 0; i < steps; i++) {
    if (state.interrupted || state.skipped) break;
    await pause(ctx.stepDelayMs());
    ctx.checkAlive();
    state.hasLatent = true;
    state.samplingStep = i;
    done = i + 1;
    const hold = ctx.takeHold(i);
    if (hold) {
      await hold.wait();
      ctx.checkAlive();
    }
  }
  return done;
}
