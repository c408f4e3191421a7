// The multipart parser (POST /v1/images/edits, POST /v1/videos as multipart) fed hand-built
// bodies: wrong field names, too many files, duplicated text fields, truncated and oversize
// parts, wrong magic bytes, missing or mismatched boundaries, parts without Content-Disposition,
// invalid UTF-8 in values and file names, huge values. Same invariants as the JSON fuzzing:
// 2xx or 4xx, never 5xx, the standard error body, no internals, no hang; plus a negative oracle:
// a body that breaks a documented rule is never accepted.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VideoTask } from '../../shared/api-types.js';
import { startTestGateway, USD, type TestGateway } from '../helpers/gateway.js';
import { errorOf, type RawResponse } from '../helpers/http.js';
import { makeImage } from '../helpers/images.js';
import { anyText, checkResponse, fetchRaw, filePart, invalidUtf8, multipartBody, printable, rawRequest, rssMb, SEED, textPart, type Part } from './support.js';

const RUNS = { edits: 300, videos: 300 };
const MAX_FILE = 8 * 1024 * 1024;

let t: TestGateway;
let token: string;
let port: number;
// Real images, made before the generators (which embed them) are built.
const [png, jpeg, webp] = await Promise.all([makeImage(48, 32, 'png'), makeImage(40, 40, 'jpeg'), makeImage(32, 48, 'webp')]);
const blank = () => sharp({ create: { width: 8, height: 8, channels: 3, background: '#f00' } });
const [gif, tiff] = await Promise.all([blank().gif().toBuffer(), blank().tiff().toBuffer()]);
let rssBefore: number;

beforeAll(async () => {
  t = await startTestGateway({ limits: { requests: { balance: { perSecond: 100_000, perMinute: 1_000_000, perHour: 10_000_000 } } } });
  port = t.server.port;
  token = (await t.key('balance', { balanceNano: 10_000 * USD })).token;
  rssBefore = rssMb();
});
afterAll(async () => {
  await t?.close();
});

function post(path: string, body: Buffer, contentType: string | null, headers: Record<string, string> = {}): Promise<RawResponse> {
  return rawRequest({
    port,
    method: 'POST',
    path: `/v1${path}`,
    headers: { authorization: `Bearer ${token}`, ...(contentType === null ? {} : { 'content-type': contentType }), ...headers },
    body,
    timeoutMs: 20_000,
  });
}

const form = (boundary: string) => `multipart/form-data; boundary=${boundary}`;

// ---------- generated parts, each with what it means for the oracle ----------

interface GenPart {
  part: Part;
  /** A well-formed part (Content-Disposition with a name) that the endpoint accepts as such. */
  acceptable: boolean;
  kind: 'text' | 'file' | 'other';
  name: string;
}

function textParts(fields: Record<string, readonly string[]>, foreign: readonly string[]): fc.Arbitrary<GenPart> {
  const name = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...Object.keys(fields)) }, { weight: 2, arbitrary: fc.constantFrom(...foreign) }, { weight: 1, arbitrary: printable(12).filter((s) => !s.includes('"')) });
  return name.chain((n) => {
    const valid = fields[n];
    const value = fc.oneof(
      { weight: valid ? 8 : 0, arbitrary: fc.constantFrom(...(valid ?? ['x'])).map((v) => ({ bytes: Buffer.from(v), ok: true })) },
      { weight: 2, arbitrary: anyText(30).map((v) => ({ bytes: Buffer.from(v), ok: false })) },
      { weight: 1, arbitrary: fc.tuple(invalidUtf8, anyText(8)).map(([bad, v]) => ({ bytes: Buffer.concat([Buffer.from(v), bad]), ok: false })) },
      { weight: 1, arbitrary: fc.constantFrom(300 * 1024, 2 * 1024 * 1024).map((size) => ({ bytes: Buffer.alloc(size, 0x61), ok: false })) },
      { weight: 1, arbitrary: fc.constant({ bytes: Buffer.alloc(0), ok: false }) },
    );
    return value.map(({ bytes, ok }) => ({ part: textPart(n, bytes), acceptable: valid !== undefined && ok, kind: 'text' as const, name: n }));
  });
}

