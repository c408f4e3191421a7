// The AUTOMATIC1111 / Forge emulator, driven with plain fetch the way an API client drives the
// real WebUI: generations, Basic auth, both error flavors, progress of a paused generation,
// interrupt, restart on the same port.
import { afterEach, describe, expect, test } from 'vitest';
import sharp from 'sharp';
import { startA1111Emulator, type A1111Emulator, type A1111EmulatorOptions } from '../emulators/a1111-emulator.js';
import { readPngText } from '../emulators/png-text.js';
import { encodePng } from '../emulators/png.js';

let emu: A1111Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

async function start(options: A1111EmulatorOptions = {}): Promise<A1111Emulator> {
  emu = await startA1111Emulator(options);
  return emu;
}

const basic = (pair: string) => ({ authorization: `Basic ${Buffer.from(pair).toString('base64')}` });

function post(e: A1111Emulator, path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${e.origin}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
}
const get = (e: A1111Emulator, path: string, headers: Record<string, string> = {}) => fetch(`${e.origin}${path}`, { headers });

interface GenerationBody {
  images: string[];
  parameters: Record<string, unknown>;
  info: string;
}
interface ProgressBody {
  progress: number;
  eta_relative: number;
  state: Record<string, unknown>;
  current_image: string | null;
  textinfo: string | null;
}

async function sizes(images: string[]) {
  return Promise.all(images.map(async (b64) => {
    const meta = await sharp(Buffer.from(b64, 'base64')).metadata();
    return `${meta.format} ${meta.width}x${meta.height}`;
  }));
}

