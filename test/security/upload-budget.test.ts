// Upload bytes held in memory are bounded across requests: a form that would pass the bound is
// refused with 429 and Retry-After, a slow upload holds its share only while it lasts (given back
// when its client leaves), and a form that was read gives its bytes back.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpServer, type RunningServer } from '../../electron/http/server.js';
import { UploadBudget } from '../../electron/http/upload-budget.js';
import { startTestGateway, USD, type TestGateway } from '../helpers/gateway.js';
import { uncompressedPng } from '../helpers/images.js';
import { errorOf, postForm, type RawResponse } from '../helpers/http.js';
import { waitFor } from '../helpers/stub-video-provider.js';
import { registerGateway } from '../helpers/conformance.js';

const BUDGET = 1024 * 1024;
let t: TestGateway;
let server: RunningServer;
let token: string;
let reference: Buffer;
/** The server's bound, watched: the slow upload must hold its bytes before the edits race it. */
const budget = new UploadBudget(BUDGET);

beforeAll(async () => {
  t = await startTestGateway();
  server = await startHttpServer(t.gateway, { host: '127.0.0.1', port: 0, uploadBudget: budget });
  registerGateway(server.baseUrl);
  token = (await t.key('balance', { balanceNano: 10 * USD })).token;
  reference = await uncompressedPng(320, 320); // ~300 KB on the wire and in memory
}, 60_000);

afterAll(async () => {
  await server?.close();
  await t?.close();
});

function edit(as = token): Promise<RawResponse> {
  const form = new FormData();
  form.set('model', 'local-image');
  form.set('prompt', 'make it black and white');
  form.set('image', new Blob([new Uint8Array(reference)], { type: 'image/png' }), 'ref.png');
  return postForm(`${server.baseUrl}/images/edits`, form, as);
}

/** Starts an edit whose file part stops after `sent` bytes: the server holds them, waiting for more. */
function slowUpload(sent: number): Socket {
  const boundary = 'slowboundary';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nlocal-image\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="prompt"\r\n\r\nslow\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`,
  );
  const socket = connect(server.port, '127.0.0.1');
  socket.on('error', () => undefined);
  socket.write(
    `POST /v1/images/edits HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\n` +
      `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${head.length + 4 * 1024 * 1024}\r\n\r\n`,
  );
  socket.write(head);
  socket.write(Buffer.alloc(sent, 1));
  return socket;
}

describe('upload memory bound', () => {
  it('refuses a form that would pass the bound while a slow upload holds most of it, and takes it again once that client left', async () => {
    const slow = slowUpload(900 * 1024);
    try {
      // Once the server holds the slow upload's bytes (not before: an edit that came first would
      // take its share and the slow upload would be the one refused), a ~300 KB edit no longer fits.
      await waitFor(async () => budget.heldBytes >= 900 * 1024 || null, 10_000);
      const refused = await edit();
      expect(refused.status).toBe(429);
      expect(errorOf(refused)).toMatchObject({ code: 'rate_limit_exceeded', type: 'rate_limit_exceeded', param: null });
      expect(errorOf(refused).message).toContain('too many uploads at once');
      expect(refused.headers.get('retry-after')).toBe('1');
      // Nothing was made: the refusal gives its window slot back (a free key has 2 a second).
      const free = (await t.key('free')).token;
      for (let i = 0; i < 3; i++) {
        const again = await edit(free);
        expect(again.status).toBe(429);
        expect(again.headers.get('x-ratelimit-remaining-requests')).toBe(again.headers.get('x-ratelimit-limit-requests'));
      }
    } finally {
      slow.destroy();
    }
    // The client that left gave its share back.
    await waitFor(async () => budget.heldBytes === 0 || null, 10_000);
    expect((await edit()).status).toBe(200);
  }, 30_000);

  it('a form that was read gives its bytes back: more edits in a row than the bound holds at once all succeed', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await edit()).status); // 5 x ~300 KB > 1 MB
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
  }, 60_000);
});
