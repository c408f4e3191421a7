// Slow clients: a client that stops reading its answer must not hold a connection and an open
// file forever. Node bounds slow request headers (headersTimeout) and bodies (requestTimeout)
// by itself; the gateway sets the idle timeout for the rest.
import { readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VideoTask } from '../../shared/api-types.js';
import { DEFAULT_IDLE_TIMEOUT_MS } from '../../electron/http/app.js';
import { startHttpServer, type RunningServer } from '../../electron/http/server.js';
import { startTestGateway, USD, type TestGateway } from '../helpers/gateway.js';
import { postJson, request } from '../helpers/http.js';
import { waitFor } from '../helpers/stub-video-provider.js';
import { registerGateway } from '../helpers/conformance.js';

const IDLE_MS = 1_000;
let t: TestGateway;
let server: RunningServer;
let key: { token: string };
let task: VideoTask;
let output: string;

beforeAll(async () => {
  t = await startTestGateway();
  server = await startHttpServer(t.gateway, { host: '127.0.0.1', port: 0, idleTimeoutMs: IDLE_MS });
  registerGateway(server.baseUrl);
  key = await t.key('balance', { balanceNano: 10 * USD });
  const created = (await postJson(`${server.baseUrl}/videos`, { model: 'local-video', prompt: 'slow reader', seconds: 2 }, key.token)).body as VideoTask;
  task = await waitFor(async () => {
    const polled = (await request(`${server.baseUrl}/videos/${created.id}`, { headers: { authorization: `Bearer ${key.token}` } })).body as VideoTask;
    return polled.status === 'completed' ? polled : null;
  }, 60_000);
  // An output far larger than the socket buffers, so a reader that stops leaves the send stuck.
  const row = await t.gateway.store.db.selectFrom('video_tasks').select('output_path').where('id', '=', task.id).executeTakeFirstOrThrow();
  output = row.output_path!;
  const big = Buffer.alloc(64 * 1024 * 1024, 7);
  writeFileSync(output, big);
  await t.gateway.store.db.updateTable('video_tasks').set({ output_bytes: big.length }).where('id', '=', task.id).execute();
}, 90_000);

afterAll(async () => {
  await server?.close();
  await t?.close();
});

const openHandlesOf = (file: string): number =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === file;
    } catch {
      return false;
    }
  }).length;

const connections = (): Promise<number> => new Promise((resolve, reject) => server.app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))));

describe('a client that stops reading', () => {
  it('the default idle timeout outlasts the longest silent wait of a request (an upstream call, 120 s)', () => {
    expect(DEFAULT_IDLE_TIMEOUT_MS).toBeGreaterThan(120_000);
  });

  it('a stalled video download is dropped after the idle timeout, closing its file; the server keeps answering', async () => {
    const before = await connections(); // the keep-alive ones of the requests above
    const sockets: Socket[] = [];
    for (let i = 0; i < 3; i++) {
      const socket = connect(server.port, '127.0.0.1');
      socket.on('error', () => undefined);
      socket.pause(); // reads nothing: the server's send fills the socket buffers and stops
      socket.write(`GET /v1/videos/${task.id}/content HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key.token}\r\n\r\n`);
      sockets.push(socket);
    }
    try {
      await waitFor(async () => (await connections()) === before + 3 || null, 5_000);
      if (process.platform === 'linux') await waitFor(async () => openHandlesOf(output) === 3 || null, 5_000);
      await waitFor(async () => (await connections()) <= before || null, IDLE_MS * 10);
      // The file closes once its stream is destroyed, a turn or two of the thread pool after the
      // socket: awaited, not sampled at the instant the connection count drops.
      if (process.platform === 'linux') await waitFor(async () => openHandlesOf(output) === 0 || null, 5_000);
      if (process.platform === 'linux') expect(openHandlesOf(output)).toBe(0);
      const answer = await request(`${server.baseUrl}/models`);
      expect(answer.status).toBe(200);
    } finally {
      for (const socket of sockets) socket.destroy();
    }
  }, 30_000);
});
