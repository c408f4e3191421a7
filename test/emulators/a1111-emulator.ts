// AUTOMATIC1111 / Forge WebUI API (started with --api) as a loopback emulator for integration tests.
// Source followed: AUTOMATIC1111/stable-diffusion-webui v1.10 and lllyasviel/stable-diffusion-webui-forge
// (HEAD dfdcbab6): modules/api/api.py (routes, Api.auth: HTTPBasic from --api-auth "user:pass[,..]",
// 401 "Not authenticated" / "Invalid authentication credentials" from FastAPI's HTTPBasic and
// "Incorrect username or password" from Api.auth; only routes added through add_api_route are
// protected; txt2img / img2img / progress / interrupt / skip / options / sd-models / samplers ...),
// modules/api/models.py, modules/shared_state.py, modules/processing.py, modules/sd_models.py,
// modules/sysinfo.py set_config (Forge) and Api.set_config (A1111): unknown sd_model_checkpoint ->
// RuntimeError("model 'x' not found") -> 500; modules/ui.py (/internal/ping -> {} without API
// auth); extensions-builtin/Lora (GET /sdapi/v1/loras, registered with app.get: no API auth);
// webui.py (Forge's _handle_exception). See a1111-errors.ts, a1111-engine.ts, a1111-generate.ts.
// Request order as FastAPI runs it: a body that is not JSON is a 422 before the auth dependency;
// then auth (401); then model validation (422); then the handler.
// Guess: the emulator's down() is a process restart (state and the running job are lost; options,
// which /options saves to config.json, survive).
import { type Reply, json, queryOf } from './http-kit.js';
import type { Fault, FaultRoute, RecordedRequest } from './types.js';
import { Gate, Mutex, NO_REPLY, type RequestContext, startRestartableServer } from './restartable-server.js';
import { type A1111Flavor, type Checkpoint, type CheckpointSpec, DEFAULT_CHECKPOINTS, aliasMap, cmdFlags, defaultOptions, makeCheckpoint, pyRepr, resolveSampler, sdModelItem } from './a1111-catalog.js';
import { coerce, exceptionError, httpError, jsonDecodeIssue, methodNotAllowed, notFound, validateModel, validationError } from './a1111-errors.js';
import { A1111State, EngineRestarted } from './a1111-engine.js';
import { type A1111GenerationRecord, type GenerateDeps, HttpError, PyError, previewPng, processImages } from './a1111-generate.js';
import { type Mode, requestFields, scriptProblem } from './a1111-request.js';
import { type A1111FailOptions, type A1111FailureKind, FailureQueue, checkBasicAuth, decodeImage, listingReplies, parseApiAuth } from './a1111-http.js';
import { seedSource } from './a1111-output.js';

export type { A1111FailOptions, A1111FailureKind, A1111GenerationRecord };

export interface A1111EmulatorOptions {
  flavor?: A1111Flavor;
  /** --api-auth: 'user:pass' or 'u1:p1,u2:p2'. Without it the API is open. */
  auth?: string;
  checkpoints?: (string | CheckpointSpec)[];
  /** Real time each sampling step takes (default 0: one macrotask per step). */
  stepDelayMs?: number;
  /** Answer `info: ""` instead of Processed.js(). */
  emptyInfo?: boolean;
}

