// Route handlers of the stable-diffusion.cpp server emulator.
// Source followed (leejet/stable-diffusion.cpp examples/server/): routes_openai.cpp
// (GET /v1/models -> {data: [{id: "sd-cpp-local", object: "model", owned_by: "local"}]} whatever
// the request's `model`, which is never read; POST /v1/images/generations reads prompt, n
// (max(1, n)), size "WxH", output_format (png|jpeg|webp), output_compression and
// <sd_cpp_extra_args>{json}</sd_cpp_extra_args> inside the prompt; POST /v1/images/edits is
// multipart: prompt, image[] or image, mask, n, size, output_format (png|jpeg); the size of the
// first image when no size is given; both answer {created, data: [{b64_json}], output_format};
// errors {"error": "..."}: 400 "empty body" / "prompt required" / "at least one image[] required" /
// "Content-Type must be multipart/form-data" / "invalid sd_cpp_extra_args" / "invalid params" /
// "loaded model does not support img_gen", 500 {"error": "generate_image returned no results"}
// and, for exceptions (a body that is not JSON, a field of the wrong type), 500
// {"error": "server_error", "message": e.what()}), routes_sdcpp.cpp (POST /sdcpp/v1/img_gen and
// /sdcpp/v1/vid_gen -> 202 {id, kind, status, created, poll_url}; 400 {"error": "invalid json",
// "message"} for a body that is not JSON; 429 {"error": "job queue is full"}; GET
// /sdcpp/v1/jobs/{id} -> job JSON | 410 {"error": "job expired"} | 404 {"error": "job not found"};
// POST /sdcpp/v1/jobs/{id}/cancel -> queued: cancelled job JSON; generating: 409 {"error": "job is
// currently generating and cannot be interrupted yet"}; finished: the job JSON unchanged).
// Guess: nlohmann's exception texts are approximated (same prefix, position from the JS parser).
import { json, type Reply } from './http-kit.js';
import { isMultipart, parseMultipart } from './multipart.js';
import { type RequestContext, ServerRestarted } from './restartable-server.js';
import type { UploadedFile } from './types.js';
import sharp from 'sharp';
import { type GenParams, type ImageFormat, type SdcppModel, type SdcppMode, DEFAULT_PARAMS, clampCompression, outputFormatProblem, readParams, resolveAndValidate } from './sdcpp-params.js';
import type { JobManager } from './sdcpp-jobs.js';

export interface SdcppImageRecord {
  /** JSON body (generations) or form fields (edits). */
  body: Record<string, unknown>;
  files?: UploadedFile[];
  status: number;
  images: number;
  width: number;
  height: number;
  outputFormat: string;
}

export interface RouteDeps {
  model: SdcppModel;
  jobs: JobManager;
  nextSeed: () => number;
  /** Runs a synchronous generation under the engine lock: encoded images (or throws Error(message)). */
  generateImages(params: GenParams, format: ImageFormat, compression: number): Promise<{ images: Buffer[]; width: number; height: number }>;
  generations: SdcppImageRecord[];
  edits: SdcppImageRecord[];
  imageJobs: unknown[];
  videoJobs: unknown[];
  cancels: string[];
}

export const flat = (status: number, error: string, extra: Record<string, string> = {}): Reply => json(status, { error, ...extra });

class NlohmannError extends Error {}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const at = Number(/position (\d+)/.exec(String(error))?.[1] ?? text.length);
    const before = text.slice(0, at);
    const line = before.split('\n').length;
    const column = at - before.lastIndexOf('\n');
    throw new NlohmannError(`[json.exception.parse_error.101] parse error at line ${line}, column ${column}: syntax error while parsing value`);
  }
}

/** nlohmann's j.value(key, default): the default when absent, a type_error when present with another type. */
function value<T extends string | number>(j: unknown, key: string, fallback: T): T {
  if (typeof j !== 'object' || j === null || Array.isArray(j)) throw new NlohmannError(`[json.exception.type_error.306] cannot use value() with ${Array.isArray(j) ? 'array' : typeof j === 'string' ? 'string' : 'number'}`);
  const v = (j as Record<string, unknown>)[key];
  if (v === undefined) return fallback;
  if (typeof v !== typeof fallback) {
    throw new NlohmannError(`[json.exception.type_error.302] type must be ${typeof fallback === 'number' ? 'number' : 'string'}, but is ${v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'boolean' ? 'boolean' : typeof v}`);
  }
  // get<int>() of a JSON float truncates.
  return (typeof v === 'number' ? Math.trunc(v) : v) as T;
}

