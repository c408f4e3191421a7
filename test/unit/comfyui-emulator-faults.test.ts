// The ComfyUI emulator's refusals (validation 400s) and injected faults, driven as a real client
// would: interrupt and queue delete, failAt, dropWebSockets, feature flags, noWebSocket, down/up, forget.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { startComfyUIEmulator, type ComfyUIEmulator } from '../emulators/comfyui-emulator.js';
import { WsClient, comfyHttp, editGraph, textToImage } from '../emulators/comfyui-client.js';

let comfy: ComfyUIEmulator;
const clients: WsClient[] = [];
const open = async (clientId: string) => {
  const client = await WsClient.open(comfy.origin, clientId);
  clients.push(client);
  return client;
};
const { post, getJson, queuePrompt } = comfyHttp(() => comfy.origin);
const bodyOf = (res: Response): Promise<any> => res.json();

beforeEach(async () => {
  comfy = await startComfyUIEmulator();
});
afterEach(async () => {
  clients.splice(0).forEach((c) => c.close());
  await comfy.close();
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
    await ws.gone();
    const again = await open('client-d');
    const executing = await again.waitFor((m) => m.type === 'executing');
    expect(executing.data).toEqual({ node: '3' });
    hold.release();
    await again.done(id);
    expect((await comfy.waitForHistory(id)).status?.status_str).toBe('success');
    expect(comfy.wsConnections.map((c) => c.clientId)).toEqual(['client-d', 'client-d']);
  });

  test("a prompt's events go only to the client id it was queued with; reconnecting under that id mid-run hears the current node, then the whole progress_state", async () => {
    const other = await open('client-other');
    const ws = await open('client-p');
    const hold = comfy.holdAt(2);
    const id = (await queuePrompt(textToImage(), 'client-p')).prompt_id;
    await hold.reached;
    comfy.dropWebSockets();
    await Promise.all([ws.gone(), other.gone()]);
    const again = await open('client-p');
    const bystander = await open('client-other');
    // server.py websocket_handler: the running prompt's client gets {node: last_node_id}, with no prompt id.
    expect((await again.waitFor((m) => m.type === 'executing')).data).toEqual({ node: '3' });
    hold.release();
    await again.done(id);
    // comfy_execution/progress.py: every node that started, so a late listener learns what ran before it came.
    const state = await again.waitFor((m) => m.type === 'progress_state');
    expect(state.data.prompt_id).toBe(id);
    expect(state.data.nodes['3']).toMatchObject({ state: 'running', value: 3, max: 4 });
    for (const node of ['4', '5', '6', '7']) expect(state.data.nodes[node]).toMatchObject({ state: 'finished' });
    // The queue's last status broadcast comes before the prompt's final event: the bystander has heard all it will.
    await bystander.waitFor((m) => m.type === 'status' && m.data.status.exec_info.queue_remaining === 0 && bystander.messages.length > 1);
    expect(new Set(bystander.messages.map((m) => m.type))).toEqual(new Set(['status']));
    const aboutPrompt = comfy.wsMessages.filter((m) => (m.data as { prompt_id?: unknown }).prompt_id === id);
    expect(aboutPrompt.length).toBeGreaterThan(10);
    expect(new Set(aboutPrompt.map((m) => m.sid))).toEqual(new Set(['client-p']));
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
