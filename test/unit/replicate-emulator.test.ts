// The Replicate emulator itself, spoken to as the official client speaks (Authorization: Bearer,
// JSON bodies, Prefer: wait, multipart files): what the adapter's tests rely on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReplicateEmulator, type ReplicateEmulator } from '../emulators/replicate-emulator.js';
import { REPLICATE_MODELS } from '../emulators/replicate-models.js';
import { parseDuration } from '../emulators/replicate-predictions.js';
import { cachedPng } from '../emulators/png.js';
import { waitFor } from '../helpers/stub-video-provider.js';

let rep: ReplicateEmulator;
beforeAll(async () => {
  rep = await startReplicateEmulator({ durationMs: 200 });
});
afterAll(async () => rep?.close());

const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
  const response = await fetch(`${rep.origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${rep.apiKey}`, ...(body !== undefined && !(body instanceof FormData) ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: body instanceof FormData ? body : JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, type: response.headers.get('content-type'), headers: response.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
};

describe('Replicate emulator', () => {
  it('refuses a missing or wrong key with a 401 problem, and tells the account to the right one', async () => {
    const wrong = await call('GET', '/v1/account', undefined, { authorization: 'Bearer nope' });
    expect(wrong).toMatchObject({ status: 401, type: 'application/problem+json', body: { title: 'Unauthenticated', status: 401 } });
    expect((await call('GET', '/v1/account')).body).toMatchObject({ type: 'user', username: 'emulator' });
  });

  it('sync mode: an official model answers 201 succeeded with its output; without Prefer, 201 starting', async () => {
    const sync = await call('POST', '/v1/models/black-forest-labs/flux-schnell/predictions', { input: { prompt: 'a fox', aspect_ratio: '16:9' } }, { prefer: 'wait=5' });
    expect(sync.status).toBe(201);
    expect(sync.body).toMatchObject({ status: 'succeeded', version: 'hidden', model: 'black-forest-labs/flux-schnell' });
    const [url] = sync.body.output as string[];
    const file = await fetch(url!, { headers: { authorization: `Bearer ${rep.apiKey}` } });
    expect(file.headers.get('content-type')).toBe('image/png');
    // The output needs the key.
    expect((await fetch(url!)).status).toBe(401);
    const async = await call('POST', '/v1/predictions', { version: 'black-forest-labs/flux-schnell', input: { prompt: 'a fox' } });
    expect(async).toMatchObject({ status: 201, body: { status: 'starting', output: null } });
  });

  it('a wait that passes answers 202 unfinished; polling sees processing (with tqdm logs), then succeeded', async () => {
    rep.behaviour.syncWaitMs = 20;
    rep.behaviour.stuck = true;
    try {
      const created = await call('POST', '/v1/models/google/veo-3/predictions', { input: { prompt: 'waves', duration: 4 } }, { prefer: 'wait' });
      expect(created).toMatchObject({ status: 202, body: { status: 'starting' } });
      const id = created.body.id as string;
      const running = await waitFor(async () => {
        const answer = await call('GET', `/v1/predictions/${id}`);
        return answer.body.status === 'processing' ? answer : null;
      });
      expect(running.body.logs).toMatch(/\d+%\|.*\| \d+\/28/);
      rep.predictions.get(id)!.completeNow();
      expect((await call('GET', `/v1/predictions/${id}`)).body).toMatchObject({ status: 'succeeded', output: expect.stringMatching(/output\.mp4$/) });
    } finally {
      rep.behaviour.syncWaitMs = null;
      rep.behaviour.stuck = false;
    }
  });

  it('422 problems: unknown top-level fields, an input the model refuses (invalid_fields), an unknown version', async () => {
    const typo = await call('POST', '/v1/predictions', { version: REPLICATE_MODELS.at(-1)!.version, inptu: {} });
    expect(typo.status).toBe(422);
    expect(typo.body.invalid_fields).toEqual([
      { type: 'required', field: '', description: 'input is required' },
      { type: 'additional_property_not_allowed', field: '', description: 'Additional property inptu is not allowed' },
    ]);
    const refused = await call('POST', '/v1/models/kwaivgi/kling-v2.1/predictions', { input: { prompt: 'x', duration: 7 } });
    expect(refused.body).toMatchObject({ title: 'Input validation failed', status: 422 });
    expect((refused.body.invalid_fields as { field: string; type: string }[]).map((f) => [f.field, f.type])).toEqual([['input.start_image', 'required'], ['input.duration', 'enum']]);
    expect((await call('POST', '/v1/predictions', { version: 'f'.repeat(64), input: {} })).body).toMatchObject({ status: 422, title: 'Invalid version' });
    // A community model is run by version only.
    expect((await call('POST', '/v1/models/stability-ai/sdxl/predictions', { input: { prompt: 'x' } })).status).toBe(404);
  });

  it('files: uploaded by multipart, usable as an input, deleted; a cancel ends a running prediction', async () => {
    const form = new FormData();
    form.append('content', new Blob([cachedPng(64, 48)], { type: 'image/png' }), 'ref.png');
    const file = await call('POST', '/v1/files', form);
    expect(file.status).toBe(201);
    const url = (file.body.urls as { get: string }).get;
    rep.behaviour.stuck = true;
    try {
      const created = await call('POST', '/v1/models/black-forest-labs/flux-kontext-pro/predictions', { input: { prompt: 'x', input_image: url, aspect_ratio: 'match_input_image' } });
      const prediction = rep.predictions.get(created.body.id as string)!;
      expect(prediction.inputFiles.map((f) => f.bytes.readUInt32BE(16))).toEqual([64]);
      const cancelled = await call('POST', `/v1/predictions/${prediction.id}/cancel`);
      expect(cancelled.body.status).toBe('canceled');
    } finally {
      rep.behaviour.stuck = false;
    }
    expect((await call('DELETE', `/v1/files/${file.body.id as string}`)).status).toBe(204);
    expect(rep.files.size).toBe(0);
  });

  it('Cancel-After: a prediction past its deadline is aborted before it starts, cancelled after', async () => {
    expect(parseDuration('1h30m45s')).toBe(5_445_000);
    expect(parseDuration('90')).toBe(90_000);
    expect(parseDuration('soon')).toBeNull();
    expect((await call('POST', '/v1/models/google/veo-3/predictions', { input: { prompt: 'x' } }, { 'cancel-after': '2s' })).status).toBe(400);
    const created = await call('POST', '/v1/models/google/veo-3/predictions', { input: { prompt: 'x' } }, { 'cancel-after': '5s' });
    expect(created.body.deadline).toEqual(expect.any(String));
  });
});
