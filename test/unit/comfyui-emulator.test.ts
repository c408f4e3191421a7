// The ComfyUI emulator, driven with plain fetch and a `ws` client as a real ComfyUI client would:
// info routes, uploads, queueing graphs, following the websocket events, /history, /view.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import sharp from 'sharp';
import { probeMp4 } from '../helpers/emulator-checks.js';
import { startComfyUIEmulator, type ComfyUIEmulator } from '../emulators/comfyui-emulator.js';
import { CKPT, WsClient, comfyHttp, editGraph, pngOf, textToImage, videoGraph } from '../emulators/comfyui-client.js';

let comfy: ComfyUIEmulator;
const clients: WsClient[] = [];
const open = async (clientId: string) => {
  const client = await WsClient.open(comfy.origin, clientId);
  clients.push(client);
  return client;
};
const { getJson, upload, queuePrompt } = comfyHttp(() => comfy.origin);

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