/** std::stoi on "WxH": leading integers; a failing height keeps the width already parsed. */
function parseSize(size: string, width: number, height: number): { width: number; height: number } {
  const x = size.indexOf('x');
  if (size === '' || x === -1) return { width, height };
  const stoi = (s: string) => {
    const m = /^\s*[-+]?\d+/.exec(s);
    if (!m) throw new Error('stoi');
    return Number(m[0]);
  };
  try {
    width = stoi(size.slice(0, x));
    height = stoi(size.slice(x + 1));
  } catch {
    /* as the server: ignored */
  }
  return { width, height };
}

/** <sd_cpp_extra_args>{...}</sd_cpp_extra_args> out of the prompt, applied over the params. */
function applyExtraArgs(p: GenParams): GenParams | undefined {
  const re = /<sd_cpp_extra_args>(.*?)<\/sd_cpp_extra_args>/s;
  const match = re.exec(p.prompt);
  if (!match) return p;
  const prompt = p.prompt.replace(new RegExp(re.source, 'gs'), '');
  try {
    const extra = JSON.parse(match[1] ?? '');
    return readParams({ ...p, prompt }, typeof extra === 'object' && extra !== null && !Array.isArray(extra) ? extra : {});
  } catch {
    return undefined;
  }
}

function imgGenUnsupported(model: SdcppModel): Reply | undefined {
  return model.modes.includes('img_gen') ? undefined : flat(400, 'loaded model does not support img_gen');
}

async function answerImages(deps: RouteDeps, record: SdcppImageRecord, params: GenParams, format: ImageFormat, compression: number): Promise<Reply> {
  try {
    const out = await deps.generateImages(params, format, compression);
    Object.assign(record, { status: 200, images: out.images.length, width: out.width, height: out.height });
    return json(200, { created: Math.floor(Date.now() / 1000), data: out.images.map((b) => ({ b64_json: b.toString('base64') })), output_format: format });
  } catch (error) {
    if (error instanceof ServerRestarted) throw error;
    record.status = 500;
    return flat(500, error instanceof Error ? error.message : String(error));
  }
}

export async function handleGenerations(deps: RouteDeps, ctx: RequestContext): Promise<Reply> {
  const record: SdcppImageRecord = { body: {}, status: 0, images: 0, width: 0, height: 0, outputFormat: 'png' };
  deps.generations.push(record);
  const reply = await (async () => {
    const unsupported = imgGenUnsupported(deps.model);
    if (unsupported) return unsupported;
    if (ctx.body.length === 0) return flat(400, 'empty body');
    try {
      const j = parseJson(ctx.body.toString('utf8'));
      if (typeof j === 'object' && j !== null && !Array.isArray(j)) record.body = j as Record<string, unknown>;
      const prompt = value(j, 'prompt', '');
      const n = Math.max(1, value(j, 'n', 1));
      const size = parseSize(value(j, 'size', ''), 512, 512);
      const format = value(j, 'output_format', 'png');
      const compression = clampCompression(value(j, 'output_compression', 100));
      record.outputFormat = format;
      if (prompt === '') return flat(400, 'prompt required');
      const problem = outputFormatProblem(format.toLowerCase(), deps.model.imageFormats);
      if (problem) return flat(400, problem);
      const params = applyExtraArgs({ ...DEFAULT_PARAMS, prompt, width: size.width, height: size.height, batchCount: n });
      if (!params) return flat(400, 'invalid sd_cpp_extra_args');
      if (!resolveAndValidate(params, 'img_gen', deps.nextSeed)) return flat(400, 'invalid params');
      return answerImages(deps, record, params, format.toLowerCase() as ImageFormat, compression);
    } catch (error) {
      if (error instanceof NlohmannError) return flat(500, 'server_error', { message: error.message });
      throw error;
    }
  })();
  record.status = reply.status;
  return reply;
}

