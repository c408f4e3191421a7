// The emulators in a process of their own (test/emulators/child.ts, forked by startEmulatorProcess):
// same answers as in process, driven over IPC, and independent of this process's event loop.
import { afterEach, describe, expect, test } from 'vitest';
import { startEmulatorProcess, type RemoteEmulator } from '../emulators/index.js';

const started: RemoteEmulator[] = [];
const kept = (emulator: RemoteEmulator) => {
  started.push(emulator);
  return emulator;
};
afterEach(async () => {
  await Promise.all(started.splice(0).map((emulator) => emulator.close()));
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('an emulator in another process', () => {
  test('openai: answers, refuses like in process, takes faults and settings over IPC, records requests', async () => {
    const emu = kept(await startEmulatorProcess('openai', { apiKey: 'sk-remote' }));
    expect(emu.pid).not.toBe(process.pid);
    const post = (body: unknown) => fetch(`${emu.baseUrl}/images/generations`, { method: 'POST', headers: { authorization: 'Bearer sk-remote', 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await post({ model: 'gpt-image-1', prompt: 'x', size: '1024x1024' })).status).toBe(200);
    const refused = await post({ model: 'gpt-image-1', prompt: 'x', size: '256x256' });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { code: string; param: string } }).error).toMatchObject({ code: 'invalid_value', param: 'size' });

    await emu.inject('POST /v1/images/generations', { status: 503, times: 1 });
    expect((await post({ model: 'gpt-image-1', prompt: 'x' })).status).toBe(503);
    expect((await post({ model: 'gpt-image-1', prompt: 'x' })).status).toBe(200);
    await expect(emu.inject('POST /v1/nope/:id', { status: 500 })).rejects.toThrow(/unknown fault route/);

    await emu.settings({ image: { latencyMs: 200 } });
    const t0 = Date.now();
    expect((await post({ model: 'gpt-image-1', prompt: 'x' })).status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(190);

    const requests = await emu.requests();
    expect(requests.map((r) => `${r.method} ${r.route}`)).toEqual(Array(5).fill('POST POST /v1/images/generations'));
    expect(JSON.parse(requests[1]!.body)).toMatchObject({ size: '256x256' });
  });

  test("fal: the queue runs there and answers while this process's event loop is blocked", async () => {
    const fal = kept(await startEmulatorProcess('fal', { durationMs: 50 }));
    const submitted = fetch(`${fal.baseUrl}/fal-ai/flux/dev`, { method: 'POST', headers: { authorization: `Key ${fal.apiKey}`, 'content-type': 'application/json' }, body: '{"prompt":"x"}' });
    // Block this process for 300 ms: an in-process emulator could not answer meanwhile; this one
    // answers, and the reply waits in the socket until this loop reads it.
    const until = Date.now() + 300;
    while (Date.now() < until) {
      /* busy */
    }
    const job = (await (await submitted).json()) as { request_id: string; status_url: string };
    expect(job.request_id).toMatch(/[0-9a-f-]{36}/);
    const refused = await fetch(`${fal.baseUrl}/fal-ai/flux/dev`, { method: 'POST', headers: { authorization: `Key ${fal.apiKey}`, 'content-type': 'application/json' }, body: '{"prompt":"x","num_images":9}' });
    expect(refused.status).toBe(422);
    await fal.clearFaults();
    expect((await fal.requests()).length).toBe(2);
  });

  test('close() ends the process; a closed emulator refuses further calls', async () => {
    const emu = await startEmulatorProcess('openai');
    expect(alive(emu.pid)).toBe(true);
    await emu.close();
    expect(alive(emu.pid)).toBe(false);
    await expect(emu.inject('*', { status: 500 })).rejects.toThrow(/exited/);
    await emu.close(); // twice is fine
  });
});
