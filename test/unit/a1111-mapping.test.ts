// The a1111 kind's request bodies and answers, from the engine's source (modules/api/api.py,
// modules/api/models.py, modules/processing.py).
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { ModelRecord } from '../../shared/api-types.js';
import { checkpointName } from '../../electron/core/providers/a1111/a1111-admin.js';
import { editSize } from '../../electron/core/providers/a1111/a1111-init-image.js';
import { A1111_DEFAULTS, A1111_MAX_REFERENCES, img2imgBody, imageOfAnswer, infoOf, settingsOf, substitutions, txt2imgBody } from '../../electron/core/providers/a1111/a1111-mapping.js';
import { basicAuth, progressPercent } from '../../electron/core/providers/a1111/a1111-provider.js';
import { engineImageRecord } from '../../electron/core/providers/engine-records.js';
import type { ImageEditJob, ImageJob } from '../../electron/core/providers/provider.js';
import { makeImage } from '../helpers/images.js';

const record = (capabilities: Record<string, unknown> = {}): ModelRecord => {
  const base = engineImageRecord({ upstreamModel: 'sdxl.safetensors [31e35c80fc]', name: 'sdxl', maxReferenceImages: 1 }, 'a1/sdxl', 'a1', 0);
  return { ...base, capabilities: { ...base.capabilities, ...capabilities } };
};

const RED = { r: 220, g: 30, b: 30 };
const GREEN = { r: 30, g: 200, b: 60 };
const BLUE = { r: 30, g: 60, b: 220 };
type Colour = typeof RED;

const solid = (width: number, height: number, background: Colour): Promise<Buffer> => sharp({ create: { width, height, channels: 3, background } }).png().toBuffer();
const reference = (bytes: Buffer, i = 0) => ({ field: 'image[]', filename: `r${i}.png`, mime: 'image/png' as const, bytes });

/** The colour of one pixel of an image. */
async function colourAt(bytes: Buffer, x: number, y: number): Promise<Colour> {
  const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * info.channels;
  return { r: data[at]!, g: data[at + 1]!, b: data[at + 2]! };
}

const job = (over: Partial<ImageJob> = {}): ImageJob => ({
  model: record(),
  upstreamModel: 'sdxl.safetensors [31e35c80fc]',
  prompt: 'a lighthouse at dusk',
  width: 832,
  height: 1216,
  sizeGiven: true,
  workflow: null,
  ...over,
});