export async function handleEdits(deps: RouteDeps, ctx: RequestContext): Promise<Reply> {
  const record: SdcppImageRecord = { body: {}, status: 0, images: 0, width: 0, height: 0, outputFormat: 'png' };
  deps.edits.push(record);
  const reply = await (async () => {
    const unsupported = imgGenUnsupported(deps.model);
    if (unsupported) return unsupported;
    const type = ctx.req.headers['content-type'];
    if (!isMultipart(type)) return flat(400, 'Content-Type must be multipart/form-data');
    const form = await parseMultipart(type ?? '', ctx.body).catch(() => ({ fields: {} as Record<string, string>, files: [] }));
    record.body = form.fields;
    record.files = form.files.map(({ bytes: _bytes, ...file }) => file);
    ctx.record.files = record.files;
    const prompt = form.fields.prompt ?? '';
    if (prompt === '') return flat(400, 'prompt required');
    const listed = form.files.filter((f) => f.field === 'image[]');
    const images = listed.length > 0 ? listed : form.files.filter((f) => f.field === 'image').slice(0, 1);
    if (images.length === 0) return flat(400, 'at least one image[] required');
    const n = /^\s*[-+]?\d+/.test(form.fields.n ?? '') ? parseInt(form.fields.n ?? '1', 10) : 1;
    let { width, height } = parseSize(form.fields.size ?? '', -1, -1);
    const format = (form.fields.output_format ?? 'png').toLowerCase();
    record.outputFormat = format;
    const compression = clampCompression(/^\s*[-+]?\d+/.test(form.fields.output_compression ?? '') ? parseInt(form.fields.output_compression ?? '', 10) : 100);
    const problem = outputFormatProblem(format, ['png', 'jpeg']);
    if (problem) return flat(400, problem);
    for (const file of images) {
      // load_image_from_memory: an undecodable upload is skipped; the first decodable one sizes an unsized request.
      const meta = await sharp(file.bytes).metadata().catch(() => undefined);
      if (!meta?.width || !meta.height) continue;
      if (!(width > 0 && height > 0)) ({ width, height } = { width: meta.width, height: meta.height });
    }
    const params = applyExtraArgs({ ...DEFAULT_PARAMS, prompt, width, height, batchCount: n });
    if (!params) return flat(400, 'invalid sd_cpp_extra_args');
    if (!resolveAndValidate(params, 'img_gen', deps.nextSeed)) return flat(400, 'invalid params');
    return answerImages(deps, record, params, format as ImageFormat, compression);
  })();
  record.status = reply.status;
  return reply;
}

export function handleSubmit(deps: RouteDeps, ctx: RequestContext, mode: SdcppMode): Reply {
  if (ctx.body.length === 0) return flat(400, 'empty body');
  if (!deps.model.modes.includes(mode)) return flat(400, `loaded model does not support ${mode}`);
  let j: unknown;
  try {
    j = parseJson(ctx.body.toString('utf8'));
  } catch (error) {
    return flat(400, 'invalid json', { message: (error as Error).message });
  }
  try {
    const body = typeof j === 'object' && j !== null && !Array.isArray(j) ? (j as Record<string, unknown>) : {};
    const params = readParams(DEFAULT_PARAMS, body);
    if (!params) return flat(400, 'invalid generation parameters');
    const format = value(j, 'output_format', mode === 'img_gen' ? 'png' : 'webm').toLowerCase();
    const compression = clampCompression(value(j, 'output_compression', 100));
    const problem = outputFormatProblem(format, mode === 'img_gen' ? deps.model.imageFormats : deps.model.videoFormats);
    if (problem) return flat(400, problem);
    if (!resolveAndValidate(params, mode, deps.nextSeed)) return flat(400, 'invalid generation parameters');
    const job = deps.jobs.submit(mode, body, params, format, compression);
    if (!job) return flat(429, 'job queue is full');
    (mode === 'vid_gen' ? deps.videoJobs : deps.imageJobs).push(job);
    return json(202, { id: job.id, kind: job.kind, status: job.status, created: job.created, poll_url: `/sdcpp/v1/jobs/${job.id}` });
  } catch (error) {
    if (error instanceof NlohmannError) return flat(500, 'server_error', { message: error.message });
    throw error;
  }
}

export function handleJob(deps: RouteDeps, id: string, cancel: boolean): Reply {
  if (cancel) deps.cancels.push(id);
  const found = deps.jobs.lookup(id);
  if (found === 'expired') return flat(410, 'job expired');
  if (!found) return flat(404, 'job not found');
  if (cancel && found.status === 'queued') {
    if (!deps.jobs.cancelQueued(found)) return flat(409, 'job queue state changed before cancellation');
  } else if (cancel && found.status === 'generating') {
    return flat(409, 'job is currently generating and cannot be interrupted yet');
  }
  return json(200, deps.jobs.toJson(found));
}