function fileParts(field: string, foreign: readonly string[]): fc.Arbitrary<GenPart> {
  const name = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(field, `${field}[]`) }, { weight: 2, arbitrary: fc.constantFrom(...foreign) });
  const filename = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('a.png', 'photo.jpg', 'x.webp', 'noext', '') },
    { weight: 1, arbitrary: fc.constantFrom('../../etc/passwd', '..\\..\\gateway.db', '/abs/path.png', 'C:\\x.png', 'n'.repeat(1_000), 'é.png') },
    { weight: 1, arbitrary: invalidUtf8.map((bad) => Buffer.concat([bad, Buffer.from('.png')])) },
  );
  const header = Buffer.alloc(40);
  const hugePng = (() => {
    const bytes = Buffer.from(png.subarray(0, 64));
    bytes.writeUInt32BE(0x7fffffff, 16);
    bytes.writeUInt32BE(0x7fffffff, 20);
    return bytes;
  })();
  const bytes = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom('png', 'jpeg', 'webp').map((kind) => ({ bytes: kind === 'png' ? png : kind === 'jpeg' ? jpeg : webp, ok: true })) },
    { weight: 2, arbitrary: fc.uint8Array({ maxLength: 300 }).map((b) => ({ bytes: Buffer.from(b), ok: false })) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        { bytes: png.subarray(0, 30), ok: false },
        { bytes: hugePng, ok: false },
        { bytes: Buffer.concat([Buffer.from('GIF89a'), header]), ok: false },
        { bytes: Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), header]), ok: false },
        { bytes: Buffer.concat([Buffer.from('RIFF\0\0\0\0WEBPVP8X'), header]), ok: false },
        { bytes: Buffer.alloc(0), ok: false },
      ),
    },
    { weight: 1, arbitrary: fc.constant({ bytes: Buffer.concat([png, Buffer.alloc(MAX_FILE + 1 - png.length)]), ok: false }) },
  );
  return fc.tuple(name, filename, bytes, fc.constantFrom('image/png', 'application/octet-stream', 'text/plain', '')).map(([n, fn, { bytes: b, ok }, type]) => ({
    part: filePart(n, fn, b, type || 'image/png'),
    acceptable: ok && (n === field || n === `${field}[]`),
    kind: 'file' as const,
    name: n,
  }));
}

// Parts a lenient parser may skip or take: the oracle treats them as "may be fine" (acceptable)
// unless the gateway documents a refusal (prototype names).
const odd = (headers: string[], body: string, acceptable = true): GenPart => ({ part: { headers, body }, acceptable, kind: 'other', name: '' });
const oddParts: fc.Arbitrary<GenPart> = fc.constantFrom<GenPart>(
  odd(['Content-Type: text/plain'], 'no disposition'),
  odd([], 'no headers at all'),
  odd(['Content-Disposition: form-data'], 'no name'),
  odd(['Content-Disposition: attachment; name="model"'], 'nope-model'),
  odd(['Content-Disposition: form-data; name=model'], 'unquoted-model'),
  odd(['Content-Disposition: form-data; name="model'], 'unterminated'),
  odd(['Content-Disposition: form-data; name="__proto__"'], 'x', false),
  odd(['Content-Disposition: form-data; name="constructor"'], 'x', false),
  odd(Array.from({ length: 80 }, (_, i) => `X-Flood-${i}: v`), 'header flood'),
  odd([`X-Long: ${'h'.repeat(100_000)}`, 'Content-Disposition: form-data; name="user"'], 'long header'),
  odd(['Content-Disposition: form-data; name="user"', 'Content-Transfer-Encoding: base64'], 'eA=='),
);

