// The ComfyUI emulator, driven with plain fetch and a `ws` client as a real ComfyUI client would:
// upload, queue, follow the websocket events, read /history, download through /view.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import sharp from 'sharp';
import WebSocket from 'ws';
import { startComfyUIEmulator, type ComfyUIEmulator } from '../emulators/comfyui-emulator.js';
import { probeMp4 } from '../helpers/emulator-checks.js';

type Msg = { type: string; data: Record<string, any> };

class WsClient {
  readonly messages: Msg[] = [];
  readonly binary: Buffer[] = [];
  closed = false;
  private waiters: { pred: (m: Msg) => boolean; resolve: (m: Msg) => void }[] = [];
  private constructor(readonly ws: WebSocket) {
    ws.on('message', (raw: Buffer, isBinary: boolean) => {
      if (isBinary) return void this.binary.push(raw);
      const msg = JSON.parse(raw.toString()) as Msg;
      this.messages.push(msg);
      this.waiters = this.waiters.filter((w) => (w.pred(msg) ? (w.resolve(msg), false) : true));
    });
    ws.on('close', () => (this.closed = true));
  }
  static open(origin: string, clientId: string): Promise<WsClient> {
    const ws = new WebSocket(`${origin.replace('http', 'ws')}/ws?clientId=${clientId}`);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new WsClient(ws)));
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    });
  }
  waitFor(pred: (m: Msg) => boolean): Promise<Msg> {
    const seen = this.messages.find(pred);
    return seen ? Promise.resolve(seen) : new Promise((resolve) => this.waiters.push({ pred, resolve }));
  }
  /** Until the final {type: 'executing', data: {node: null}} of that prompt. */
  done(promptId: string): Promise<Msg> {
    return this.waitFor((m) => m.type === 'executing' && m.data.node === null && m.data.prompt_id === promptId);
  }
  close(): void {
    this.ws.close();
  }
}

