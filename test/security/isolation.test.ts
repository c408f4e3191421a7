// Isolation between callers, with real tasks: one key can never read, poll, download, cancel or
// list another key's tasks (404 not_found, identical to a task that does not exist, and never
// listed); Idempotency-Keys are per account; anonymous callers (allowAnonymous) are told apart by
// their address and see no key's tasks (and a spoofed X-Forwarded-For changes nothing); the
// studio owner and API keys do not see each other's tasks or media.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VideoTask } from '../../shared/api-types.js';
import type { StudioVideo } from '../../shared/studio-contract.js';
import { ensureAnonymousAccount } from '../../electron/core/access/anonymous.js';
import { createStudio, type Studio } from '../../electron/core/studio/studio.js';
import { loadStudioToken } from '../../electron/core/studio/studio-token.js';
import { startHttpServer, type RunningServer } from '../../electron/http/server.js';
import { startTestGateway, USD, type TestGateway } from '../helpers/gateway.js';
import { errorOf, type RawResponse } from '../helpers/http.js';
import { addStubVideoModel, StubVideoProvider, waitFor } from '../helpers/stub-video-provider.js';
import { checkResponse, rawRequest } from './support.js';
import { registerGateway } from '../helpers/conformance.js';

type Key = { id: string; token: string; accountId: string };

let t: TestGateway;
let studio: Studio;
let studioServer: RunningServer;
let ownerToken: string;
let port: number;
let a: Key;
let b: Key;
const tasks: Record<'a' | 'b', { done: VideoTask; active: VideoTask }> = {} as never;
let anonTask: VideoTask;

const ANON_A = '127.0.0.2';
const ANON_B = '127.0.0.3';

