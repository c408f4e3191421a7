// The Gemini API emulator answers requests shaped as the official SDK (js-genai) sends them:
// keys, models.list, generateContent (images, refusals, usage), predictLongRunning and its
// operation, the video file behind the key that redirects to storage, and its error bodies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGeminiEmulator, type GeminiEmulator } from '../emulators/gemini-emulator.js';
import { inspectPng } from '../emulators/png-inspect.js';
import { encodePng } from '../emulators/png.js';

let emu: GeminiEmulator;
beforeAll(async () => {
  emu = await startGeminiEmulator();
});
afterAll(async () => {
  await emu?.close();
});

const call = (path: string, body?: unknown, key: string | null = emu.apiKey) =>
  fetch(`${emu.origin}/v1beta/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { ...(key ? { 'x-goog-api-key': key } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    redirect: 'manual',
  });
const jsonOf = async (response: Response) => ({ status: response.status, body: (await response.json()) as Record<string, any> });

describe('keys and models', () => {
  it('lists models a page at a time with the key (header or ?key=); a wrong key is 400 API_KEY_INVALID, none 403', async () => {
    const page = await jsonOf(await call('models?pageSize=1'));
    expect(page.status).toBe(200);
    expect(page.body.models).toHaveLength(1);
    expect(page.body.models[0].name).toMatch(/^models\//);
    expect(page.body.nextPageToken).toBe('1');
    expect((await fetch(`${emu.origin}/v1beta/models?key=${emu.apiKey}`)).status).toBe(200);
    const wrong = await jsonOf(await call('models', undefined, 'AIza-wrong'));
    expect(wrong).toMatchObject({ status: 400, body: { error: { code: 400, status: 'INVALID_ARGUMENT', details: [{ reason: 'API_KEY_INVALID' }, {}] } } });
    expect((await jsonOf(await call('models', undefined, null))).body.error.status).toBe('PERMISSION_DENIED');
  });
});

describe('generateContent', () => {
  const text = (prompt: string) => ({ contents: [{ role: 'user', parts: [{ text: prompt }] }] });

  it('an image at the asked ratio, text when asked, usage; a reference keeps its shape', async () => {
    const { body } = await jsonOf(await call('models/gemini-2.5-flash-image:generateContent', { ...text('a fox'), generationConfig: { responseModalities: ['TEXT', 'IMAGE'], imageConfig: { aspectRatio: '16:9' } } }));
    const parts = body.candidates[0].content.parts;
    expect(parts[0].text).toBeTypeOf('string');
    expect(inspectPng(Buffer.from(parts[1].inlineData.data, 'base64'))).toMatchObject({ width: 1344, height: 768 });
    expect(body.usageMetadata).toMatchObject({ promptTokenCount: 2, candidatesTokenCount: 1298 });
    const reference = encodePng(300, 400);
    const edit = await jsonOf(await call('models/gemini-2.5-flash-image:generateContent', {
      contents: [{ parts: [{ text: 'snow' }, { inlineData: { mimeType: 'image/png', data: reference.toString('base64') } }] }],
      generationConfig: { responseModalities: ['IMAGE'] },
    }));
    const out = edit.body.candidates[0].content.parts;
    expect(out).toHaveLength(1);
    expect(inspectPng(Buffer.from(out[0].inlineData.data, 'base64'))).toMatchObject({ width: 864, height: 1184 });
    expect(emu.contents.at(-1)!.images[0]!.bytes.equals(reference)).toBe(true);
  });

  it('3 Pro Image: thought parts first, 2K, thinking tokens', async () => {
    const { body } = await jsonOf(await call('models/gemini-3-pro-image-preview:generateContent', { ...text('a fox'), generationConfig: { responseModalities: ['IMAGE'], imageConfig: { aspectRatio: '1:1', imageSize: '2K' } } }));
    const parts = body.candidates[0].content.parts;
    expect(parts.map((p: { thought?: boolean }) => p.thought === true)).toEqual([true, true, false]);
    expect(inspectPng(Buffer.from(parts[2].inlineData.data, 'base64'))).toMatchObject({ width: 2048, height: 2048 });
    expect(body.usageMetadata).toMatchObject({ candidatesTokenCount: 1120, thoughtsTokenCount: 180 });
  });

  it('refusals as the API words them; an unknown model, a ratio or field it does not take, a text model asked for images', async () => {
    emu.refuseNextImage('prompt-blocked');
    expect((await jsonOf(await call('models/gemini-2.5-flash-image:generateContent', text('x')))).body.promptFeedback).toEqual({ blockReason: 'PROHIBITED_CONTENT' });
    emu.refuseNextImage('image-safety');
    expect((await jsonOf(await call('models/gemini-2.5-flash-image:generateContent', text('x')))).body.candidates[0]).toEqual({ finishReason: 'IMAGE_SAFETY', index: 0 });
    expect((await jsonOf(await call('models/gemini-9-image:generateContent', text('x')))).body.error.status).toBe('NOT_FOUND');
    const ratio = await jsonOf(await call('models/gemini-2.5-flash-image:generateContent', { ...text('x'), generationConfig: { imageConfig: { aspectRatio: '7:4' } } }));
    expect(ratio.status).toBe(400);
    expect((await jsonOf(await call('models/gemini-2.5-flash-image:generateContent', { ...text('x'), generationConfig: { size: '1024x1024' } }))).body.error.message).toMatch(/Unknown name "size"/);
    expect((await jsonOf(await call('models/gemini-2.5-flash:generateContent', { ...text('x'), generationConfig: { responseModalities: ['IMAGE'] } }))).status).toBe(400);
  });
});

describe('Veo', () => {
  it('an operation polled until done; its file behind the key redirects to storage, which serves an MP4', async () => {
    const gate = emu.holdOperations();
    const created = await jsonOf(await call('models/veo-3.0-generate-001:predictLongRunning', { instances: [{ prompt: 'waves' }], parameters: { aspectRatio: '9:16', durationSeconds: 4 } }));
    expect(created.body.name).toMatch(/^models\/veo-3\.0-generate-001\/operations\/[0-9a-f]+$/);
    expect((await jsonOf(await call(created.body.name))).body).toEqual({ name: created.body.name });
    gate.release();
    const done = (await jsonOf(await call(created.body.name))).body;
    const uri: string = done.response.generateVideoResponse.generatedSamples[0].video.uri;
    expect(uri).toMatch(/\/v1beta\/files\/[a-z0-9]+:download\?alt=media$/);
    expect((await fetch(uri, { redirect: 'manual' })).status).toBe(403);
    const redirect = await fetch(uri, { headers: { 'x-goog-api-key': emu.apiKey }, redirect: 'manual' });
    expect(redirect.status).toBe(302);
    const location = redirect.headers.get('location')!;
    expect(location.startsWith(emu.storageOrigin)).toBe(true);
    const video = await fetch(location);
    expect(video.headers.get('content-type')).toBe('video/mp4');
    expect(Buffer.from(await video.arrayBuffer()).toString('latin1', 4, 8)).toBe('ftyp');
  });

  it('refuses what the Gemini API does: a duration or ratio the model lacks, an image in another form, seed', async () => {
    const veo = (body: unknown) => call('models/veo-3.0-generate-001:predictLongRunning', body).then(jsonOf);
    expect((await veo({ instances: [{ prompt: 'x' }], parameters: { durationSeconds: 5 } })).body.error.message).toMatch(/durationSeconds/);
    expect((await veo({ instances: [{ prompt: 'x' }], parameters: { aspectRatio: '1:1' } })).status).toBe(400);
    expect((await veo({ instances: [{ prompt: 'x', image: { inlineData: { mimeType: 'image/png', data: 'AAAA' } } }] })).body.error.message).toMatch(/Unknown name "inlineData"/);
    expect((await veo({ instances: [{ prompt: 'x' }], parameters: { seed: 1 } })).status).toBe(400);
    expect((await veo({ instances: [{ prompt: 'x', image: { bytesBase64Encoded: 'AAAA', mimeType: 'image/png' } }], parameters: { resolution: '1080p', durationSeconds: 8 } })).status).toBe(200);
  });

  it('operations that end with an error or filtered; a 429 with RetryInfo by default', async () => {
    emu.nextOperationEnds('error');
    const failed = (await jsonOf(await call('models/veo-3.0-generate-001:predictLongRunning', { instances: [{ prompt: 'x' }] }))).body.name;
    expect((await jsonOf(await call(failed))).body).toMatchObject({ done: true, error: { code: 13 } });
    emu.nextOperationEnds('filtered');
    const filtered = (await jsonOf(await call('models/veo-3.0-generate-001:predictLongRunning', { instances: [{ prompt: 'x' }] }))).body.name;
    expect((await jsonOf(await call(filtered))).body.response.generateVideoResponse).toMatchObject({ raiMediaFilteredCount: 1 });
    emu.inject('POST predictLongRunning', { status: 429, times: 1 });
    const limited = await jsonOf(await call('models/veo-3.0-generate-001:predictLongRunning', { instances: [{ prompt: 'x' }] }));
    expect(limited.body.error.details.at(-1)).toEqual({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '7s' });
  });
});