const BOUNDARIES = ['XyZ', '----WebKitFormBoundary7MA4YWxkTrZu0gW', 'b'.repeat(70), "'()+_,-./:=?", '--', 'a b'];

interface Envelope {
  boundary: string;
  header: string | null;
  headerOk: boolean;
  ending: 'closed' | 'open' | 'cut' | 'epilogue' | 'preamble' | 'lf';
  cut: number;
}

const envelope: fc.Arbitrary<Envelope> = fc
  .tuple(
    fc.constantFrom(...BOUNDARIES),
    fc.oneof(
      { weight: 8, arbitrary: fc.constant('same') },
      { weight: 1, arbitrary: fc.constantFrom('missing', 'other', 'quoted', 'twice', 'nocontent', 'uppercase', 'empty', 'json', 'random') },
    ),
    fc.oneof({ weight: 8, arbitrary: fc.constant('closed' as const) }, { weight: 1, arbitrary: fc.constantFrom('open' as const, 'cut' as const, 'epilogue' as const, 'preamble' as const, 'lf' as const) }),
    fc.nat(),
    printable(40),
  )
  .map(([boundary, how, ending, cut, random]) => {
    const quoted = boundary.includes(' ') || boundary.includes(':') || boundary.includes('?') || boundary.includes("'");
    const param = quoted ? `"${boundary}"` : boundary;
    const headers: Record<string, [string | null, boolean]> = {
      same: [`multipart/form-data; boundary=${param}`, true],
      missing: ['multipart/form-data', false],
      other: ['multipart/form-data; boundary=not-the-one', false],
      quoted: [`multipart/form-data; boundary="${boundary}"`, true],
      // Ambiguous, or case-insensitive by RFC: either outcome is fine.
      twice: [`multipart/form-data; boundary=nope; boundary=${param}`, true],
      nocontent: [null, false],
      uppercase: [`MULTIPART/FORM-DATA; BOUNDARY=${param}`, true],
      empty: ['multipart/form-data; boundary=', false],
      json: ['application/json', false],
      random: [random, false],
    };
    const [header, headerOk] = headers[how]!;
    return { boundary, header, headerOk, ending, cut };
  });

function build(env: Envelope, parts: GenPart[]): Buffer {
  const raw = multipartBody(env.boundary, parts.map((p) => p.part), {
    close: env.ending !== 'open' && env.ending !== 'cut',
    ...(env.ending === 'preamble' ? { preamble: 'This is a preamble.\r\n' } : {}),
  });
  if (env.ending === 'epilogue') return Buffer.concat([raw, Buffer.from('epilogue garbage --XyZ--\r\n')]);
  if (env.ending === 'cut') return raw.subarray(0, env.cut % (raw.length + 1));
  if (env.ending === 'lf') return Buffer.from(raw.toString('latin1').replaceAll('\r\n', '\n'), 'latin1');
  return raw;
}

/** Could this body be a valid request at all? (Conservative: when false, it must be refused.) */
function couldSucceed(env: Envelope, parts: GenPart[], required: readonly string[], maxFiles: number): boolean {
  if (!env.headerOk || !['closed', 'epilogue', 'preamble'].includes(env.ending)) return false;
  if (parts.some((p) => !p.acceptable)) return false;
  const texts = parts.filter((p) => p.kind === 'text').map((p) => p.name);
  if (new Set(texts).size !== texts.length) return false;
  if (!required.every((name) => texts.includes(name))) return false;
  return parts.filter((p) => p.kind === 'file').length <= maxFiles;
}

