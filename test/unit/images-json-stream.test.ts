// The streaming reader of large upstream image answers, fed the same bytes cut at arbitrary
// places: whatever the cuts, clean base64 comes out byte for byte with the JSON around it, and
// anything that is not clean base64 (a stray character, padding before the end, a bad escape)
// is refused as upstream_invalid_response.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isGatewayError } from '../../electron/core/errors.js';
import { readImagesJson, STREAM_AFTER_BYTES, type ImagesJsonStream } from '../../electron/core/providers/upstream/images-json-stream.js';

/** Bytes that look like nothing in particular, long enough to be streamed. */
const image = Buffer.alloc(3 * STREAM_AFTER_BYTES, 0).map((_, i) => (i * 2654435761) >>> 24);
image.write('\x89PNG', 0, 'latin1');
const b64 = image.toString('base64');
const answer = (text: string) => Buffer.from(`{"created":1,"data":[{"b64_json":"${text}"}],"usage":{"input_tokens":3,"output_tokens":4}}`);

/** The body as a socket would hand it over (64 KB reads), cut further at `cuts`. */
async function* pieces(body: Buffer, cuts: number[]): AsyncGenerator<Buffer> {
  let from = 0;
  const reads = Array.from({ length: Math.ceil(body.length / 65536) }, (_, i) => i * 65536);
  for (const cut of [...new Set([...reads, ...cuts])].sort((a, b) => a - b)) {
    if (cut <= from || cut >= body.length) continue;
    yield body.subarray(from, cut);
    from = cut;
  }
  yield body.subarray(from);
}

async function stream(body: Buffer, cuts: number[]): Promise<ImagesJsonStream> {
  const read = await readImagesJson(pieces(body, cuts));
  if (read.kind !== 'stream') throw new Error('expected the answer to be streamed');
  return read.stream;
}

async function drain(s: ImagesJsonStream): Promise<string> {
  const out: Buffer[] = [];
  for await (const piece of s.b64) out.push(piece);
  return Buffer.concat(out).toString('latin1');
}

const cutsOf = (length: number) => fc.array(fc.integer({ min: 1, max: length - 1 }), { maxLength: 40 });

async function refusal(run: () => Promise<unknown>): Promise<string | null> {
  try {
    await run();
    return null;
  } catch (error) {
    return isGatewayError(error) ? error.code : 'not a GatewayError';
  }
}

describe('readImagesJson', () => {
  it('relays clean base64 byte for byte whatever the piece boundaries, then parses the JSON around it', async () => {
    const body = answer(b64);
    await fc.assert(
      fc.asyncProperty(cutsOf(body.length), async (cuts) => {
        const s = await stream(body, cuts);
        expect(s.headBytes.subarray(0, 4).toString('latin1')).toBe('\x89PNG');
        expect(await drain(s)).toBe(b64);
        expect(s.body()).toMatchObject({ created: 1, data: [{ b64_json: '' }], usage: { input_tokens: 3, output_tokens: 4 } });
      }),
      { numRuns: 60 },
    );
  });

  it('takes padding at the very end of the image', async () => {
    const padded = Buffer.concat([image, Buffer.from([1])]).toString('base64');
    expect(padded.endsWith('==')).toBe(true);
    const body = answer(padded);
    await fc.assert(
      fc.asyncProperty(cutsOf(body.length), async (cuts) => {
        expect(await drain(await stream(body, cuts))).toBe(padded);
      }),
      { numRuns: 30 },
    );
  });

  it('unescapes "\\/" wherever the pieces split it', async () => {
    // Past the head: a head with escapes is read whole, like any unusual layout.
    const body = answer(b64.slice(0, 400_000) + b64.slice(400_000).replaceAll('/', '\\/'));
    await fc.assert(
      fc.asyncProperty(cutsOf(body.length), async (cuts) => {
        expect(await drain(await stream(body, cuts))).toBe(b64);
      }),
      { numRuns: 30 },
    );
  });

  it('refuses a character outside the alphabet, or padding before the end, wherever it is', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: STREAM_AFTER_BYTES, max: b64.length - 8 }),
        fc.constantFrom('!', '-', '_', '=', ' ', '\u00e9', '\\n'),
        cutsOf(b64.length),
        async (at, bad, cuts) => {
          const body = answer(`${b64.slice(0, at)}${bad}${b64.slice(at + 1)}`);
          const code = await refusal(async () => drain(await stream(body, cuts)));
          expect(code).toBe('upstream_invalid_response');
        },
      ),
      { numRuns: 80 },
    );
  });

  it('refuses a head that is not base64 before anything is relayed', async () => {
    expect(await refusal(() => readImagesJson(pieces(answer(`${b64.slice(0, 100)}!${b64.slice(101)}`), [])))).toBe('upstream_invalid_response');
  });

  it('refuses an image whose length is not whole groups, or a body that ends inside it', async () => {
    expect(await refusal(async () => drain(await stream(answer(b64.slice(0, -1)), [])))).toBe('upstream_invalid_response');
    const cut = answer(b64).subarray(0, 100 + STREAM_AFTER_BYTES);
    expect(await refusal(async () => drain(await stream(cut, [])))).toBe('upstream_invalid_response');
  });
});