describe('generations', () => {
  test('txt2img: PNGs of the requested size, info as a JSON string, override_settings picks the checkpoint', async () => {
    const e = await start({ checkpoints: ['base.safetensors', 'XL/other.safetensors'] });
    const other = e.checkpoints[1]!;
    const res = await post(e, '/sdapi/v1/txt2img', { prompt: 'a red fox', negative_prompt: 'blurry', width: 320, height: 200, steps: 6, seed: 42, batch_size: 2, override_settings: { sd_model_checkpoint: other.title } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as GenerationBody;
    expect(await sizes(body.images)).toEqual(['png 320x200', 'png 320x200']);
    expect(typeof body.info).toBe('string');
    const info = JSON.parse(body.info) as Record<string, unknown>;
    expect(info).toMatchObject({ prompt: 'a red fox', all_seeds: [42, 43], width: 320, height: 200, steps: 6, sampler_name: 'Euler', sd_model_name: 'other', sd_model_hash: other.shorthash, index_of_first_image: 0 });
    expect(body.info).toContain('"cfg_scale": 7.0');
    expect((info.infotexts as string[])[1]).toBe(`a red fox\nNegative prompt: blurry\nSteps: 6, Sampler: Euler, Schedule type: Automatic, CFG scale: 7.0, Seed: 43, Size: 320x200, Model hash: ${other.shorthash}, Model: other, Version: v1.10.1`);
    expect(readPngText(Buffer.from(body.images[0]!, 'base64')).parameters).toBe((info.infotexts as string[])[0]);
    // parameters = vars(request): every field of the model, defaults included.
    expect(body.parameters).toMatchObject({ prompt: 'a red fox', steps: 6, cfg_scale: 7, sampler_index: 'Euler', send_images: true, n_iter: 1, override_settings: { sd_model_checkpoint: other.title } });
    expect(e.txt2img[0]).toMatchObject({ checkpoint: other.title, width: 320, height: 200, samplingSteps: 6, images: 2, status: 'done' });
    // The override is undone afterwards (override_settings_restore_afterwards defaults to true).
    const opts = (await (await get(e, '/sdapi/v1/options')).json()) as Record<string, unknown>;
    expect(opts.sd_model_checkpoint).toBe(e.checkpoints[0]!.title);
  });

  test('an unknown override checkpoint is dropped silently and the current one generates; sizes round down to 8', async () => {
    const e = await start();
    const res = await post(e, '/sdapi/v1/txt2img', { prompt: 'x', width: 333, height: 250, steps: 2, override_settings: { sd_model_checkpoint: 'nope.safetensors' } });
    const body = (await res.json()) as GenerationBody;
    expect(await sizes(body.images)).toEqual(['png 328x248']);
    expect(body.parameters.override_settings).toEqual({});
    expect(e.txt2img[0]!.checkpoint).toBe(e.checkpoints[0]!.title);
    expect(JSON.parse(body.info).width).toBe(333);
  });

  test('img2img with a base64 init image: width/height from the request, 512x512 when absent (the model default)', async () => {
    const e = await start({ flavor: 'forge' });
    const init = (await sharp(encodePng(300, 180)).jpeg().toBuffer()).toString('base64');
    const sized = (await (await post(e, '/sdapi/v1/img2img', { prompt: 'p', init_images: [`data:image/jpeg;base64,${init}`], width: 256, height: 160, steps: 20, denoising_strength: 0.5, override_settings: { sd_model_checkpoint: 'sd_xl_base_1.0' } })).json()) as GenerationBody;
    expect(await sizes(sized.images)).toEqual(['png 256x160']);
    expect(sized.parameters.init_images).toBeNull(); // include_init_images defaults to false
    expect(e.img2img[0]).toMatchObject({ samplingSteps: 11, checkpoint: e.checkpoints[1]!.title });
    expect(JSON.parse(sized.info).extra_generation_params).toEqual({ 'Denoising strength': 0.5 });
    const plain = (await (await post(e, '/sdapi/v1/img2img', { init_images: [init], steps: 4 })).json()) as GenerationBody;
    expect(await sizes(plain.images)).toEqual(['png 512x512']);
    const missing = await post(e, '/sdapi/v1/img2img', { prompt: 'p' });
    expect([missing.status, await missing.json()]).toEqual([404, { detail: 'Init image not found' }]);
    const broken = await post(e, '/sdapi/v1/img2img', { init_images: ['bm90IGFuIGltYWdl'] });
    expect([broken.status, await broken.json()]).toEqual([500, { detail: 'Invalid encoded image' }]);
  });

  test('options: setting a known checkpoint by alias stores its title (A1111); an unknown one is a 500 RuntimeError', async () => {
    const e = await start();
    const target = e.checkpoints[1]!;
    const ok = await post(e, '/sdapi/v1/options', { sd_model_checkpoint: target.modelName });
    expect([ok.status, await ok.json()]).toEqual([200, null]);
    expect(((await (await get(e, '/sdapi/v1/options')).json()) as Record<string, unknown>).sd_model_checkpoint).toBe(target.title);
    const models = (await (await get(e, '/sdapi/v1/sd-models')).json()) as Record<string, unknown>[];
    expect(models[1]).toEqual({ title: target.title, model_name: 'sd_xl_base_1.0', hash: target.shorthash, sha256: target.sha256, filename: target.filename, config: null });
    const bad = await post(e, '/sdapi/v1/options', { sd_model_checkpoint: 'missing' });
    expect([bad.status, await bad.json()]).toEqual([500, { error: 'RuntimeError', detail: '', body: '', errors: "model 'missing' not found" }]);
  });
});

describe('auth and error flavors', () => {
  test('A1111: --api-auth 401s in its handle_exception shape, without WWW-Authenticate; /internal/ping stays open', async () => {
    const e = await start({ auth: 'alice:secret' });
    const none = await get(e, '/sdapi/v1/sd-models');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBeNull();
    expect(await none.json()).toEqual({ error: 'HTTPException', detail: 'Not authenticated', body: '', errors: '401: Not authenticated' });
    const wrong = await get(e, '/sdapi/v1/sd-models', basic('alice:nope'));
    expect(await wrong.json()).toMatchObject({ detail: 'Incorrect username or password' });
    expect((await get(e, '/sdapi/v1/sd-models', basic('alice:secret'))).status).toBe(200);
    expect((await get(e, '/internal/ping')).status).toBe(200);
    // A body that is not JSON fails validation before the auth dependency runs.
    expect((await post(e, '/sdapi/v1/txt2img', '{oops')).status).toBe(422);
  });

  test('Forge: plain FastAPI {detail} for HTTP errors (WWW-Authenticate kept), {error, detail, body, message} for 500s', async () => {
    const e = await start({ flavor: 'forge', auth: 'u:p' });
    const none = await get(e, '/sdapi/v1/progress');
    expect([none.status, none.headers.get('www-authenticate'), await none.json()]).toEqual([401, 'Basic', { detail: 'Not authenticated' }]);
    e.failNext(500);
    const crash = await post(e, '/sdapi/v1/txt2img', { prompt: 'x' }, basic('u:p'));
    expect([crash.status, await crash.json()]).toEqual([500, { error: 'RuntimeError', detail: '', body: '', message: 'CUDA out of memory. Tried to allocate 2.00 GiB' }]);
    e.failNext(503, 'http', { detail: 'busy' });
    const busy = await post(e, '/sdapi/v1/txt2img', { prompt: 'x' }, basic('u:p'));
    expect([busy.status, await busy.json()]).toEqual([503, { detail: 'busy' }]);
    const invalid = await post(e, '/sdapi/v1/txt2img', { steps: 'many' }, basic('u:p'));
    expect(invalid.status).toBe(422);
    expect(await invalid.json()).toEqual({ detail: [{ type: 'int_parsing', loc: ['body', 'steps'], msg: 'Input should be a valid integer, unable to parse string as an integer', input: 'many', url: 'https://errors.pydantic.dev/2.8/v/int_parsing' }] });
    expect(e.txt2img).toHaveLength(0);
    const bad = await post(e, '/sdapi/v1/options', { sd_model_checkpoint: 'missing' }, basic('u:p'));
    expect([bad.status, await bad.json()]).toEqual([500, { error: 'RuntimeError', detail: '', body: '', message: "model 'missing' not found" }]);
    // Forge's set_config stores the name as given (A1111 stores the loaded checkpoint's title).
    await post(e, '/sdapi/v1/options', { sd_model_checkpoint: 'sd_xl_base_1.0' }, basic('u:p'));
    expect(((await (await get(e, '/sdapi/v1/options', basic('u:p'))).json()) as Record<string, unknown>).sd_model_checkpoint).toBe('sd_xl_base_1.0');
  });

  test('A1111: failNext in its own shapes, 422 as pydantic v1 {loc, msg, type}', async () => {
    const e = await start();
    e.failNext(422);
    expect(await (await post(e, '/sdapi/v1/txt2img', { prompt: 'x' })).json()).toEqual({ detail: [{ loc: ['body', 'steps'], msg: 'value is not a valid integer', type: 'type_error.integer' }] });
    e.failNext(500, 'exception', { exceptionType: 'OutOfMemoryError', detail: 'oom' });
    expect(await (await post(e, '/sdapi/v1/img2img', { init_images: [] })).json()).toEqual({ error: 'OutOfMemoryError', detail: '', body: '', errors: 'oom' });
    const sampler = await post(e, '/sdapi/v1/txt2img', { script_name: 'no such script' });
    expect([sampler.status, await sampler.json()]).toEqual([422, { error: 'HTTPException', detail: "Script 'no such script' not found", body: '', errors: "422: Script 'no such script' not found" }]);
  });
});

describe('progress, interrupt, restart', () => {
  test('a generation paused at a step shows on /progress; after it ends the job_count is 0 again', async () => {
    const e = await start();
    const gate = e.holdAt(4);
    const pending = post(e, '/sdapi/v1/txt2img', { prompt: 'slow', steps: 10, n_iter: 2, width: 64, height: 64 });
    await gate.reached;
    const during = (await (await get(e, '/sdapi/v1/progress')).json()) as ProgressBody;
    expect(during.state).toMatchObject({ job: 'Batch 1 out of 2', job_count: 2, job_no: 0, sampling_step: 4, sampling_steps: 10, interrupted: false });
    expect(during.progress).toBeCloseTo(0.01 + 0.5 * 0.4, 5);
    expect(during.current_image).toBeNull(); // a preview needs show_progress_every_n_steps (10) steps
    expect(during.eta_relative).toBeGreaterThanOrEqual(0);
    gate.release();
    const body = (await (await pending).json()) as GenerationBody;
    expect(body.images).toHaveLength(2);
    const after = (await (await get(e, '/sdapi/v1/progress')).json()) as ProgressBody;
    expect(after).toMatchObject({ progress: 0, eta_relative: 0, current_image: null, state: { job: '', job_count: 0, job_no: 2 } });
  });

  test('the live preview appears from step 10; skip_current_image leaves it out', async () => {
    const e = await start();
    const gate = e.holdAt(12);
    const pending = post(e, '/sdapi/v1/txt2img', { prompt: 'p', steps: 20, width: 96, height: 64 });
    await gate.reached;
    const withImage = (await (await get(e, '/sdapi/v1/progress')).json()) as ProgressBody;
    expect(await sizes([withImage.current_image!])).toEqual(['png 96x64']);
    const without = (await (await get(e, '/sdapi/v1/progress?skip_current_image=true')).json()) as ProgressBody;
    expect(without.current_image).toBeNull();
    gate.release();
    await pending;
  });

  test('interrupt ends the current batch early and still answers 200 with its images; later batches are skipped', async () => {
    const e = await start({ flavor: 'forge' });
    const gate = e.holdAt(3);
    const pending = post(e, '/sdapi/v1/txt2img', { prompt: 'p', steps: 30, n_iter: 3, batch_size: 2, width: 64, height: 64 });
    await gate.reached;
    expect(await (await post(e, '/sdapi/v1/interrupt', '')).json()).toEqual({});
    gate.release();
    const res = await pending;
    expect(res.status).toBe(200);
    expect(((await res.json()) as GenerationBody).images).toHaveLength(2);
    expect(e.interrupts).toBe(1);
    expect(e.txt2img[0]).toMatchObject({ interrupted: true, images: 2 });
    // state.end() leaves the flag up until the next state.begin(); nextjob() ran for the one batch.
    const after = (await (await get(e, '/sdapi/v1/progress')).json()) as ProgressBody;
    expect(after.state).toMatchObject({ interrupted: true, job_count: 0, job_no: 1, sampling_step: 0, sampling_steps: 30 });
    const next = (await (await post(e, '/sdapi/v1/txt2img', { prompt: 'again', steps: 2, width: 64, height: 64 })).json()) as GenerationBody;
    expect(next.images).toHaveLength(1);
  });

  test('down() drops connections and in-flight work; up() listens on the same port again', async () => {
    const e = await start();
    const gate = e.holdAt(1);
    const pending = post(e, '/sdapi/v1/txt2img', { prompt: 'p', steps: 5, width: 64, height: 64 }).then(
      (r) => r.status,
      () => 'failed',
    );
    await gate.reached;
    await e.down();
    expect(await pending).toBe('failed');
    await expect(get(e, '/internal/ping')).rejects.toThrow();
    await e.up();
    expect((await get(e, '/internal/ping')).status).toBe(200);
    const progress = (await (await get(e, '/sdapi/v1/progress')).json()) as ProgressBody;
    expect(progress.state).toMatchObject({ job_count: 0, sampling_step: 0 });
    expect((await post(e, '/sdapi/v1/txt2img', { prompt: 'p', steps: 2, width: 64, height: 64 })).status).toBe(200);
  });

  test('samplers, schedulers and an unknown sampler falling back to DPM++ 2M', async () => {
    const e = await start();
    const samplers = (await (await get(e, '/sdapi/v1/samplers')).json()) as { name: string }[];
    expect(samplers[0]).toEqual({ name: 'DPM++ 2M', aliases: ['k_dpmpp_2m'], options: { scheduler: 'karras' } });
    const body = (await (await post(e, '/sdapi/v1/txt2img', { sampler_name: 'Made Up', steps: 1, width: 64, height: 64 })).json()) as GenerationBody;
    expect(JSON.parse(body.info).sampler_name).toBe('DPM++ 2M');
    const karras = (await (await post(e, '/sdapi/v1/txt2img', { sampler_name: 'Euler a Karras', steps: 1, width: 64, height: 64 })).json()) as GenerationBody;
    expect(JSON.parse(karras.info).infotexts[0]).toContain('Sampler: Euler a, Schedule type: Karras');
  });
});