async function checkSuccess(path: string, response: RawResponse): Promise<void> {
  if (path === '/images/edits') {
    const body = response.body as { data: { b64_json: string }[]; usage: { cost_usd: string } };
    expect(Object.keys(body).sort()).toEqual(['data', 'usage']);
    expect(Buffer.from(body.data[0]!.b64_json, 'base64').subarray(1, 4).toString()).toBe('PNG');
    return;
  }
  const task = response.body as VideoTask;
  expect(task).toMatchObject({ object: 'video', status: 'queued' });
  const cancelled = await fetchRaw(`${t.baseUrl}/videos/${task.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
  checkResponse(cancelled, { statuses: [200] });
}

describe('POST /v1/images/edits, multipart', () => {
  const parts = fc.array(
    fc.oneof(
      { weight: 5, arbitrary: textParts({ model: ['local-image', 'local-image-pro'], prompt: ['blur', 'make it black and white', 'rotate 90'], size: ['256x256', '512x512'] }, ['n', 'mask', 'image', 'response_format', 'user']) },
      { weight: 4, arbitrary: fileParts('image', ['mask', 'file', 'input_reference', 'images']) },
      { weight: 1, arbitrary: oddParts },
    ),
    { maxLength: 8 },
  );
  const valid = fc.tuple(fc.constantFrom('local-image', 'local-image-pro'), fc.constantFrom('blur', 'sepia'), fc.integer({ min: 1, max: 3 }), fc.constantFrom('image', 'image[]')).map(
    ([model, prompt, files, name]): GenPart[] => [
      { part: textPart('model', model), acceptable: true, kind: 'text', name: 'model' },
      { part: textPart('prompt', prompt), acceptable: true, kind: 'text', name: 'prompt' },
      ...Array.from({ length: files }, (_, i): GenPart => ({ part: filePart(name, `f${i}.png`, [png, jpeg, webp][i]!), acceptable: true, kind: 'file', name })),
    ],
  );

  it('is never accepted when it breaks a rule, never 5xx, always the standard error', async () => {
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(envelope, fc.oneof({ weight: 1, arbitrary: valid }, { weight: 3, arbitrary: parts }), async (env, generated) => {
        const body = build(env, generated);
        const response = await post('/images/edits', body, env.header);
        const possible = couldSucceed(env, generated, ['model', 'prompt'], 3);
        checkResponse(response, { ...(possible ? {} : { statuses: [400, 413] }), label: `edits ${env.header} ${env.ending} [${generated.map((p) => `${p.kind}:${p.name}`).join(',')}]` });
        if (response.status === 200) {
          accepted += 1;
          await checkSuccess('/images/edits', response);
        }
      }),
      { seed: SEED, numRuns: RUNS.edits },
    );
    expect(accepted).toBeGreaterThan(10);
  }, 90_000);
});

describe('POST /v1/videos, multipart', () => {
  const parts = fc.array(
    fc.oneof(
      {
        weight: 5,
        arbitrary: textParts(
          { model: ['local-video', 'local-animate'], prompt: ['slow push in', 'waves'], seconds: ['2'], duration: ['2'], size: ['480p'], resolution: ['480p'], request_type: ['image-to-video'], client_request_id: ['job'] },
          ['n', 'input_reference', 'image', 'fps', 'mask'],
        ),
      },
      { weight: 3, arbitrary: fileParts('input_reference', ['image', 'image[]', 'reference', 'file']) },
      { weight: 1, arbitrary: oddParts },
    ),
    { maxLength: 8 },
  );
  const valid = fc.tuple(fc.constantFrom('local-video', 'local-animate'), fc.boolean()).map(([model, withFile]): GenPart[] => [
    { part: textPart('model', model), acceptable: true, kind: 'text', name: 'model' },
    { part: textPart('prompt', 'a slow pan'), acceptable: true, kind: 'text', name: 'prompt' },
    { part: textPart('seconds', '2'), acceptable: true, kind: 'text', name: 'seconds' },
    ...(withFile || model === 'local-animate' ? [{ part: filePart('input_reference', 'ref.png', png), acceptable: true, kind: 'file' as const, name: 'input_reference' }] : []),
  ]);

  it('is never accepted when it breaks a rule, never 5xx, always the standard error', async () => {
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(envelope, fc.oneof({ weight: 1, arbitrary: valid }, { weight: 3, arbitrary: parts }), async (env, generated) => {
        const body = build(env, generated);
        const response = await post('/videos', body, env.header);
        const possible = couldSucceed(env, generated, ['model', 'prompt'], 1);
        checkResponse(response, { ...(possible ? {} : { statuses: [400, 413] }), label: `videos ${env.header} ${env.ending} [${generated.map((p) => `${p.kind}:${p.name}`).join(',')}]` });
        if (response.status === 200) {
          accepted += 1;
          await checkSuccess('/videos', response);
        }
      }),
      { seed: SEED, numRuns: RUNS.videos },
    );
    expect(accepted).toBeGreaterThan(10);
  }, 90_000);
});

describe('multipart, case by case', () => {
  const B = 'caseBoundary';
  const ok = () => [textPart('model', 'local-image'), textPart('prompt', 'blur')];
  const edits = (parts: Part[], options: Parameters<typeof multipartBody>[2] = {}, contentType: string | null = form(B)) => post('/images/edits', multipartBody(B, parts, options), contentType);

  it('a valid edit passes (the baseline the other cases change one thing of)', async () => {
    const response = await edits([...ok(), filePart('image', 'a.png', png)]);
    checkResponse(response, { statuses: [200] });
  });

  it.each([
    ['a file under a wrong field name', () => [...ok(), filePart('mask', 'a.png', png)], 'mask'],
    ['a file under "file"', () => [...ok(), filePart('file', 'a.png', png)], 'file'],
    ['an unknown text field', () => [...ok(), textPart('quality', 'hd'), filePart('image', 'a.png', png)], 'quality'],
    ['n as a text field', () => [...ok(), textPart('n', '1'), filePart('image', 'a.png', png)], 'n'],
    ['a duplicated text field', () => [...ok(), textPart('prompt', 'again'), filePart('image', 'a.png', png)], 'prompt'],
    ['four files (the limit is 3)', () => [...ok(), ...[png, png, png, png].map((b, i) => filePart('image[]', `${i}.png`, b))], 'image'],
    ['six files (past the parser file limit too)', () => [...ok(), ...Array.from({ length: 6 }, (_, i) => filePart('image[]', `${i}.png`, png))], 'image'],
    ['wrong magic bytes', () => [...ok(), filePart('image', 'a.png', Buffer.from('GIF89a, not a PNG at all'))], 'image'],
    // Whole images of another format: the decode check alone would take them (sharp reads both).
    ['a real GIF under a .png name', () => [...ok(), filePart('image', 'a.png', gif)], 'image'],
    ['a real TIFF', () => [...ok(), filePart('image', 'a.tiff', tiff)], 'image'],
    ['a text-only body (no file)', () => ok(), 'image'],
    ['a huge field value (2 MB)', () => [textPart('model', 'local-image'), textPart('prompt', 'p'.repeat(2 * 1024 * 1024)), filePart('image', 'a.png', png)], 'prompt'],
    ['a file name with invalid UTF-8 and a wrong type', () => [...ok(), filePart('image', Buffer.from([0xff, 0xfe, 0x2e]), Buffer.from('not an image'))], 'image'],
  ])('%s -> 400 with param %s', async (_name, parts, param) => {
    const response = await edits(parts());
    checkResponse(response, { statuses: [400] });
    expect(errorOf(response)).toMatchObject({ code: 'invalid_request', param });
  });

  it('an oversize part -> 413 reference_image_too_large with the field name', async () => {
    const big = Buffer.concat([png, Buffer.alloc(MAX_FILE + 1 - png.length)]);
    for (const field of ['image', 'image[]']) {
      const response = await edits([...ok(), filePart(field, 'big.png', big)]);
      checkResponse(response, { statuses: [413] });
      expect(errorOf(response)).toMatchObject({ code: 'reference_image_too_large', param: field });
    }
    const video = await post('/videos', multipartBody(B, [textPart('model', 'local-video'), textPart('prompt', 'x'), textPart('seconds', '2'), filePart('input_reference', 'big.png', big)]), form(B));
    checkResponse(video, { statuses: [413] });
    expect(errorOf(video)).toMatchObject({ code: 'reference_image_too_large', param: 'input_reference' });
  });

  it('invalid UTF-8 in a field value is refused with 400 naming the field', async () => {
    const response = await edits([textPart('model', Buffer.from([0x6c, 0xff, 0xc3])), textPart('prompt', 'x'), filePart('image', 'a.png', png)]);
    checkResponse(response, { statuses: [400] });
    expect(errorOf(response).param).toBe('model');
  });

  it.each([
    ['no boundary parameter', form(B).split(';')[0]!],
    ['a mismatched boundary', form('another')],
    ['an empty boundary', 'multipart/form-data; boundary='],
  ])('%s -> 400', async (_name, type) => {
    checkResponse(await edits([...ok(), filePart('image', 'a.png', png)], {}, type), { statuses: [400] });
  });

  it('truncated bodies (every cut of a valid body) -> 400, never a hang or 5xx', async () => {
    const whole = multipartBody(B, [...ok(), filePart('image', 'a.png', png)]);
    const cuts = [0, 1, 10, B.length + 2, 60, 120, 200, whole.length - png.length, whole.length - 40, whole.length - 10, whole.length - 3];
    for (const cut of cuts) {
      const response = await post('/images/edits', whole.subarray(0, cut), form(B));
      checkResponse(response, { statuses: [400], label: `cut at ${cut}` });
    }
  });

  it('a part without Content-Disposition is never taken as a field or a file', async () => {
    // The only image is in a part without Content-Disposition: the edit has no image.
    const response = await edits([...ok(), { headers: ['Content-Type: image/png'], body: png }]);
    checkResponse(response, { statuses: [400] });
    expect(errorOf(response).param).toBe('image');
  });

  it('form field names that target object prototypes are refused, naming the field like any other unknown one', async () => {
    for (const name of ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__']) {
      for (const part of [textPart(name, 'x'), filePart(name, 'b.png', png)]) {
        const response = await edits([...ok(), part, filePart('image', 'a.png', png)]);
        checkResponse(response, { statuses: [400], label: name });
        expect(response.text).not.toMatch(/\[native code\]|\[object Object\]|function \w*\(/);
        expect(errorOf(response).param, name).toBe(name);
      }
      const video = await post('/videos', multipartBody(B, [textPart('model', 'local-video'), textPart('prompt', 'x'), textPart('seconds', '2'), filePart(name, 'b.png', png)]), form(B));
      checkResponse(video, { statuses: [400], label: `videos ${name}` });
      expect(errorOf(video).param, name).toBe(name);
    }
  });

  it('an upload without a token is refused with 401 before the body is read', async () => {
    const body = multipartBody(B, [...ok(), filePart('image', 'a.png', Buffer.concat([png, Buffer.alloc(6 * 1024 * 1024)]))]);
    const response = await rawRequest({ port, method: 'POST', path: '/v1/images/edits', headers: { 'content-type': form(B) }, body, timeoutMs: 20_000 });
    checkResponse(response, { statuses: [401] });
  });
});

describe('after the multipart fuzzing', () => {
  it('no uploaded reference is left on disk by a refused request', async () => {
    const rows = await t.gateway.store.db.selectFrom('video_tasks').select('reference_files').execute();
    const kept = new Set(rows.flatMap((row) => JSON.parse(row.reference_files) as string[]));
    const stray = readdirSync(join(t.dataDir, 'uploads')).filter((name) => !kept.has(name));
    expect(stray).toEqual([]);
  });

  it('the server still answers and memory stayed bounded', async () => {
    expect((await fetchRaw(`${t.baseUrl}/models`)).status).toBe(200);
    const grown = rssMb() - rssBefore;
    expect(grown, `rss grew by ${grown.toFixed(0)} MB`).toBeLessThan(300);
  });
});