describe('a1111 request bodies', () => {
  it('txt2img: the size, the checkpoint per request (restored afterwards), one image sent back and not saved', () => {
    expect(txt2imgBody(job())).toEqual({
      prompt: 'a lighthouse at dusk',
      negative_prompt: '',
      width: 832,
      height: 1216,
      steps: 20,
      cfg_scale: 7,
      sampler_name: 'Euler a',
      seed: -1,
      batch_size: 1,
      n_iter: 1,
      override_settings: { sd_model_checkpoint: 'sdxl.safetensors [31e35c80fc]' },
      override_settings_restore_afterwards: true,
      send_images: true,
      save_images: false,
    });
  });

  it("steps, cfg_scale, sampler and denoising_strength come from the record's capabilities when they are usable", () => {
    expect(settingsOf(record({ steps: 30, cfg_scale: 4.5, sampler: 'DPM++ 2M', denoising_strength: 0.35 }))).toEqual({
      steps: 30,
      cfg_scale: 4.5,
      sampler_name: 'DPM++ 2M',
      denoising_strength: 0.35,
    });
    // Wrong types or out of range: the defaults.
    expect(settingsOf(record({ steps: '30', cfg_scale: -1, sampler: '  ', denoising_strength: 2 }))).toEqual({
      steps: A1111_DEFAULTS.steps,
      cfg_scale: A1111_DEFAULTS.cfgScale,
      sampler_name: A1111_DEFAULTS.sampler,
      denoising_strength: A1111_DEFAULTS.denoisingStrength,
    });
    expect(settingsOf(record({ steps: 2.5 })).steps).toBe(20);
  });

  it("the sampler may be given as sampler_name (the engine's own word) when sampler is not set", () => {
    expect(settingsOf(record({ sampler_name: 'DPM++ 2M Karras' })).sampler_name).toBe('DPM++ 2M Karras');
    // sampler wins when both are set; an unusable sampler leaves sampler_name to decide.
    expect(settingsOf(record({ sampler: 'Euler', sampler_name: 'DPM++ 2M' })).sampler_name).toBe('Euler');
    expect(settingsOf(record({ sampler: 42, sampler_name: ' DPM++ 2M ' })).sampler_name).toBe('DPM++ 2M');
    expect(settingsOf(record({ sampler_name: '' })).sampler_name).toBe(A1111_DEFAULTS.sampler);
    expect(txt2imgBody(job({ model: record({ sampler_name: 'UniPC' }) })).sampler_name).toBe('UniPC');
  });

  it('img2img with one reference: sent as it came, as bare base64; the requested size when one was given', async () => {
    const ref = await makeImage(320, 200);
    const body = await img2imgBody({ ...job({ model: record({ denoising_strength: 0.5 }) }), images: [reference(ref)] });
    expect(body.init_images).toEqual([ref.toString('base64')]);
    expect(body).toMatchObject({ width: 832, height: 1216, denoising_strength: 0.5, resize_mode: 1, override_settings: { sd_model_checkpoint: 'sdxl.safetensors [31e35c80fc]' } });
  });

  it('img2img with three references: one init image, the three side by side at the first one\'s height; without a size the edit takes its shape', async () => {
    expect(A1111_MAX_REFERENCES).toBe(3);
    const refs = [await solid(320, 200, RED), await solid(64, 64, GREEN), await solid(150, 300, BLUE)];
    const body = await img2imgBody({ ...job({ sizeGiven: false }), images: refs.map(reference) });
    expect(body.init_images).toHaveLength(1);
    const init = Buffer.from(body.init_images[0]!, 'base64');
    // Heights 200: 320 + 64 * 200/64 + 150 * 200/300 = 320 + 200 + 100.
    expect(await sharp(init).metadata()).toMatchObject({ format: 'png', width: 620, height: 200 });
    expect(await colourAt(init, 160, 100)).toEqual(RED);
    expect(await colourAt(init, 420, 100)).toEqual(GREEN);
    expect(await colourAt(init, 570, 100)).toEqual(BLUE);
    // 620 is not a multiple of 8: 624.
    expect([body.width, body.height]).toEqual([624, 200]);
    // A size that was asked is kept.
    const sized = await img2imgBody({ ...job(), images: refs.map(reference) });
    expect([sized.width, sized.height]).toEqual([832, 1216]);
  });

  it('img2img with several references: each is turned by its EXIF orientation first, as the engine would', async () => {
    // A 400x240 picture stored landscape with orientation 6 (rotate 90): a 240x400 portrait.
    const turned = await sharp(await solid(400, 240, BLUE)).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    const body = await img2imgBody({ ...job({ sizeGiven: false }), images: [reference(await solid(100, 200, RED)), reference(turned)] });
    const init = Buffer.from(body.init_images[0]!, 'base64');
    // Both 200 high once turned: 100 + 240 * 200/400.
    expect(await sharp(init).metadata()).toMatchObject({ width: 220, height: 200 });
    expect([body.width, body.height]).toEqual([224, 200]);
  });

  it('a collage longer than 2048 is sent whole; the edit is fitted to 2048 on its longer side', async () => {
    const refs = [await solid(1200, 600, RED), await solid(1200, 600, GREEN), await solid(1200, 600, BLUE)];
    const body = await img2imgBody({ ...job({ sizeGiven: false }), images: refs.map(reference) });
    expect(await sharp(Buffer.from(body.init_images[0]!, 'base64')).metadata()).toMatchObject({ width: 3600, height: 600 });
    // 600 * 2048/3600 = 341.3: 344.
    expect([body.width, body.height]).toEqual([2048, 344]);
  });

  it("img2img without a size: the reference's, as the engine sees it (EXIF turned), in multiples of 8, at most 2048", async () => {
    const edit = async (bytes: Buffer) => {
      const e: ImageEditJob = { ...job({ sizeGiven: false, width: 1024, height: 1024 }), images: [{ field: 'image', filename: 'a', mime: 'image/png', bytes }] };
      const body = await img2imgBody(e);
      return [body.width, body.height];
    };
    expect(await edit(await makeImage(320, 200))).toEqual([320, 200]);
    expect(await edit(await makeImage(501, 333))).toEqual([504, 336]);
    expect(await edit(await makeImage(4096, 1024))).toEqual([2048, 512]);
    // A portrait photo stored landscape with EXIF orientation 6 (rotate 90).
    const turned = await sharp(await makeImage(400, 240)).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    expect(await editSize(turned)).toEqual({ width: 240, height: 400 });
  });
});

