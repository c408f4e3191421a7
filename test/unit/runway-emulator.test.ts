// The Runway emulator on its own, spoken to as the SDK speaks (Bearer key, X-Runway-Version):
// refusals in Runway's shapes, the scripted lifecycle read by read, fresh output URLs on every
// read of a finished task and their expiry, DELETE's cancel-or-delete, the poll-rate count.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRunwayEmulator, type RunwayEmulator } from '../emulators/runway-emulator.js';

let rw: RunwayEmulator;
beforeAll(async () => {
  rw = await startRunwayEmulator({ pollFloorMs: 1_000 });
});
afterAll(async () => {
  await rw?.close();
});

const PNG = 'data:image/png;base64,' + Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]).toString('base64');

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${rw.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${rw.apiKey}`, 'x-runway-version': '2024-11-06', ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

describe('runway emulator', () => {
  it('refuses a wrong key (401), a missing or unknown version (400), and an invalid body with zod issues', async () => {
    expect((await call('GET', '/v1/organization', undefined, { authorization: 'Bearer nope' })).status).toBe(401);
    expect((await call('GET', '/v1/organization', undefined, { 'x-runway-version': '2023-01-01' })).body).toEqual({ error: expect.stringMatching(/version/) });
    const invalid = await call('POST', '/v1/text_to_image', { model: 'gen4_image', promptText: '', ratio: '1280:768', seed: 1.5, extra: 1 });
    expect(invalid.status).toBe(400);
    expect(invalid.body).toMatchObject({ error: 'Validation of body failed', docUrl: expect.any(String) });
    expect((invalid.body!.issues as { code: string; path: string[] }[]).map((i) => [i.code, i.path[0]])).toEqual([
      ['too_small', 'promptText'], ['invalid_value', 'ratio'], ['invalid_type', 'seed'], ['unrecognized_keys', undefined],
    ]);
    expect((await call('POST', '/v1/text_to_video', { model: 'gen4_turbo', promptText: 'x', ratio: '1280:720' })).body).toMatchObject({ issues: [{ code: 'invalid_union', path: ['model'] }] });
    expect((await call('POST', '/v1/image_to_video', { model: 'gen4_turbo', promptImage: 'http://x/a.png', ratio: '1280:720' })).body).toEqual({ error: 'promptImage: Only HTTPS URLs are allowed.' });
    expect((await call('POST', '/v1/text_to_image', { model: 'gen4_image_turbo', promptText: 'x', ratio: '1280:720', referenceImages: [{ uri: 'data:text/plain;base64,AAAA' }] })).body).toEqual({ error: 'referenceImages: Unsupported asset type.' });
  });

  it('a task answers its scripted states read by read, then fresh output URLs that expire; DELETE then 404', async () => {
    rw.behaviour.steps = [{ status: 'PENDING' }, { status: 'THROTTLED' }, { status: 'RUNNING', progress: 0.3 }];
    const { body } = await call('POST', '/v1/text_to_image', { model: 'gen4_image', promptText: 'x', ratio: '1280:720', referenceImages: [{ uri: PNG, tag: 'image_1' }] });
    const id = body!.id as string;
    const read = async () => (await call('GET', `/v1/tasks/${id}`)).body!;
    expect([(await read()).status, (await read()).status, await read()]).toEqual(['PENDING', 'THROTTLED', expect.objectContaining({ status: 'RUNNING', progress: 0.3 })]);
    const [a, b] = [(await read()).output as string[], (await read()).output as string[]];
    expect(a[0]).not.toBe(b[0]);
    expect(a[0]!.startsWith(rw.cdnOrigin)).toBe(true);
    expect((await fetch(a[0]!)).status).toBe(200);
    rw.expire(id);
    expect((await fetch(b[0]!)).status).toBe(403);
    expect((await call('DELETE', `/v1/tasks/${id}`)).status).toBe(204);
    expect((await call('GET', `/v1/tasks/${id}`)).status).toBe(404);
    // Reads closer together than pollFloorMs were counted.
    expect(rw.fastReads.filter((r) => r.taskId === id).length).toBeGreaterThan(0);
  });

  it('a held task stays at its last step until released; DELETE cancels it; a FAILED end carries its code', async () => {
    rw.behaviour.steps = [{ status: 'RUNNING', progress: 0.5 }];
    rw.behaviour.hold = true;
    const held = (await call('POST', '/v1/text_to_video', { model: 'veo3.1', promptText: 'x', ratio: '1280:720', duration: 4 })).body!.id as string;
    rw.behaviour.hold = false;
    rw.behaviour.end = { status: 'FAILED', failureCode: 'SAFETY.INPUT.TEXT' };
    const failing = (await call('POST', '/v1/text_to_video', { model: 'veo3.1', promptText: 'x', ratio: '1280:720' })).body!.id as string;
    rw.behaviour.end = { status: 'SUCCEEDED' };
    for (let i = 0; i < 3; i++) expect((await call('GET', `/v1/tasks/${held}`)).body!.status).toBe('RUNNING');
    expect((await call('DELETE', `/v1/tasks/${held}`)).status).toBe(204);
    expect((await call('GET', `/v1/tasks/${held}`)).body!.status).toBe('CANCELLED');
    await call('GET', `/v1/tasks/${failing}`);
    expect((await call('GET', `/v1/tasks/${failing}`)).body).toMatchObject({ status: 'FAILED', failureCode: 'SAFETY.INPUT.TEXT', failure: expect.any(String) });
    expect(rw.cancelCalls).toContain(held);
  });
});
