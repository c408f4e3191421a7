// stable-diffusion.cpp's sd-server (examples/server) as a loopback emulator for integration tests.
// Source followed (leejet/stable-diffusion.cpp HEAD 97d29908): examples/server/main.cpp (one
// httplib server; a pre-routing handler adds Access-Control-Allow-Origin (the request's Origin or
// *), -Credentials, -Methods, -Headers to every answer and answers OPTIONS with 204; no auth; one
// async worker thread; unknown routes: httplib's bare 404), routes_index.cpp (GET /),
// routes_openai.cpp, routes_sdcpp.cpp, async_jobs.{h,cpp}, runtime.{h,cpp}, common/common.{h,cpp},
// common/media_io.cpp, src/stable-diffusion.cpp; see sdcpp-routes.ts, sdcpp-jobs.ts,
// sdcpp-params.ts, sdcpp-media.ts, avi-mjpeg.ts. Not emulated: the server's A1111-compatible
// /sdapi/v1/* routes (routes_sdapi.cpp) and LoRA / hires files.
// A model generates either images or videos (sd_version_supports_image_generation is
// !supports_video_generation): the default mode follows the model file name (wan / ltx /
// hunyuan -> vid_gen). Guess: down() is a process restart (every job is lost: 404 afterwards).
import type { Fault, FaultRoute, RecordedRequest } from './types.js';
import { type Reply, json } from './http-kit.js';
import { Gate, Mutex, NO_REPLY, ServerRestarted, pause, startRestartableServer } from './restartable-server.js';
import { type GenParams, type ImageFormat, type SdcppModel, type SdcppMode, type VideoFormat, alignFrames, capabilitiesJson, imageParamsText, outputSize, videoMimeType } from './sdcpp-params.js';
import { JobManager, type SdcppJob, type SdcppJobResult } from './sdcpp-jobs.js';
import { encodeImage, encodeVideo } from './sdcpp-media.js';
import { type RouteDeps, type SdcppImageRecord, flat, handleEdits, handleGenerations, handleJob, handleSubmit } from './sdcpp-routes.js';

export type { SdcppJob, SdcppImageRecord, SdcppModel, SdcppMode };

export interface SdcppEmulatorOptions {
  /** Model path (--model / --diffusion-model), shown by /sdcpp/v1/capabilities (default /models/sd_xl_base_1.0.safetensors). */
  model?: string;
  capabilities?: {
    /** Default: ['vid_gen'] for Wan / LTX / Hunyuan file names, else ['img_gen']. */
    modes?: SdcppMode[];
    /** Default ['webm', 'webp', 'avi'] (a build with the libwebp and libwebm submodules). */
    videoFormats?: VideoFormat[];
    /** Default ['png', 'jpeg', 'webp']. */
    imageFormats?: ImageFormat[];
    /** Default: 16 for video (Wan) models, 64 for UNet image models. */
    sizeMultiple?: number;
    /** Default: 'wan' (4n + 1 frames) for video models. */
    frameAlign?: 'wan' | 'none';
  };
  /** Real time per sampling step (default 0: one macrotask per step). */
  stepDelayMs?: number;
  /** max_pending_jobs (queued + generating), default 64. */
  queueLimit?: number;
  /** completed/failed_ttl_seconds, in ms (default 600 000). */
  jobTtlMs?: number;
}

export interface SdcppFailOptions {
  /** Which requests a numeric failure hits: 'generation' (the four generation routes, default), '*' or a route name. */
  route?: string;
  /** The "error" text (default by status). */
  error?: string;
  message?: string;
  times?: number;
}