describe('a1111 answers', () => {
  it('images[0] is decoded for real; a seed in info is read, an empty or junk info is tolerated', async () => {
    const png = await makeImage(64, 48);
    const b64 = png.toString('base64');
    const info = JSON.stringify({ seed: 1234567, prompt: 'x' });
    expect(await imageOfAnswer({ images: [b64], parameters: {}, info })).toEqual({ bytes: png, b64, seed: 1234567, info: { seed: 1234567, prompt: 'x' } });
    for (const odd of ['', 'not json', '[1,2]', '"a string"', null, 42]) {
      expect((await imageOfAnswer({ images: [b64], parameters: {}, info: odd })).seed).toBeNull();
    }
    expect(infoOf('')).toBeNull();
    expect(infoOf('{"seed": 5}')).toEqual({ seed: 5 });
  });

  it('a data URI is tolerated; base64 that is not canonical is re-encoded by the gateway', async () => {
    const png = await makeImage(16, 16);
    expect((await imageOfAnswer({ images: [`data:image/png;base64,${png.toString('base64')}`] })).bytes).toEqual(png);
    const wrapped = png.toString('base64').replace(/(.{60})/g, '$1\n');
    const read = await imageOfAnswer({ images: [wrapped] });
    expect(read.bytes).toEqual(png);
    expect(read.b64).toBeNull();
  });

  it.each([
    ['no images field', { info: '' }],
    ['an empty list', { images: [] }],
    ['a non-string image', { images: [42] }],
    ['base64 of no image', { images: [Buffer.from('hello world').toString('base64')] }],
    ['not an object', 'images'],
  ])('%s is a 502', async (_name, body) => {
    await expect(imageOfAnswer(body)).rejects.toMatchObject({ code: 'upstream_invalid_response', status: 502 });
  });

  it('a PNG cut short is a 502', async () => {
    const png = await makeImage(256, 256);
    await expect(imageOfAnswer({ images: [png.subarray(0, png.length - 200).toString('base64')] })).rejects.toMatchObject({ code: 'upstream_invalid_response' });
  });

  it('what the engine used instead of what was asked (an unknown sampler or checkpoint) is found in info', () => {
    const sent = txt2imgBody(job());
    expect(substitutions({ sampler_name: 'Euler a', sd_model_hash: '31e35c80fc' }, sent)).toEqual([]);
    expect(substitutions({ sampler_name: 'DPM++ 2M', sd_model_hash: '6ce0161689' }, sent)).toEqual([
      'sampler "DPM++ 2M" for "Euler a"',
      'checkpoint 6ce0161689 for "sdxl.safetensors [31e35c80fc]"',
    ]);
    // A title without a hash (not hashed yet) or no info: nothing to compare.
    expect(substitutions({ sd_model_hash: 'ffff' }, txt2imgBody(job({ upstreamModel: 'sdxl.safetensors' })))).toEqual([]);
    expect(substitutions(null, sent)).toEqual([]);
  });

  it('progress: 0-99 of a running job; an idle engine says nothing', () => {
    expect(progressPercent({ progress: 0.456, eta_relative: 3, state: { job_count: 1, sampling_step: 9, sampling_steps: 20 } })).toBe(45);
    expect(progressPercent({ progress: 1, state: { job_count: 1 } })).toBe(99);
    expect(progressPercent({ progress: 0, eta_relative: 0, state: { job_count: 0 } })).toBeNull();
    expect(progressPercent({ state: {} })).toBeNull();
    expect(progressPercent('x')).toBeNull();
  });

  it('Basic auth from the USER:PASS key; none without a key', () => {
    expect(basicAuth('alice:s3cret')).toEqual({ authorization: `Basic ${Buffer.from('alice:s3cret').toString('base64')}` });
    expect(basicAuth(null)).toEqual({});
  });

  it('checkpoint names become catalog id tails', () => {
    expect(checkpointName('sd_xl_base_1.0')).toBe('sd_xl_base_1.0');
    expect(checkpointName('SDXL_Juggernaut XL (v9)+RunDiffusion')).toBe('sdxl_juggernaut-xl-v9-rundiffusion');
    expect(checkpointName('..hidden')).toBe('hidden');
    expect(checkpointName('動画')).toBe('');
  });
});