export interface A1111Emulator {
  flavor: A1111Flavor;
  origin: string;
  routes: readonly string[];
  requests: RecordedRequest[];
  txt2img: A1111GenerationRecord[];
  img2img: A1111GenerationRecord[];
  /** POST /sdapi/v1/interrupt and /skip calls. */
  interrupts: number;
  skips: number;
  /** The live opts (GET /sdapi/v1/options). */
  options: Record<string, unknown>;
  checkpoints: Checkpoint[];
  state: A1111State;
  setStepDelay(ms: number): void;
  /** The next matching request answers `status` in the flavor's shape (default kind: 422 validation, 500 exception, else http). */
  failNext(status: number, kind?: A1111FailureKind, options?: A1111FailOptions): void;
  /** Pauses the next generation once its sampler reports step `step` (0-based); release() lets it go on. */
  holdAt(step: number): Gate;
  inject(route: FaultRoute, fault: Fault): void;
  clearFaults(): void;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

type Handler = (ctx: RequestContext, body: unknown) => Promise<Reply> | Reply;
interface Route {
  auth: boolean;
  json?: boolean;
  handle: Handler;
}

export async function startA1111Emulator(options: A1111EmulatorOptions = {}): Promise<A1111Emulator> {
  const flavor = options.flavor ?? 'a1111';
  const checkpoints = (options.checkpoints ?? DEFAULT_CHECKPOINTS).map((spec) => makeCheckpoint(spec, flavor));
  if (checkpoints.length === 0) throw new Error('at least one checkpoint');
  const aliases = aliasMap(checkpoints);
  const opts = defaultOptions(flavor, checkpoints[0]!);
  const credentials = parseApiAuth(options.auth);
  const state = new A1111State();
  const queueLock = new Mutex();
  const failures = new FailureQueue(flavor);
  const txt2img: A1111GenerationRecord[] = [];
  const img2img: A1111GenerationRecord[] = [];
  const counters = { interrupts: 0, skips: 0 };
  let stepDelay = options.stepDelayMs ?? 0;
  let hold: { step: number; gate: Gate } | undefined;
  /** Gates handed out by holdAt(); a restart releases them so the aborted generation can unwind. */
  const gates = new Set<Gate>();
  let epoch = 0;
  const version = flavor === 'forge' ? 'f2.0.1v1.10.1-previous-669-gdfdcbab6' : 'v1.10.1';
  const nextSeed = seedSource();
  let port = 0;

  const current = () => aliases.get(String(opts.sd_model_checkpoint)) ?? checkpoints[0]!;
  const storedValue = (given: string) => (flavor === 'a1111' ? (aliases.get(given)?.title ?? given) : given);
  const http = (e: HttpError) => httpError(flavor, e.status, e.detail);

  function deps(myEpoch: number): GenerateDeps {
    return {
      flavor,
      state,
      options: opts,
      aliases,
      currentCheckpoint: current,
      storedCheckpointValue: storedValue,
      nextSeed,
      version,
      emptyInfo: options.emptyInfo === true,
      sampling: {
        state,
        stepDelayMs: () => stepDelay,
        takeHold: (step) => {
          if (!hold || hold.step !== step) return undefined;
          const gate = hold.gate;
          hold = undefined;
          return gate;
        },
        checkAlive: () => {
          if (epoch !== myEpoch) throw new EngineRestarted();
        },
      },
    };
  }

  const generate =
    (mode: Mode): Handler =>
    async (ctx, raw) => {
      const checked = validateModel(flavor, requestFields(flavor, mode), raw);
      if ('issues' in checked) return validationError(flavor, checked.issues);
      const failure = failures.take(`POST /sdapi/v1/${mode}`);
      if (failure) return failure;
      const values = checked.values;
      try {
        if (mode === 'img2img' && values.init_images === null) throw new HttpError(404, 'Init image not found');
        if (typeof values.mask === 'string' && values.mask) await decodeImage(values.mask);
        const problem = scriptProblem(flavor, mode, values);
        if (problem) throw new HttpError(422, problem);
        const { sampler, scheduler } = resolveSampler(flavor, (values.sampler_name as string | null) || (values.sampler_index as string | null), values.scheduler as string | null);
        const record: A1111GenerationRecord = { mode, body: raw as Record<string, unknown>, checkpoint: '', sampler, scheduler, initImages: [], width: 0, height: 0, samplingSteps: 0, seeds: [], images: 0, interrupted: false, status: 'running' };
        (mode === 'txt2img' ? txt2img : img2img).push(record);
        const myEpoch = epoch;
        try {
          return await queueLock.run(async () => {
            const initImages = mode === 'img2img' ? await Promise.all((values.init_images as unknown[]).map((x) => decodeImage(String(x)))) : [];
            record.initImages = initImages;
            if (epoch !== myEpoch) throw new EngineRestarted();
            return json(200, await processImages(deps(myEpoch), { mode, body: record.body, values, sampler, scheduler, initImages }, record));
          });
        } catch (error) {
          record.status = 'failed';
          throw error;
        }
      } catch (error) {
        if (error instanceof EngineRestarted) return NO_REPLY;
        if (error instanceof HttpError) return http(error);
        if (error instanceof PyError) return exceptionError(flavor, error.pyType, error.message);
        throw error;
      }
    };

  function setOptions(raw: unknown): Reply | Promise<Reply> {
    const checked = validateModel(flavor, {}, raw);
    if ('issues' in checked) return validationError(flavor, checked.issues);
    const req = raw as Record<string, unknown>;
    const wanted = req.sd_model_checkpoint;
    const apply = (): Reply => {
      if (wanted !== undefined && wanted !== null && !aliases.has(String(wanted))) return exceptionError(flavor, 'RuntimeError', `model ${pyRepr(String(wanted))} not found`);
      for (const [key, value] of Object.entries(req)) {
        if (!(key in opts)) return exceptionError(flavor, 'KeyError', pyRepr(key));
        opts[key] = key === 'sd_model_checkpoint' && value !== null ? storedValue(String(value)) : value;
      }
      return json(200, null);
    };
    // A1111's sd_model_checkpoint onchange is wrap_queued_call(reload_model_weights): it waits for a running generation.
    const changes = wanted !== undefined && aliases.get(String(wanted)) !== current();
    return flavor === 'a1111' && changes ? queueLock.run(async () => apply()) : apply();
  }

  const routes: Record<string, Route> = {
    'POST /sdapi/v1/txt2img': { auth: true, json: true, handle: generate('txt2img') },
    'POST /sdapi/v1/img2img': { auth: true, json: true, handle: generate('img2img') },
    'GET /sdapi/v1/progress': {
      auth: true,
      handle: (ctx) => {
        const raw = queryOf(ctx.path).get('skip_current_image');
        const skip = raw === null ? { value: false } : coerce('skip_current_image', 'bool', raw);
        if ('issue' in skip) return validationError(flavor, [{ ...skip.issue, loc: ['query', 'skip_current_image'] }]);
        const every = Number(opts.show_progress_every_n_steps);
        return json(200, state.progress(skip.value === true, every, opts.live_previews_enable === true, () => previewPng(state.previewSize.width, state.previewSize.height, state.samplingStep)));
      },
    },
    'POST /sdapi/v1/interrupt': {
      auth: true,
      handle: () => {
        counters.interrupts += 1;
        state.interrupted = true;
        return json(200, {});
      },
    },
    'POST /sdapi/v1/skip': {
      auth: true,
      handle: () => {
        counters.skips += 1;
        state.skipped = true;
        return json(200, null);
      },
    },
    'GET /sdapi/v1/options': { auth: true, handle: () => json(200, opts) },
    'POST /sdapi/v1/options': { auth: true, json: true, handle: (_ctx, body) => setOptions(body) },
    'GET /sdapi/v1/cmd-flags': { auth: true, handle: () => json(200, cmdFlags(flavor, port, options.auth)) },
    'GET /sdapi/v1/sd-models': { auth: true, handle: () => json(200, checkpoints.map(sdModelItem)) },
    ...Object.fromEntries(Object.entries(listingReplies(flavor)).map(([key, reply]) => [key, { auth: true, handle: reply }])),
    'GET /sdapi/v1/loras': { auth: false, handle: () => json(200, []) },
    'GET /internal/ping': { auth: false, handle: () => json(200, {}) },
  };
  const routeNames = Object.keys(routes);

  function restart(): void {
    epoch += 1;
    hold = undefined;
    for (const gate of gates) gate.release();
    gates.clear();
  }

  const server = await startRestartableServer({
    knownRoutes: routeNames,
    resolve(method, pathname) {
      const key = `${method} ${pathname}`;
      const route = routes[key];
      if (!route) {
        const allowed = routeNames.filter((name) => name.endsWith(` ${pathname}`)).map((name) => name.split(' ')[0]);
        return allowed.length > 0 ? { route: key, handle: () => methodNotAllowed(allowed.join(', ')) } : undefined;
      }
      return {
        route: key,
        handle: async (ctx) => {
          let body: unknown;
          if (route.json) {
            const text = ctx.body.toString('utf8');
            try {
              body = text.length === 0 ? undefined : JSON.parse(text);
            } catch (error) {
              return validationError(flavor, [jsonDecodeIssue(error, text)]);
            }
          }
          const denied = route.auth ? checkBasicAuth(flavor, credentials, ctx.req) : undefined;
          if (denied) return denied;
          if (!/\/sdapi\/v1\/(txt2img|img2img)$/.test(key)) {
            const failure = failures.take(key);
            if (failure) return failure;
          }
          return route.handle(ctx, body);
        },
      };
    },
    notFound: () => notFound(),
    errorReply: (status, message) => (status >= 500 ? exceptionError(flavor, 'RuntimeError', message ?? 'Internal Server Error') : httpError(flavor, status, message ?? 'Error')),
  });
  port = server.port;

  return {
    flavor,
    origin: server.origin,
    routes: routeNames,
    requests: server.requests,
    txt2img,
    img2img,
    get interrupts() {
      return counters.interrupts;
    },
    get skips() {
      return counters.skips;
    },
    options: opts,
    checkpoints,
    state,
    setStepDelay: (ms) => (stepDelay = ms),
    failNext: (status, kind, o) => failures.push(status, kind, o),
    holdAt: (step) => {
      hold = { step, gate: new Gate() };
      gates.add(hold.gate);
      return hold.gate;
    },
    inject: (route, fault) => server.faults.inject(route, fault),
    clearFaults: () => server.faults.clear(),
    down: async () => {
      restart();
      await server.down();
      state.reset();
    },
    up: () => server.up(),
    close: async () => {
      restart();
      await server.close();
    },
  };
}