export interface SdcppEmulator {
  origin: string;
  routes: readonly string[];
  requests: RecordedRequest[];
  model: SdcppModel;
  /** POST /v1/images/generations and /v1/images/edits, with how they were answered. */
  generations: SdcppImageRecord[];
  edits: SdcppImageRecord[];
  /** Jobs accepted by POST /sdcpp/v1/img_gen and /sdcpp/v1/vid_gen (live objects). */
  imageJobs: SdcppJob[];
  videoJobs: SdcppJob[];
  /** Job ids POSTed to /sdcpp/v1/jobs/{id}/cancel. */
  cancels: string[];
  jobs: JobManager;
  setStepDelay(ms: number): void;
  /** A status: the next matching request answers it with a flat {"error"} body. 'generation': the next generation returns no results (500 / failed job). */
  failNext(what: number | 'generation', options?: SdcppFailOptions): void;
  /** The worker takes no queued job until release() (jobs stay "queued"); `reached` once a job waits. */
  holdJobs(): Gate;
  /** The next generation pauses once `steps` sampling steps are done (its job reads "generating"). */
  holdAt(steps: number): Gate;
  /** Expires a job now, as the TTL purge does: 410 from then on. */
  expire(jobId: string): boolean;
  inject(route: FaultRoute, fault: Fault): void;
  clearFaults(): void;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export const SDCPP_ROUTES = ['GET /', 'GET /v1/models', 'POST /v1/images/generations', 'POST /v1/images/edits', 'GET /sdcpp/v1/capabilities', 'POST /sdcpp/v1/img_gen', 'POST /sdcpp/v1/vid_gen', 'GET /sdcpp/v1/jobs/:id', 'POST /sdcpp/v1/jobs/:id/cancel'] as const;
const GENERATION_ROUTES = new Set(['POST /v1/images/generations', 'POST /v1/images/edits', 'POST /sdcpp/v1/img_gen', 'POST /sdcpp/v1/vid_gen']);

export async function startSdcppEmulator(options: SdcppEmulatorOptions = {}): Promise<SdcppEmulator> {
  const path = options.model ?? '/models/sd_xl_base_1.0.safetensors';
  const video = /wan|ltx|hunyuan|lingbot/i.test(path.split('/').pop() ?? path);
  const caps = options.capabilities ?? {};
  const model: SdcppModel = {
    path,
    modes: caps.modes ?? [video ? 'vid_gen' : 'img_gen'],
    imageFormats: caps.imageFormats ?? ['png', 'jpeg', 'webp'],
    videoFormats: caps.videoFormats ?? ['webm', 'webp', 'avi'],
    sizeMultiple: caps.sizeMultiple ?? (video ? 16 : 64),
    frameAlign: caps.frameAlign ?? (video ? 'wan' : 'none'),
  };
  let stepDelay = options.stepDelayMs ?? 0;
  let epoch = 0;
  let stepHold: { steps: number; gate: Gate } | undefined;
  const gates = new Set<Gate>();
  const failures: { what: number | 'generation'; opts: SdcppFailOptions; left: number }[] = [];
  const lock = new Mutex();
  let seedCounter = 0x5eed;
  const nextSeed = () => (seedCounter = (Math.imul(seedCounter, 1103515245) + 12345) & 0x7fffffff);

  function takeFailure(match: (f: (typeof failures)[number]) => boolean) {
    const index = failures.findIndex(match);
    const failure = failures[index];
    if (failure && --failure.left <= 0) failures.splice(index, 1);
    return failure;
  }

  /** The sampling loop: steps in real (small) time, abandoned if the server restarts. */
  async function sample(steps: number, onStep: (done: number) => void): Promise<void> {
    const mine = epoch;
    for (let done = 1; done <= steps; done++) {
      await pause(stepDelay);
      if (epoch !== mine) throw new ServerRestarted();
      onStep(done);
      if (stepHold && stepHold.steps === done) {
        const gate = stepHold.gate;
        stepHold = undefined;
        await gate.wait();
        if (epoch !== mine) throw new ServerRestarted();
      }
    }
  }

  const noResults = (what: string) => takeFailure((f) => f.what === 'generation') !== undefined && new Error(`${what} returned no results`);

  async function generateImages(params: GenParams, format: ImageFormat, compression: number) {
    return lock.run(async () => {
      await sample(params.sampleSteps, () => undefined);
      const failed = noResults('generate_image');
      if (failed) throw failed;
      const { width, height } = outputSize(model, params);
      const images = await Promise.all(
        Array.from({ length: params.batchCount }, (_, i) => encodeImage(format, width, height, params.seed + i, imageParamsText(model, params, params.seed + i), compression)),
      );
      return { images, width, height };
    });
  }

  async function execute(job: SdcppJob): Promise<SdcppJobResult> {
    await sample(job.params.sampleSteps, (done) => (job.step = done));
    const failed = noResults(job.kind === 'vid_gen' ? 'generate_video' : 'generate_image');
    if (failed) throw failed;
    const { width, height } = outputSize(model, job.params);
    if (job.kind === 'img_gen') {
      const p = job.params;
      const images = await Promise.all(Array.from({ length: p.batchCount }, (_, i) => encodeImage(job.outputFormat as ImageFormat, width, height, p.seed + i, imageParamsText(model, p, p.seed + i), job.compression)));
      return { images: images.map((b) => b.toString('base64')) };
    }
    const frames = alignFrames(model, job.params.videoFrames);
    const bytes = await encodeVideo(job.outputFormat as VideoFormat, frames, width, height, job.params.fps, job.compression).catch(() => {
      throw new Error('failed to encode generated video container');
    });
    return { media: { b64: bytes.toString('base64'), mimeType: videoMimeType(job.outputFormat), frameCount: frames, fps: job.params.fps } };
  }

  const jobs = new JobManager({ maxPending: () => options.queueLimit ?? 64, ttlMs: () => options.jobTtlMs ?? 600_000, execute, lock });
  const deps: RouteDeps = { model, jobs, nextSeed, generateImages, generations: [], edits: [], imageJobs: [], videoJobs: [], cancels: [] };

  function route(method: string, pathname: string): { name: string; handle: (ctx: Parameters<typeof handleEdits>[1]) => Promise<Reply> | Reply } | undefined {
    const key = `${method} ${pathname}`;
    if (key === 'GET /') return { name: key, handle: () => ({ status: 200, headers: { 'content-type': 'text/html' }, body: Buffer.from('Stable Diffusion Server is running') }) };
    if (key === 'GET /v1/models') return { name: key, handle: () => json(200, { data: [{ id: 'sd-cpp-local', object: 'model', owned_by: 'local' }] }) };
    if (key === 'POST /v1/images/generations') return { name: key, handle: (ctx) => handleGenerations(deps, ctx) };
    if (key === 'POST /v1/images/edits') return { name: key, handle: (ctx) => handleEdits(deps, ctx) };
    if (key === 'GET /sdcpp/v1/capabilities') return { name: key, handle: () => json(200, capabilitiesJson(model, options.queueLimit ?? 64)) };
    if (key === 'POST /sdcpp/v1/img_gen') return { name: key, handle: (ctx) => handleSubmit(deps, ctx, 'img_gen') };
    if (key === 'POST /sdcpp/v1/vid_gen') return { name: key, handle: (ctx) => handleSubmit(deps, ctx, 'vid_gen') };
    const job = /^\/sdcpp\/v1\/jobs\/([A-Za-z0-9_-]+)(\/cancel)?$/.exec(pathname);
    if (job?.[1] && method === (job[2] ? 'POST' : 'GET')) {
      const id = job[1];
      return { name: job[2] ? 'POST /sdcpp/v1/jobs/:id/cancel' : 'GET /sdcpp/v1/jobs/:id', handle: () => handleJob(deps, id, Boolean(job[2])) };
    }
    return undefined;
  }

  const server = await startRestartableServer({
    knownRoutes: SDCPP_ROUTES,
    resolve(method, pathname) {
      const found = route(method, pathname);
      const name = found?.name ?? (method === 'OPTIONS' ? 'OPTIONS *' : 'unknown');
      return {
        route: name,
        handle: async (ctx) => {
          const origin = ctx.req.headers.origin;
          const cors = { 'access-control-allow-origin': typeof origin === 'string' && origin ? origin : '*', 'access-control-allow-credentials': 'true', 'access-control-allow-methods': '*', 'access-control-allow-headers': '*' };
          let reply: Reply;
          if (method === 'OPTIONS') reply = { status: 204, headers: {}, body: Buffer.alloc(0) };
          else if (!found) reply = { status: 404, headers: {}, body: Buffer.alloc(0) };
          else {
            const failure = takeFailure((f) => typeof f.what === 'number' && (f.opts.route === '*' || f.opts.route === name || ((f.opts.route ?? 'generation') === 'generation' && GENERATION_ROUTES.has(name))));
            if (failure && typeof failure.what === 'number') {
              const status = failure.what;
              const error = failure.opts.error ?? (status === 429 ? 'job queue is full' : status >= 500 ? 'server_error' : status === 404 ? 'job not found' : 'invalid generation parameters');
              reply = flat(status, error, failure.opts.message ? { message: failure.opts.message } : {});
            } else {
              try {
                reply = await found.handle(ctx);
              } catch (error) {
                if (error instanceof ServerRestarted) return NO_REPLY;
                throw error;
              }
            }
          }
          return { ...reply, headers: { ...reply.headers, ...cors } };
        },
      };
    },
    notFound: () => ({ status: 404, headers: {}, body: Buffer.alloc(0) }),
    errorReply: (status, message) => flat(status, status >= 500 ? 'server_error' : 'error', message ? { message } : {}),
  });

  function restart(): void {
    epoch += 1;
    stepHold = undefined;
    for (const gate of gates) gate.release();
    gates.clear();
    jobs.reset();
  }

  return {
    origin: server.origin,
    routes: SDCPP_ROUTES,
    requests: server.requests,
    model,
    generations: deps.generations,
    edits: deps.edits,
    imageJobs: deps.imageJobs as SdcppJob[],
    videoJobs: deps.videoJobs as SdcppJob[],
    cancels: deps.cancels,
    jobs,
    setStepDelay: (ms) => (stepDelay = ms),
    failNext: (what, o = {}) => failures.push({ what, opts: o, left: o.times ?? 1 }),
    holdJobs: () => {
      const gate = jobs.holdStart();
      gates.add(gate);
      return gate;
    },
    holdAt: (steps) => {
      stepHold = { steps, gate: new Gate() };
      gates.add(stepHold.gate);
      return stepHold.gate;
    },
    expire: (jobId) => jobs.expireNow(jobId),
    inject: (r, fault) => server.faults.inject(r, fault),
    clearFaults: () => server.faults.clear(),
    down: async () => {
      restart();
      await server.down();
    },
    up: () => server.up(),
    close: async () => {
      restart();
      await server.close();
    },
  };
}
