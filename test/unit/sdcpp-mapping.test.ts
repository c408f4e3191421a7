// stable-diffusion.cpp request mapping (electron/core/providers/sdcpp/sdcpp-mapping.ts), against
// what examples/server reads: the OpenAI-style image bodies (a fresh seed through
// <sd_cpp_extra_args>, a client's own block taken apart), the edit form (every reference as
// image[], the size only when given), the vid_gen body (frames = seconds x fps, AVI, the start
// frame as a data URI), and the answers read back.
import { describe, expect, it } from 'vitest';
import type { ModelRecord } from '../../shared/api-types.js';
import type { ImageEditJob, ImageJob, VideoJob } from '../../electron/core/providers/provider.js';
import { modelName } from '../../electron/core/providers/sdcpp/sdcpp-admin.js';
import { editForm, generationBody, imageOfAnswer, jobIdOf, jobStateOf, promptWithSeed, vidGenBody } from '../../electron/core/providers/sdcpp/sdcpp-mapping.js';

const job: ImageJob = { model: {} as ModelRecord, upstreamModel: 'flux1-dev.gguf', prompt: 'a lighthouse', width: 768, height: 512, sizeGiven: true, workflow: null };
const png = (n: number) => Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(n)]);

/** The settings block the server would extract (its regex: the first block, `.` not crossing lines). */
function extraArgs(prompt: string): { rest: string; args: unknown } {
  const match = /<sd_cpp_extra_args>(.*?)<\/sd_cpp_extra_args>/.exec(prompt);
  return { rest: prompt.replace(/<sd_cpp_extra_args>(.*?)<\/sd_cpp_extra_args>/g, ''), args: match ? JSON.parse(match[1]!) : null };
}

describe('sd.cpp image requests', () => {
  it('generation: prompt with a seed block, n 1, size WxH, png; no model (the server ignores it)', () => {
    const body = generationBody(job, 1234);
    expect(body).toEqual({ prompt: expect.any(String), n: 1, size: '768x512', output_format: 'png' });
    expect(extraArgs(body.prompt)).toEqual({ rest: 'a lighthouse ', args: { seed: 1234 } });
  });

  it('a fresh random seed per request', () => {
    const seeds = new Set(Array.from({ length: 20 }, () => (extraArgs(generationBody(job).prompt).args as { seed: number }).seed));
    expect(seeds.size).toBeGreaterThan(15);
    for (const seed of seeds) expect(Number.isInteger(seed) && seed >= 0 && seed <= 0x7fffffff).toBe(true);
  });

  it("a client's own settings block is taken apart: only the gateway's seed reaches the engine", () => {
    const sneaky = 'cat <sd_cpp_extra_args>{"batch_count":8}</sd_cpp_extra_args> <sd_cpp_<sd_cpp_extra_args>extra_args>{"seed":1}</sd_cpp_extra_args>';
    const prompt = promptWithSeed(sneaky, 77);
    expect(prompt.match(/<sd_cpp_extra_args>/g)).toHaveLength(1);
    expect(extraArgs(prompt).args).toEqual({ seed: 77 });
    expect(extraArgs(prompt).rest).toContain('{"batch_count":8}'); // left as prompt text
  });

  it('edit: every reference as image[] in order, prompt, n, png; size only when given', async () => {
    const images = [1, 2, 3].map((i) => ({ field: 'image[]', filename: `ref${i}.png`, mime: 'image/png' as const, bytes: png(i) }));
    const edit: ImageEditJob = { ...job, images };
    const form = await editForm(edit, 9);
    const files = form.getAll('image[]') as File[];
    expect(files.map((f) => f.name)).toEqual(['ref1.png', 'ref2.png', 'ref3.png']);
    expect(await Promise.all(files.map(async (f) => Buffer.from(await f.arrayBuffer()).length))).toEqual([9, 10, 11]);
    expect(form.get('image')).toBeNull();
    expect(form.get('n')).toBe('1');
    expect(form.get('output_format')).toBe('png');
    expect(form.get('size')).toBe('768x512');
    expect(extraArgs(form.get('prompt') as string).args).toEqual({ seed: 9 });
    expect((await editForm({ ...edit, sizeGiven: false })).get('size')).toBeNull();
  });

  it('reads data[0].b64_json; refuses an answer without a clean one', () => {
    const b64 = png(4).toString('base64');
    expect(imageOfAnswer({ created: 1, data: [{ b64_json: b64 }], output_format: 'png' })).toEqual({ bytes: png(4), b64 });
    expect(() => imageOfAnswer({ data: [] })).toThrow(/no image/);
    expect(() => imageOfAnswer({ data: [{ b64_json: '' }] })).toThrow(/no image/);
    expect(() => imageOfAnswer({ data: [{ b64_json: 'not base64!' }] })).toThrow(/base64/);
  });
});

describe('sd.cpp video jobs', () => {
  const video: VideoJob = {
    taskId: 'video_1', modelId: 'sd/wan', upstreamModel: 'wan.gguf', requestType: 'text-to-video', prompt: 'waves', seconds: 3, size: '832x480',
    width: 832, height: 480, referencePaths: [], outputPath: '/tmp/x.mp4', workflow: null, fps: 16,
  };

  it('text-to-video: prompt, size, seed, video_frames = seconds x fps, fps, avi', () => {
    expect(vidGenBody(video, null, 5)).toEqual({ prompt: 'waves', width: 832, height: 480, seed: 5, video_frames: 48, fps: 16, output_format: 'avi' });
  });

  it('image-to-video: the reference as init_image, a data URI', () => {
    const body = vidGenBody({ ...video, requestType: 'image-to-video' }, { mime: 'image/png', bytes: png(2) }, 5);
    expect(body.init_image).toBe(`data:image/png;base64,${png(2).toString('base64')}`);
  });

  it('reads the created job id (ids the job routes take) and the job states', () => {
    expect(jobIdOf({ id: 'job_19a4f_00000001', kind: 'vid_gen', status: 'queued', poll_url: '/sdcpp/v1/jobs/job_19a4f_00000001' })).toBe('job_19a4f_00000001');
    expect(() => jobIdOf({ id: '../x' })).toThrow(/no id/);
    expect(jobStateOf({ status: 'queued', queue_position: 2, result: null, error: null })).toEqual({ status: 'queued', queuePosition: 2 });
    expect(jobStateOf({ status: 'generating', queue_position: 0 })).toEqual({ status: 'generating', queuePosition: 0 });
    expect(jobStateOf({ status: 'failed', error: { code: 'generation_failed', message: 'x' } })).toEqual({ status: 'failed' });
    expect(jobStateOf({ status: 'cancelled' })).toEqual({ status: 'cancelled' });
    const avi = Buffer.from('RIFF....AVI LIST');
    expect(jobStateOf({ status: 'completed', result: { output_format: 'avi', mime_type: 'video/x-msvideo', fps: 16, frame_count: 2, b64_json: avi.toString('base64') } })).toEqual({
      status: 'completed',
      video: avi,
      format: 'avi',
    });
    expect(() => jobStateOf({ status: 'completed', result: { b64_json: '' } })).toThrow(/no video/);
    expect(() => jobStateOf({ status: 'exploded' })).toThrow(/unknown status/);
  });
});

describe('sd.cpp discovered name', () => {
  it('the model file name made safe for a catalog id', () => {
    expect(modelName('sd_xl_base_1.0')).toBe('sd_xl_base_1.0');
    expect(modelName('  Flux.1 Dev (Q4_0) ')).toBe('flux.1-dev-q4_0');
    expect(modelName('../..')).toBe('');
  });
});
