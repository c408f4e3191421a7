// The built-in video engine end to end: OpenAI SDK and raw JSON in both request shapes, real MP4
// bytes checked box by box and with ffprobe (required), ranges, ownership, completion
// without polling and the hold turning into a charge.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VideoTask } from '../../shared/api-types.js';
import { startTestGateway, USD, type TestGateway } from '../helpers/gateway.js';
import { errorOf, postJson, request } from '../helpers/http.js';
import { makeImage } from '../helpers/images.js';
import { ffprobe, readMp4 } from '../helpers/mp4.js';
import { waitFor } from '../helpers/stub-video-provider.js';

let t: TestGateway;
let owner: { id: string; token: string; accountId: string };

beforeAll(async () => {
  t = await startTestGateway();
  owner = await t.key('balance', { balanceNano: 20 * USD });
});
afterAll(() => t.close());

async function completed(token: string, id: string): Promise<VideoTask> {
  return waitFor(async () => {
    const response = await request(`${t.baseUrl}/videos/${id}`, { headers: { authorization: `Bearer ${token}` } });
    const task = response.body as VideoTask;
    if (task.status === 'failed' || task.status === 'timeout') throw new Error(`task ${task.status}: ${JSON.stringify(task.error)}`);
    return task.status === 'completed' ? task : null;
  }, 60_000, 100);
}

function checkMp4(bytes: Buffer, width: number, height: number, seconds: number): void {
  const info = readMp4(bytes);
  expect(info.codec).toBe('avc1');
  expect([info.width, info.height]).toEqual([width, height]);
  expect(info.durationSeconds).toBeCloseTo(seconds, 1);
  const dir = mkdtempSync(join(tmpdir(), 'mgw-mp4-'));
  const file = join(dir, 'v.mp4');
  writeFileSync(file, bytes);
  const probe = ffprobe(file);
  expect(probe).toMatchObject({ codec: 'h264', width, height });
  expect(probe.duration).toBeCloseTo(seconds, 1);
}

describe('videos with the OpenAI SDK', () => {
  it('create (multipart), retrieve, list and downloadContent a text-to-video task', async () => {
    const client = t.client(owner.token);
    const created = await client.videos.create({ model: 'local-video' as never, prompt: 'waves under a pink sunset', seconds: '2' as never, size: '480p' as never });
    expect(created).toMatchObject({ object: 'video', status: 'queued', model: 'local-video', seconds: '2', size: '480p' });
    expect((created as unknown as VideoTask).outputs).toEqual([]);
    // The text-to-video route price is held: 2 s x $0.05.
    expect((await t.gateway.billing.view(owner.accountId)).holds_usd).not.toBe('0.00000000');

    const done = await completed(owner.token, created.id);
    expect(done.outputs).toEqual([`${t.baseUrl}/videos/${created.id}/content`]);
    expect(done.progress).toBe(100);
    expect(done.cost_usd).toBe('0.10000000');

    const retrieved = await client.videos.retrieve(created.id);
    expect(retrieved.status).toBe('completed');

    const page = await client.videos.list();
    expect(page.data.map((v) => v.id)).toContain(created.id);

    const content = await client.videos.downloadContent(created.id);
    expect(content.headers.get('content-type')).toBe('video/mp4');
    checkMp4(Buffer.from(await content.arrayBuffer()), 854, 480, 2);
  });

  it('image-to-video with an input_reference file, billed at its own route price', async () => {
    const before = await t.gateway.billing.view(owner.accountId);
    const client = t.client(owner.token);
    const reference = await toFile(await makeImage(640, 360, 'jpeg'), 'ref.jpg', { type: 'image/jpeg' });
    const created = await client.videos.create({ model: 'local-video' as never, prompt: 'slow zoom', seconds: '2' as never, size: '854x480' as never, input_reference: reference });
    const task = created as unknown as VideoTask;
    expect(task.request_type).toBe('image-to-video');
    expect(task.cost_usd).toBe('0.16000000'); // 2 s x $0.08
    await completed(owner.token, created.id);
    const after = await t.gateway.billing.view(owner.accountId);
    expect(Number(before.balance_usd) - Number(after.balance_usd)).toBeCloseTo(0.16, 8);
  });
});