let comfy: ComfyUIEmulator;
const clients: WsClient[] = [];
const open = async (clientId: string) => {
  const client = await WsClient.open(comfy.origin, clientId);
  clients.push(client);
  return client;
};
const post = (path: string, body: unknown) =>
  fetch(`${comfy.origin}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const bodyOf = (res: Response): Promise<any> => res.json();
const getJson = async (path: string) => (await fetch(`${comfy.origin}${path}`)).json() as Promise<any>;

const CKPT = 'v1-5-pruned-emaonly-fp16.safetensors';
function textToImage(options: { seed?: number; steps?: number; width?: number; height?: number } = {}): Record<string, any> {
  return {
    '3': { class_type: 'KSampler', inputs: { seed: options.seed ?? 42, steps: options.steps ?? 4, cfg: 7, sampler_name: 'euler', scheduler: 'normal', denoise: 1, model: ['4', 0], positive: ['6', 0], negative: ['7', 0], latent_image: ['5', 0] } },
    '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: CKPT } },
    '5': { class_type: 'EmptyLatentImage', inputs: { width: options.width ?? 320, height: options.height ?? 192, batch_size: 1 } },
    '6': { class_type: 'CLIPTextEncode', inputs: { text: 'a lighthouse at dusk', clip: ['4', 1] } },
    '7': { class_type: 'CLIPTextEncode', inputs: { text: 'blurry', clip: ['4', 1] } },
    '8': { class_type: 'VAEDecode', inputs: { samples: ['3', 0], vae: ['4', 2] } },
    '9': { class_type: 'SaveImage', inputs: { filename_prefix: 'ComfyUI', images: ['8', 0] } },
  };
}
function editGraph(image: string): Record<string, any> {
  const graph = textToImage({ seed: 7 });
  delete graph['5'];
  graph['10'] = { class_type: 'LoadImage', inputs: { image } };
  graph['11'] = { class_type: 'VAEEncode', inputs: { pixels: ['10', 0], vae: ['4', 2] } };
  graph['3'].inputs.latent_image = ['11', 0];
  graph['3'].inputs.denoise = 0.6;
  return graph;
}
function videoGraph(output: Record<string, any>): Record<string, any> {
  const graph = textToImage();
  graph['5'] = { class_type: 'EmptyHunyuanLatentVideo', inputs: { width: 320, height: 192, length: 9, batch_size: 1 } };
  delete graph['9'];
  return { ...graph, ...output };
}
async function upload(name: string, bytes: Buffer, fields: Record<string, string> = {}): Promise<any> {
  const form = new FormData();
  form.append('image', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), name);
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  const res = await fetch(`${comfy.origin}/upload/image`, { method: 'POST', body: form });
  expect(res.status).toBe(200);
  return res.json();
}
const pngOf = (width: number, height: number, r = 200) => sharp({ create: { width, height, channels: 3, background: { r, g: 10, b: 10 } } }).png().toBuffer();
async function queuePrompt(prompt: unknown, clientId = 'client-a', extra: Record<string, unknown> = {}): Promise<any> {
  const res = await post('/prompt', { prompt, client_id: clientId, ...extra });
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body;
}

beforeEach(async () => {
  comfy = await startComfyUIEmulator();
});
afterEach(async () => {
  clients.splice(0).forEach((c) => c.close());
  await comfy.close();
});

describe('ComfyUI emulator: info routes', () => {
  test('system_stats, models, object_info (old list form by default)', async () => {
    const stats = await getJson('/system_stats');
    expect(stats.system).toMatchObject({ os: 'posix', comfyui_version: expect.any(String), python_version: expect.any(String), ram_total: expect.any(Number), ram_free: expect.any(Number) });
    expect(stats.devices[0]).toEqual({ name: expect.any(String), type: 'cuda', index: 0, vram_total: expect.any(Number), vram_free: expect.any(Number), torch_vram_total: expect.any(Number), torch_vram_free: expect.any(Number) });
    expect(await getJson('/models/checkpoints')).toContain(CKPT);
    expect(await getJson('/api/models/checkpoints')).toContain(CKPT);
    expect((await fetch(`${comfy.origin}/models/nope`)).status).toBe(404);
    const info = await getJson('/object_info/CheckpointLoaderSimple');
    expect(info.CheckpointLoaderSimple.input.required.ckpt_name[0]).toContain(CKPT);
    expect(info.CheckpointLoaderSimple).toMatchObject({ output: ['MODEL', 'CLIP', 'VAE'], output_node: false, name: 'CheckpointLoaderSimple' });
    expect(await getJson('/object_info/NoSuchNode')).toEqual({});
    const all = await getJson('/object_info');
    expect(all.SaveVideo.input.required.format).toEqual(['COMBO', expect.objectContaining({ options: ['auto', 'mp4'] })]);
    expect(all.VHS_VideoCombine.output_node).toBe(true);
  });

  test('COMBO form and a server without /models', async () => {
    await comfy.close();
    comfy = await startComfyUIEmulator({ comboForm: 'combo', modelsRoute: false });
    const info = await getJson('/object_info/CheckpointLoaderSimple');
    expect(info.CheckpointLoaderSimple.input.required.ckpt_name).toEqual(['COMBO', expect.objectContaining({ options: expect.arrayContaining([CKPT]) })]);
    expect((await fetch(`${comfy.origin}/models/checkpoints`)).status).toBe(404);
  });

  test('uploads: name collisions get " (1)" unless overwrite; identical bytes reuse the name', async () => {
    const a = await pngOf(40, 30);
    const b = await pngOf(40, 30, 20);
    expect(await upload('in.png', a)).toEqual({ name: 'in.png', subfolder: '', type: 'input' });
    expect(await upload('in.png', a)).toEqual({ name: 'in.png', subfolder: '', type: 'input' });
    expect(await upload('in.png', b)).toEqual({ name: 'in (1).png', subfolder: '', type: 'input' });
    expect(await upload('in.png', b, { overwrite: 'true' })).toEqual({ name: 'in.png', subfolder: '', type: 'input' });
    expect(await upload('x.png', a, { subfolder: 'edits' })).toEqual({ name: 'x.png', subfolder: 'edits', type: 'input' });
    expect(comfy.uploads.map((u) => u.name)).toEqual(['in.png', 'in.png', 'in (1).png', 'in.png', 'x.png']);
    const view = await fetch(`${comfy.origin}/view?filename=x.png&subfolder=edits&type=input`);
    expect(view.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await view.arrayBuffer()).equals(a)).toBe(true);
    expect((await fetch(`${comfy.origin}/view?filename=nope.png&type=output`)).status).toBe(404);
  });
});

describe('ComfyUI emulator: running prompts', () => {
  test('text to image: ws events in order, history, the PNG via /view', async () => {
    const ws = await open('client-a');
    const status = await ws.waitFor((m) => m.type === 'status');
    expect(status.data).toEqual({ status: { exec_info: { queue_remaining: 0 } }, sid: 'client-a' });
    const queued = await queuePrompt(textToImage());
    expect(queued).toEqual({ prompt_id: expect.any(String), number: 0, node_errors: {} });
    const id = queued.prompt_id;
    await ws.done(id);
    const mine = ws.messages.filter((m) => m.data.prompt_id === id && m.type !== 'progress_state').map((m) => `${m.type}:${m.data.node ?? ''}`);
    expect(mine).toEqual([
      'execution_start:', 'execution_cached:',
      'executing:4', 'executing:5', 'executing:7', 'executing:6', 'executing:3',
      'progress:3', 'progress:3', 'progress:3', 'progress:3',
      'executing:8', 'executing:9', 'executed:9', 'execution_success:', 'executing:',
    ]);
    const progress = ws.messages.filter((m) => m.type === 'progress').map((m) => [m.data.value, m.data.max]);
    expect(progress).toEqual([[1, 4], [2, 4], [3, 4], [4, 4]]);
    expect(ws.binary.length).toBeGreaterThan(0);
    expect(ws.binary[0]!.readUInt32BE(0)).toBe(1);
    expect(ws.binary[0]!.readUInt32BE(4)).toBe(1);
    const executed = ws.messages.find((m) => m.type === 'executed')!;
    expect(executed.data.output).toEqual({ images: [{ filename: 'ComfyUI_00001_.png', subfolder: '', type: 'output' }] });

    const history = await getJson(`/history/${id}`);
    expect(history[id].status).toMatchObject({ status_str: 'success', completed: true });
    expect(history[id].status.messages.map((m: [string]) => m[0])).toEqual(['execution_start', 'execution_cached', 'execution_success']);
    expect(history[id].prompt.slice(0, 2)).toEqual([0, id]);
    expect(history[id].prompt[3]).toEqual({ client_id: 'client-a' });
    expect(history[id].outputs['9'].images[0].filename).toBe('ComfyUI_00001_.png');
    const view = await fetch(`${comfy.origin}/view?filename=ComfyUI_00001_.png&subfolder=&type=output`);
    expect(view.headers.get('content-type')).toBe('image/png');
    expect(await sharp(Buffer.from(await view.arrayBuffer())).metadata()).toMatchObject({ width: 320, height: 192 });
    expect(comfy.prompts[0]).toMatchObject({ prompt_id: id, client_id: 'client-a', status: 200 });
    expect(comfy.wsConnections.map((c) => c.clientId)).toEqual(['client-a']);

    // The same graph again is all cached (classic cache): nothing runs, the outputs are re-sent.
    const again = (await queuePrompt(textToImage())).prompt_id;
    await ws.done(again);
    const cached = ws.messages.find((m) => m.type === 'execution_cached' && m.data.prompt_id === again)!;
    expect(cached.data.nodes).toHaveLength(7);
    expect((await getJson(`/history/${again}`))[again].outputs['9'].images[0].filename).toBe('ComfyUI_00001_.png');
  });

  test('edit graph: the output has the uploaded image size (cropped to multiples of 8)', async () => {
    const ws = await open('client-b');
    const { name } = await upload('photo.png', await pngOf(300, 203));
    const id = (await queuePrompt(editGraph(name), 'client-b')).prompt_id;
    await ws.done(id);
    const entry = await comfy.waitForHistory(id);
    const image = entry.outputs['9'] as { images: { filename: string; subfolder: string; type: string }[] };
    const res = await fetch(`${comfy.origin}/view?${new URLSearchParams(image.images[0]!)}`);
    expect(await sharp(Buffer.from(await res.arrayBuffer())).metadata()).toMatchObject({ width: 296, height: 200 });

    // Two references, each scaled (ImageScale) and encoded, blended (LatentBlend); values as strings.
    const second = (await upload('second.png', await pngOf(120, 90, 30))).name;
    const graph = editGraph(name);
    graph['12'] = { class_type: 'ImageScale', inputs: { image: ['10', 0], upscale_method: 'lanczos', width: '256', height: '192', crop: 'center' } };
    graph['13'] = { class_type: 'LoadImage', inputs: { image: second } };
    graph['14'] = { class_type: 'ImageScale', inputs: { image: ['13', 0], upscale_method: 'lanczos', width: '256', height: '192', crop: 'center' } };
    graph['15'] = { class_type: 'VAEEncode', inputs: { pixels: ['14', 0], vae: ['4', 2] } };
    graph['11'].inputs.pixels = ['12', 0];
    graph['16'] = { class_type: 'LatentBlend', inputs: { samples1: ['11', 0], samples2: ['15', 0], blend_factor: 0.5 } };
    graph['3'].inputs.latent_image = ['16', 0];
    const blended = (await queuePrompt(graph, 'client-b')).prompt_id;
    const out = (await comfy.waitForHistory(blended)).outputs['9'] as { images: { filename: string }[] };
    expect(out.images[0]!.filename).toBe('ComfyUI_00002_.png');
    expect(await sharp(comfy.file('output', 'ComfyUI_00002_.png')!).metadata()).toMatchObject({ width: 256, height: 192 });
    expect((await comfy.waitForHistory(blended)).prompt[2]['12']!.inputs.width).toBe(256);
  });

  test('video: SaveVideo writes a real H.264 MP4; VHS reports gifs; SaveWEBM is WebM', async () => {
    const ws = await open('client-v');
    const saveVideo = videoGraph({
      '20': { class_type: 'CreateVideo', inputs: { images: ['8', 0], fps: 8 } },
      '21': { class_type: 'SaveVideo', inputs: { video: ['20', 0], filename_prefix: 'video/ComfyUI', format: 'auto', codec: 'auto' } },
    });
    const id = (await queuePrompt(saveVideo, 'client-v')).prompt_id;
    await ws.done(id);
    const out = (await comfy.waitForHistory(id)).outputs['21'];
    expect(out).toEqual({ images: [{ filename: 'ComfyUI_00001_.mp4', subfolder: 'video', type: 'output' }], animated: [true] });
    const mp4 = await fetch(`${comfy.origin}/view?filename=ComfyUI_00001_.mp4&subfolder=video&type=output`);
    expect(mp4.headers.get('content-type')).toBe('video/mp4');
    expect(probeMp4(Buffer.from(await mp4.arrayBuffer()))).toMatchObject({ codec: 'h264', width: 320, height: 192, frames: 9 });

    const vhs = videoGraph({ '30': { class_type: 'VHS_VideoCombine', inputs: { images: ['8', 0], frame_rate: 12, loop_count: 0, filename_prefix: 'AnimateDiff', format: 'video/h264-mp4', pingpong: false, save_output: true } } });
    const vid = (await queuePrompt(vhs, 'client-v')).prompt_id;
    await ws.done(vid);
    const gifs = (await comfy.waitForHistory(vid)).outputs['30'] as { gifs: Record<string, unknown>[] };
    expect(gifs.gifs[0]).toMatchObject({ filename: 'AnimateDiff_00001.mp4', subfolder: '', type: 'output', format: 'video/h264-mp4', frame_rate: 12, fullpath: expect.stringMatching(/output\/AnimateDiff_00001\.mp4$/) });
    expect(probeMp4(comfy.file('output', 'AnimateDiff_00001.mp4')!)).toMatchObject({ codec: 'h264', width: 320, height: 192, frames: 9 });

    const webm = videoGraph({ '40': { class_type: 'SaveWEBM', inputs: { images: ['8', 0], filename_prefix: 'ComfyUI', codec: 'vp9', fps: 24, crf: 32 } } });
    const wid = (await queuePrompt(webm, 'client-v')).prompt_id;
    await ws.done(wid);
    const webOut = (await comfy.waitForHistory(wid)).outputs['40'] as { images: { filename: string }[]; animated: boolean[] };
    expect(webOut.animated).toEqual([true]);
    const bytes = Buffer.from(await (await fetch(`${comfy.origin}/view?filename=${webOut.images[0]!.filename}&type=output`)).arrayBuffer());
    expect(bytes.subarray(0, 4)).toEqual(Buffer.from([0x1a, 0x45, 0xdf, 0xa3]));
  });
});

describe('ComfyUI emulator: refusals and faults', () => {
  test('invalid prompts answer the real 400 shapes', async () => {
    const unknown = await post('/prompt', { prompt: { '1': { class_type: 'Nope', inputs: {} } } });
    expect(unknown.status).toBe(400);
    expect(await bodyOf(unknown)).toEqual({ error: { type: 'invalid_prompt', message: 'Cannot execute because node Nope does not exist.', details: "Node ID '#1'", extra_info: {} }, node_errors: {} });

    const noOut = await bodyOf(await post('/prompt', { prompt: { '4': textToImage()['4'] } }));
    expect(noOut.error.type).toBe('prompt_no_outputs');

    const bad = textToImage();
    bad['4'].inputs.ckpt_name = 'missing.safetensors';
    delete bad['6'].inputs.text;
    const res = await post('/prompt', { prompt: bad });
    expect(res.status).toBe(400);
    const body = await bodyOf(res);
    expect(body.error.type).toBe('prompt_outputs_failed_validation');
    expect(body.node_errors['4']).toEqual({
      errors: [{ type: 'value_not_in_list', message: 'Value not in list', details: `ckpt_name: 'missing.safetensors' not in ['v1-5-pruned-emaonly-fp16.safetensors', 'sd_xl_base_1.0.safetensors', 'ltx-video-2b-v0.9.5.safetensors']`, extra_info: expect.objectContaining({ input_name: 'ckpt_name', received_value: 'missing.safetensors' }) }],
      dependent_outputs: ['9'], class_type: 'CheckpointLoaderSimple',
    });
    expect(body.node_errors['6'].errors[0]).toMatchObject({ type: 'required_input_missing', message: 'Required input is missing', details: 'text' });

    const notUploaded = await bodyOf(await post('/prompt', { prompt: editGraph('never.png') }));
    expect(notUploaded.node_errors['10'].errors[0]).toEqual({ type: 'custom_validation_failed', message: 'Custom validation failed for node', details: 'image - Invalid image file: never.png', extra_info: { input_name: 'image' } });

    const badLink = textToImage();
    badLink['8'].inputs.samples = ['99', 0];
    const link = await bodyOf(await post('/prompt', { prompt: badLink }));
    expect(link.node_errors['8'].errors[0]).toMatchObject({ type: 'exception_during_inner_validation', details: "'99'", extra_info: { exception_type: 'KeyError' } });

    comfy.refuseNext();
    expect((await post('/prompt', { prompt: textToImage() })).status).toBe(400);
    expect(comfy.prompts.at(-1)).toMatchObject({ status: 400 });
  });

  test('queue shape, delete a pending prompt, interrupt the running one', async () => {
    const ws = await open('client-q');
    const hold = comfy.holdAt(2);
    const first = (await queuePrompt(textToImage({ seed: 1 }), 'client-q')).prompt_id;
    const second = (await queuePrompt(textToImage({ seed: 2 }), 'client-q')).prompt_id;
    const third = (await queuePrompt(textToImage({ seed: 3 }), 'client-q', { prompt_id: 'my-own-id' })).prompt_id;
    expect(third).toBe('my-own-id');
    await hold.reached;
    const queue = await getJson('/queue');
    expect(queue.queue_running).toHaveLength(1);
    expect(queue.queue_running[0].slice(0, 2)).toEqual([0, first]);
    expect(queue.queue_running[0][3]).toEqual({ client_id: 'client-q' });
    expect(queue.queue_running[0][4]).toEqual(['9']);
    expect(queue.queue_pending.map((item: unknown[]) => item[1]).sort()).toEqual([second, third].sort());
    expect(await getJson(`/history/${first}`)).toEqual({});

    expect((await post('/queue', { delete: [second] })).status).toBe(200);
    expect((await getJson('/queue')).queue_pending.map((item: unknown[]) => item[1])).toEqual([third]);
    await post('/interrupt', { prompt_id: 'not-running' });
    expect(comfy.interrupts).toEqual([{ prompt_id: 'not-running', applied: false }]);
    await post('/interrupt', { prompt_id: first });
    hold.release();
    const interrupted = await ws.waitFor((m) => m.type === 'execution_interrupted');
    expect(interrupted.data).toMatchObject({ prompt_id: first, node_id: '3', node_type: 'KSampler', executed: ['4', '5', '7', '6'] });
    expect((await comfy.waitForHistory(first)).status).toMatchObject({ status_str: 'error', completed: false });
    await ws.done(third);
    expect((await comfy.waitForHistory(third)).status?.status_str).toBe('success');
    expect(await getJson(`/history/${second}`)).toEqual({});
    expect(comfy.queueDeletes).toEqual([{ delete: [second] }]);
  });

  test('failAt: execution_error with the exception, history status error', async () => {
    const ws = await open('client-f');
    comfy.failAt(3, 'CUDA error: an illegal memory access was encountered');
    const id = (await queuePrompt(textToImage(), 'client-f')).prompt_id;
    await ws.done(id);
    const error = ws.messages.find((m) => m.type === 'execution_error')!;
    expect(error.data).toMatchObject({ prompt_id: id, node_id: '3', node_type: 'KSampler', exception_type: 'RuntimeError', exception_message: expect.stringContaining('illegal memory access') });
    expect(ws.messages.filter((m) => m.type === 'progress')).toHaveLength(2);
    const entry = await comfy.waitForHistory(id);
    expect(entry.status).toMatchObject({ status_str: 'error', completed: false });
    expect(entry.status!.messages.map((m) => m[0])).toEqual(['execution_start', 'execution_cached', 'execution_error']);
  });

  test('dropWebSockets mid-run: the run goes on and history fills; a reconnect hears the rest', async () => {
    const ws = await open('client-d');
    const hold = comfy.holdAt(1);
    const id = (await queuePrompt(textToImage(), 'client-d')).prompt_id;
    await hold.reached;
    comfy.dropWebSockets();
    await new Promise<void>((resolve) => (ws.closed ? resolve() : ws.ws.once('close', () => resolve())));
    const again = await open('client-d');
    const executing = await again.waitFor((m) => m.type === 'executing');
    expect(executing.data).toEqual({ node: '3' });
    hold.release();
    await again.done(id);
    expect((await comfy.waitForHistory(id)).status?.status_str).toBe('success');
    expect(comfy.wsConnections.map((c) => c.clientId)).toEqual(['client-d', 'client-d']);
  });

  test('feature_flags negotiation switches previews to PREVIEW_IMAGE_WITH_METADATA; HTTP faults', async () => {
    const ws = await open('client-p');
    ws.ws.send(JSON.stringify({ type: 'feature_flags', data: { supports_preview_metadata: true } }));
    const flags = await ws.waitFor((m) => m.type === 'feature_flags');
    expect(flags.data).toEqual({ supports_preview_metadata: true, max_upload_size: 104857600 });
    const id = (await queuePrompt(textToImage({ steps: 2 }), 'client-p')).prompt_id;
    await ws.done(id);
    const frame = ws.binary[0]!;
    expect(frame.readUInt32BE(0)).toBe(4);
    const meta = JSON.parse(frame.subarray(8, 8 + frame.readUInt32BE(4)).toString());
    expect(meta).toMatchObject({ node_id: '3', prompt_id: id, image_type: 'image/jpeg' });

    comfy.inject('GET /history/{prompt_id}', { status: 500, times: 1 });
    expect((await fetch(`${comfy.origin}/history/${id}`)).status).toBe(500);
    expect((await fetch(`${comfy.origin}/history/${id}`)).status).toBe(200);
  });

  test('noWebSocket, down/up and forget', async () => {
    comfy.noWebSocket(true);
    await expect(WsClient.open(comfy.origin, 'client-x')).rejects.toThrow(/403/);
    comfy.noWebSocket(false);

    const hold = comfy.holdAt(1);
    const id = (await queuePrompt(textToImage(), 'nobody-listening')).prompt_id;
    await hold.reached;
    await comfy.down();
    await expect(fetch(`${comfy.origin}/queue`)).rejects.toThrow();
    await comfy.up();
    expect((await getJson('/queue')).queue_running[0][1]).toBe(id);
    comfy.forget();
    expect(await getJson('/queue')).toEqual({ queue_running: [], queue_pending: [] });
    await comfy.idle();
    expect(await getJson(`/history/${id}`)).toEqual({});
    const next = await queuePrompt(textToImage({ seed: 5 }));
    expect(next.number).toBe(0);
    expect((await comfy.waitForHistory(next.prompt_id)).status?.status_str).toBe('success');
  });
});