function api(method: string, path: string, who: { token?: string; from?: string; headers?: Record<string, string> }, body?: unknown): Promise<RawResponse & { bytes: Buffer }> {
  return rawRequest({
    port,
    method,
    path: `/v1${path}`,
    ...(who.from ? { localAddress: who.from } : {}),
    headers: {
      ...(who.token ? { authorization: `Bearer ${who.token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(who.headers ?? {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
}

async function create(who: { token?: string; from?: string; headers?: Record<string, string> }, body: Record<string, unknown>): Promise<VideoTask> {
  const response = await api('POST', '/videos', who, body);
  checkResponse(response, { statuses: [200], label: `create ${JSON.stringify(body)}` });
  return response.body as VideoTask;
}

async function completedTask(token: string, prompt: string): Promise<VideoTask> {
  const task = await create({ token }, { model: 'local-video', prompt, seconds: 2, size: '480p' });
  return waitFor(async () => {
    const polled = (await api('GET', `/videos/${task.id}`, { token })).body as VideoTask;
    return polled.status === 'completed' ? polled : null;
  }, 60_000);
}

beforeAll(async () => {
  t = await startTestGateway({
    allowAnonymous: true,
    limits: {
      requests: {
        anonymous: { perSecond: 1_000, perMinute: 10_000, perHour: 100_000 },
        balance: { perSecond: 1_000, perMinute: 10_000, perHour: 100_000 },
      },
    },
  });
  port = t.server.port;
  const stub = new StubVideoProvider('stub', 'stuck');
  await addStubVideoModel(t.gateway, stub, 'stuck-video');
  // A video model anonymous callers may use (turbo, not usage-based), served by the stuck stub.
  const base = (await t.gateway.catalog.find('stuck-video'))!;
  await t.gateway.catalog.put({ ...base, record: { ...base.record, id: 'anon-video', tier: 'turbo', usage_based_only: false } });
  // The shared anonymous account needs funds for the hold.
  await t.gateway.billing.topUp(await ensureAnonymousAccount(t.gateway), 10 * USD);

  a = await t.key('balance', { balanceNano: 50 * USD });
  b = await t.key('balance', { balanceNano: 50 * USD });
  const [doneA, doneB] = await Promise.all([completedTask(a.token, 'alpha'), completedTask(b.token, 'bravo')]);
  tasks.a = { done: doneA, active: await create({ token: a.token }, { model: 'stuck-video', prompt: 'alpha stuck', seconds: 4 }) };
  tasks.b = { done: doneB, active: await create({ token: b.token }, { model: 'stuck-video', prompt: 'bravo stuck', seconds: 4 }) };
  anonTask = await create({ from: ANON_A }, { model: 'anon-video', prompt: 'anonymous', seconds: 4 });

  studio = await createStudio(t.gateway, { version: 'test', apiBaseUrl: () => t.baseUrl });
  ownerToken = loadStudioToken(t.dataDir);
  studioServer = await startHttpServer(t.gateway, { host: '127.0.0.1', port: 0, studio: { studio, ownerToken } });
  registerGateway(studioServer.baseUrl);
}, 90_000);

afterAll(async () => {
  studio?.dispose();
  await studioServer?.close();
  await t?.close();
});

/** A 404 for a real task of someone else must read exactly like a 404 for a task that never existed. */
function expectNotFound(response: RawResponse, id: string, label: string): void {
  checkResponse(response, { statuses: [404], label });
  const error = errorOf(response);
  expect(error.code, label).toBe('not_found');
  expect(error.message.replace(id, '<id>'), label).toBe(GHOST_MESSAGE);
}
let GHOST_MESSAGE = '';

async function listAll(who: { token?: string; from?: string }, order: 'asc' | 'desc'): Promise<string[]> {
  const ids: string[] = [];
  let after: string | null = null;
  for (let page = 0; page < 50; page++) {
    const response = await api('GET', `/videos?limit=1&order=${order}${after ? `&after=${after}` : ''}`, who);
    checkResponse(response, { statuses: [200], label: 'list page' });
    const list = response.body as { data: VideoTask[]; has_more: boolean; last_id: string | null };
    ids.push(...list.data.map((task) => task.id));
    if (!list.has_more) return ids;
    after = list.last_id;
  }
  throw new Error('the list never ended');
}

describe('one key cannot reach another key\'s tasks', () => {
  it('poll, download, cancel and content of B\'s tasks with A\'s key: 404, as for a task that never existed', async () => {
    const ghost = 'video_zzzzzzzzzzzzzzzzzzzz';
    GHOST_MESSAGE = errorOf(await api('GET', `/videos/${ghost}`, { token: a.token })).message.replace(ghost, '<id>');
    for (const [owner, intruder] of [[tasks.b, a], [tasks.a, b]] as const) {
      for (const task of [owner.done, owner.active]) {
        expectNotFound(await api('GET', `/videos/${task.id}`, { token: intruder.token }), task.id, `GET ${task.id}`);
        const content = await api('GET', `/videos/${task.id}/content`, { token: intruder.token });
        expectNotFound(content, task.id, `content ${task.id}`);
        expect(content.bytes.subarray(4, 8).toString('latin1')).not.toBe('ftyp');
        const ranged = await api('GET', `/videos/${task.id}/content`, { token: intruder.token, headers: { range: 'bytes=0-99' } });
        expectNotFound(ranged, task.id, `ranged content ${task.id}`);
        expectNotFound(await api('DELETE', `/videos/${task.id}`, { token: intruder.token }), task.id, `DELETE ${task.id}`);
        const head = await api('HEAD', `/videos/${task.id}/content`, { token: intruder.token });
        expect(head.status).toBe(404);
      }
    }
  });

  it('the failed cancels changed nothing: the tasks are still active and their holds still held', async () => {
    for (const [who, task] of [[a, tasks.a.active], [b, tasks.b.active]] as const) {
      const polled = await api('GET', `/videos/${task.id}`, { token: who.token });
      expect((polled.body as VideoTask).status).toMatch(/^(queued|in_progress)$/);
      const holds = await t.gateway.billing.activeHolds(who.accountId);
      expect(holds.map((h) => h.ref)).toContain(task.id);
    }
    // The owner can download its own completed task (the same request the intruder made).
    const own = await api('GET', `/videos/${tasks.b.done.id}/content`, { token: b.token });
    expect(own.status).toBe(200);
    expect(own.bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
  });

  it('lists never show another key\'s tasks, in either order and across pages', async () => {
    for (const [who, mine, theirs] of [[a, tasks.a, tasks.b], [b, tasks.b, tasks.a]] as const) {
      for (const order of ['asc', 'desc'] as const) {
        const ids = await listAll({ token: who.token }, order);
        expect(ids).toEqual(expect.arrayContaining([mine.done.id, mine.active.id]));
        expect(ids).not.toContain(theirs.done.id);
        expect(ids).not.toContain(theirs.active.id);
        expect(ids).not.toContain(anonTask.id);
      }
      const big = await api('GET', '/videos?limit=100', { token: who.token });
      expect(big.text).not.toContain(theirs.done.id);
      expect(big.text).not.toContain(theirs.active.id);
    }
  });

  it('another key\'s task id as the list cursor is refused exactly like an unknown id', async () => {
    const foreign = await api('GET', `/videos?after=${tasks.b.done.id}`, { token: a.token });
    const unknown = await api('GET', '/videos?after=video_zzzzzzzzzzzzzzzzzzzz', { token: a.token });
    checkResponse(foreign, { statuses: [400] });
    expect(foreign.status).toBe(unknown.status);
    expect(errorOf(foreign)).toEqual(errorOf(unknown));
    expect(foreign.text).not.toContain(tasks.b.done.id);
  });

  it('an Idempotency-Key is per account: B reusing A\'s key and request gets its own task', async () => {
    const body = { model: 'stuck-video', prompt: 'idempotent', seconds: 4 };
    const headers = { 'idempotency-key': 'shared-key-123' };
    const first = await create({ token: a.token, headers }, body);
    const again = await create({ token: a.token, headers }, body);
    expect(again.id).toBe(first.id);
    const other = await create({ token: b.token, headers }, body);
    expect(other.id).not.toBe(first.id);
    expectNotFound(await api('GET', `/videos/${first.id}`, { token: b.token }), first.id, 'A\'s idempotent task from B');
  });
});

describe('anonymous callers (allowAnonymous)', () => {
  it('see none of a key\'s tasks, and keys see none of theirs', async () => {
    for (const task of [tasks.a.done, tasks.a.active]) {
      expectNotFound(await api('GET', `/videos/${task.id}`, { from: ANON_A }), task.id, 'anonymous GET');
      expectNotFound(await api('GET', `/videos/${task.id}/content`, { from: ANON_A }), task.id, 'anonymous content');
      expectNotFound(await api('DELETE', `/videos/${task.id}`, { from: ANON_A }), task.id, 'anonymous DELETE');
    }
    const list = await api('GET', '/videos?limit=100', { from: ANON_A });
    checkResponse(list, { statuses: [200] });
    expect((list.body as { data: VideoTask[] }).data.map((task) => task.id)).toEqual([anonTask.id]);
    expectNotFound(await api('GET', `/videos/${anonTask.id}`, { token: a.token }), anonTask.id, 'key reads anonymous task');
    expectNotFound(await api('DELETE', `/videos/${anonTask.id}`, { token: a.token }), anonTask.id, 'key cancels anonymous task');
  });

  it('are told apart by address: another address cannot read, cancel or list the task, even with a spoofed X-Forwarded-For', async () => {
    const spoof = { 'x-forwarded-for': ANON_A, 'x-real-ip': ANON_A, forwarded: `for=${ANON_A}` };
    for (const headers of [{}, spoof]) {
      expectNotFound(await api('GET', `/videos/${anonTask.id}`, { from: ANON_B, headers }), anonTask.id, 'other address GET');
      expectNotFound(await api('DELETE', `/videos/${anonTask.id}`, { from: ANON_B, headers }), anonTask.id, 'other address DELETE');
      const list = await api('GET', '/videos?limit=100', { from: ANON_B, headers });
      expect((list.body as { data: VideoTask[] }).data).toEqual([]);
    }
    const mine = await api('GET', `/videos/${anonTask.id}`, { from: ANON_A });
    expect((mine.body as VideoTask).status).toMatch(/^(queued|in_progress)$/);
  });

  it('an empty or malformed Authorization header is not anonymous access', async () => {
    for (const authorization of ['Bearer', 'Bearer ', 'Basic abc', 'Bearer not-a-key']) {
      const response = await api('GET', `/videos/${anonTask.id}`, { from: ANON_A, headers: { authorization } });
      checkResponse(response, { statuses: [401], label: authorization });
    }
  });
});

describe('the studio owner and API keys', () => {
  const studioCall = async <T>(method: string, input: unknown) => {
    const response = await rawRequest({
      port: studioServer.port,
      method: 'POST',
      path: `/studio/api/${method}`,
      headers: { authorization: `Bearer ${ownerToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(input),
    });
    return response as RawResponse & { body: T };
  };

  it('the studio lists none of the keys\' tasks and cannot cancel them', async () => {
    const listed = await studioCall<{ videos: StudioVideo[] }>('videos.list', { limit: 100 });
    checkResponse(listed, { statuses: [200] });
    for (const task of [tasks.a.done, tasks.a.active, tasks.b.done, anonTask]) {
      expect(listed.text).not.toContain(task.id);
      const cancel = await studioCall('videos.cancel', { id: task.id });
      checkResponse(cancel, { statuses: [404], label: `studio cancels ${task.id}` });
    }
    const still = await api('GET', `/videos/${tasks.a.active.id}`, { token: a.token });
    expect((still.body as VideoTask).status).toMatch(/^(queued|in_progress)$/);
  });

  it('studio media never serves a key\'s video', async () => {
    for (const task of [tasks.a.done, tasks.b.done]) {
      const response = await rawRequest({ port: studioServer.port, path: `/studio/media/videos/${task.id}.mp4`, headers: { authorization: `Bearer ${ownerToken}` } });
      checkResponse(response, { statuses: [404], label: `media of ${task.id}` });
      expect(response.bytes.subarray(4, 8).toString('latin1')).not.toBe('ftyp');
    }
  });

  it('keys cannot reach the studio\'s tasks', async () => {
    const created = await studioCall<{ video: StudioVideo }>('videos.create', { model: 'stuck-video', prompt: 'owner only', seconds: 4 });
    checkResponse(created, { statuses: [200] });
    const id = created.body.video.id;
    expectNotFound(await api('GET', `/videos/${id}`, { token: a.token }), id, 'key reads studio task');
    expectNotFound(await api('DELETE', `/videos/${id}`, { token: a.token }), id, 'key cancels studio task');
    expect((await api('GET', '/videos?limit=100', { token: a.token })).text).not.toContain(id);
    expect((await api('GET', '/videos?limit=100', { from: ANON_A })).text).not.toContain(id);
    checkResponse(await studioCall('videos.cancel', { id }), { statuses: [200] });
  });
});