describe('videos with raw JSON', () => {
  it('the older shape: seconds as a string, exact size', async () => {
    const response = await postJson(`${t.baseUrl}/videos`, { model: 'local-video', prompt: 'a forest at dawn', seconds: '2', size: '854x480' }, owner.token);
    expect(response.status).toBe(200);
    const task = response.body as VideoTask;
    expect(task).toMatchObject({ status: 'queued', outputs: [], seconds: '2', size: '854x480', request_type: 'text-to-video' });
    await completed(owner.token, task.id);
  });

  it('the newer shape: request_type, duration, resolution, client_request_id; completes without polling', async () => {
    const response = await postJson(
      `${t.baseUrl}/videos`,
      { model: 'local-video', request_type: 'text-to-video', prompt: 'stars over a desert', duration: 2, resolution: '480p', client_request_id: 'job-42' },
      owner.token,
    );
    expect(response.status).toBe(200);
    const task = response.body as VideoTask;
    expect(task.client_request_id).toBe('job-42');
    // Nobody polls: the scheduler still completes it and consumes the hold.
    const row = await waitFor(async () => {
      const r = await t.gateway.videoTasks.get(task.id);
      return r?.status === 'completed' ? r : null;
    }, 60_000);
    const hold = await t.gateway.store.db.selectFrom('holds').selectAll().where('id', '=', row.hold_id!).executeTakeFirstOrThrow();
    expect(hold).toMatchObject({ status: 'consumed', charged_nano: 100_000_000 });
  });

  it("reports the render's progress on the task while it runs: in_progress between 0 and 100, never going back", async () => {
    // 4 s of 720p takes the engine a few seconds, so polling every 20 ms sees the render move.
    const created = (await postJson(`${t.baseUrl}/videos`, { model: 'local-video', prompt: 'lanterns drifting over a lake', seconds: 4, size: '720p' }, owner.token)).body as VideoTask;
    const seen: { status: string; progress: number }[] = [];
    await waitFor(async () => {
      const task = (await request(`${t.baseUrl}/videos/${created.id}`, { headers: { authorization: `Bearer ${owner.token}` } })).body as VideoTask;
      seen.push({ status: task.status, progress: task.progress });
      return task.status !== 'queued' && task.status !== 'in_progress';
    }, 120_000, 20);
    expect(seen.at(-1)).toEqual({ status: 'completed', progress: 100 });
    const running = seen.filter((s) => s.status === 'in_progress' && s.progress > 0 && s.progress < 100);
    expect(new Set(running.map((s) => s.progress)).size).toBeGreaterThanOrEqual(2);
    const progress = seen.map((s) => s.progress);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
  });

  it('serves ranges for seeking, and HEAD', async () => {
    const created = (await postJson(`${t.baseUrl}/videos`, { model: 'local-video', prompt: 'rain', seconds: 2, size: '480p' }, owner.token)).body as VideoTask;
    await completed(owner.token, created.id);
    const url = `${t.baseUrl}/videos/${created.id}/content`;
    const auth = { authorization: `Bearer ${owner.token}` };
    const full = await fetch(url, { headers: auth });
    const bytes = Buffer.from(await full.arrayBuffer());
    expect(full.headers.get('accept-ranges')).toBe('bytes');
    expect(Number(full.headers.get('content-length'))).toBe(bytes.length);

    const part = await fetch(url, { headers: { ...auth, range: 'bytes=100-199' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 100-199/${bytes.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(100, 200))).toBe(true);

    // Exactly Content-Length bytes, on the wire too: two ranges asked on one connection come back
    // whole and back to back (fetch drops a connection with stray bytes, and would not notice).
    const { port } = new URL(t.baseUrl);
    const socket = connect(Number(port), '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    const ask = `GET /v1/videos/${created.id}/content HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nauthorization: Bearer ${owner.token}\r\nrange: bytes=100-109\r\n\r\n`;
    socket.write(ask + ask);
    const wire = await waitFor(async () => {
      const all = Buffer.concat(received);
      const second = all.indexOf('\r\n\r\n', all.indexOf('\r\n\r\n') + 4);
      return second !== -1 && all.length >= second + 4 + 10 ? all : null;
    }, 5_000, 20);
    socket.destroy();
    const headEnd = wire.indexOf('\r\n\r\n') + 4;
    expect(wire.subarray(0, headEnd).toString()).toMatch(/^HTTP\/1\.1 206 [^]*content-length: 10\r\n/i);
    expect(wire.subarray(headEnd, headEnd + 10).equals(bytes.subarray(100, 110))).toBe(true);
    expect(wire.subarray(headEnd + 10, headEnd + 22).toString()).toBe('HTTP/1.1 206');

    const tail = await fetch(url, { headers: { ...auth, range: 'bytes=-50' } });
    expect(Buffer.from(await tail.arrayBuffer()).equals(bytes.subarray(bytes.length - 50))).toBe(true);

    // Only the video itself is served (no thumbnail or spritesheet variants).
    const video = await fetch(`${url}?variant=video`, { headers: auth });
    expect(Buffer.from(await video.arrayBuffer()).equals(bytes)).toBe(true);
    for (const variant of ['thumbnail', 'spritesheet']) {
      const other = await request(`${url}?variant=${variant}`, { headers: auth });
      expect(other.status).toBe(400);
      expect(errorOf(other)).toMatchObject({ code: 'invalid_request', param: 'variant' });
    }

    const outside = await request(url, { headers: { ...auth, range: `bytes=${bytes.length + 10}-` } });
    expect(outside.status).toBe(416);
    expect(errorOf(outside).code).toBe('range_not_satisfiable');

    const head = await fetch(url, { method: 'HEAD', headers: auth });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBe(bytes.length);

    // A range that is not one (last before first) is ignored, not refused (RFC 9110 14.1.1).
    const backwards = await fetch(url, { headers: { ...auth, range: 'bytes=5-2' } });
    expect(backwards.status).toBe(200);
    expect(Buffer.from(await backwards.arrayBuffer()).equals(bytes)).toBe(true);

    // Resuming with If-Range: the rest only while the file is the one the validator names.
    const etag = full.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
    for (const validator of [etag, full.headers.get('last-modified')!]) {
      const resumed = await fetch(url, { headers: { ...auth, range: 'bytes=100-', 'if-range': validator } });
      expect(resumed.status).toBe(206);
      expect(Buffer.from(await resumed.arrayBuffer()).equals(bytes.subarray(100))).toBe(true);
    }
    const stale = await fetch(url, { headers: { ...auth, range: 'bytes=100-', 'if-range': '"not-this-file"' } });
    expect(stale.status).toBe(200);
    expect(Buffer.from(await stale.arrayBuffer()).equals(bytes)).toBe(true);
  });
});

describe('ownership and readiness', () => {
  it("another key's task is 404 on every task endpoint, and is not listed", async () => {
    const other = await t.key('balance', { balanceNano: USD });
    const mine = (await postJson(`${t.baseUrl}/videos`, { model: 'local-video', prompt: 'mine', seconds: 2 }, owner.token)).body as VideoTask;
    const auth = { authorization: `Bearer ${other.token}` };
    for (const [method, path] of [['GET', ''], ['GET', '/content'], ['DELETE', '']] as const) {
      const response = await request(`${t.baseUrl}/videos/${mine.id}${path}`, { method, headers: auth });
      expect(response.status).toBe(404);
      expect(errorOf(response).code).toBe('not_found');
    }
    const missing = await request(`${t.baseUrl}/videos/video_aaaaaaaaaaaaaaaaaaaa`, { headers: auth });
    expect(missing.status).toBe(404);
    const traversal = await request(`${t.baseUrl}/videos/..%2F..%2Fgateway.db/content`, { headers: auth });
    expect(traversal.status).toBe(404);
    const list = (await request(`${t.baseUrl}/videos`, { headers: auth })).body as { data: VideoTask[] };
    expect(list.data).toEqual([]);
    await completed(owner.token, mine.id);
  });

  it('content of a task that is not completed -> 409 video_not_ready', async () => {
    const task = (await postJson(`${t.baseUrl}/videos`, { model: 'local-video', prompt: 'slow', seconds: 8, size: '720p' }, owner.token)).body as VideoTask;
    const response = await request(`${t.baseUrl}/videos/${task.id}/content`, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(response.status).toBe(409);
    expect(errorOf(response).code).toBe('video_not_ready');
    expect(errorOf(response).message).toMatch(/queued|in_progress/);
    // Cancel it: the hold is released and the task reads failed / cancelled.
    const cancelled = (await request(`${t.baseUrl}/videos/${task.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${owner.token}` } })).body as VideoTask;
    expect(cancelled).toMatchObject({ status: 'failed', error: { code: 'cancelled' }, cost_usd: '0.00000000' });
    const row = (await t.gateway.videoTasks.get(task.id))!;
    const hold = await t.gateway.store.db.selectFrom('holds').selectAll().where('id', '=', row.hold_id!).executeTakeFirstOrThrow();
    expect(hold.status).toBe('released');
  });

  it('lists newest first with limit and after', async () => {
    const key = await t.key('balance', { balanceNano: 5 * USD });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push(((await postJson(`${t.baseUrl}/videos`, { model: 'local-video', prompt: `clip ${i}`, seconds: 2 }, key.token)).body as VideoTask).id);
    }
    const auth = { authorization: `Bearer ${key.token}` };
    const first = (await request(`${t.baseUrl}/videos?limit=2`, { headers: auth })).body as { data: VideoTask[]; has_more: boolean; last_id: string };
    expect(first.data.map((v) => v.id)).toEqual([ids[2], ids[1]]);
    expect(first.has_more).toBe(true);
    const second = (await request(`${t.baseUrl}/videos?limit=2&after=${first.last_id}`, { headers: auth })).body as { data: VideoTask[]; has_more: boolean };
    expect(second.data.map((v) => v.id)).toEqual([ids[0]]);
    expect(second.has_more).toBe(false);
    // A page that ends exactly at the last task has nothing more after it.
    const whole = (await request(`${t.baseUrl}/videos?limit=3`, { headers: auth })).body as { data: VideoTask[]; has_more: boolean };
    expect(whole.data.map((v) => v.id)).toEqual([ids[2], ids[1], ids[0]]);
    expect(whole.has_more).toBe(false);
    const bad = await request(`${t.baseUrl}/videos?limit=1000`, { headers: auth });
    expect(errorOf(bad)).toMatchObject({ code: 'invalid_request', param: 'limit' });
    for (const id of ids) await completed(key.token, id);
  });
});
