// A form refused at one of its parts (a mask file, a file too many) is answered before its body
// has all arrived. The rest must still be read, or the keep-alive connection stalls and the
// client's next request on it never gets an answer (the OpenAI SDKs reuse connections).
import { Agent, FormData as UndiciFormData, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, USD, type TestGateway } from '../helpers/gateway.js';
import { uncompressedPng } from '../helpers/images.js';

let t: TestGateway;
let token: string;
let reference: Buffer;
const oneConnection = new Agent({ connections: 1, pipelining: 1 });

beforeAll(async () => {
  t = await startTestGateway();
  token = (await t.key('balance', { balanceNano: 10 * USD })).token;
  reference = await uncompressedPng(320, 320); // ~300 KB on the wire and in memory
}, 60_000);

afterAll(async () => {
  await oneConnection.close();
  await t?.close();
});

async function edit(fileFields: string[]): Promise<{ status: number; code?: string; param?: string | null }> {
  const form = new UndiciFormData();
  form.set('model', 'local-image');
  form.set('prompt', 'make it black and white');
  for (const field of fileFields) form.append(field, new Blob([new Uint8Array(reference)], { type: 'image/png' }), `${field}.png`);
  const answer = await request(`${t.baseUrl}/images/edits`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
    dispatcher: oneConnection,
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  const body = (await answer.body.json()) as { error?: { code: string; param: string | null } };
  return { status: answer.statusCode, ...(body.error ? { code: body.error.code, param: body.error.param } : {}) };
}

describe('a form refused midway leaves its connection usable', () => {
  it('a mask file (refused at its part, the image part still to come), then a good edit on the same connection', async () => {
    expect(await edit(['mask', 'image'])).toEqual({ status: 400, code: 'invalid_request', param: 'mask' });
    expect(await edit(['image'])).toEqual({ status: 200 });
  }, 30_000);

  it('four files for a three-image model, then a good edit on the same connection', async () => {
    expect(await edit(['image', 'image', 'image', 'image', 'image'])).toMatchObject({ status: 400, param: 'image' });
    expect(await edit(['image'])).toEqual({ status: 200 });
  }, 30_000);
});
