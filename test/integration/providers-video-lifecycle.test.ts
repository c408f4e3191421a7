// Upstream video tasks on both emulated protocols, end to end, without a client polling: the
// scheduler alone completes and charges them; a task the upstream keeps running past the
// model's max_task_seconds (the emulators' stuck tasks) ends `timeout`, its hold released and
// the upstream job cancelled; and a refused or failed status poll (429 with Retry-After, 503) is
// not a task failure.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Fault } from '../emulators/index.js';
import { USD } from '../helpers/gateway.js';
import { postJson } from '../helpers/http.js';
import { waitFor } from '../helpers/stub-video-provider.js';
import { startUpstreams, type UpstreamSetup } from '../helpers/upstreams.js';

let u: UpstreamSetup;
let key: { id: string; token: string; accountId: string };

beforeAll(async () => {
  u = await startUpstreams();
  key = await u.t.key('balance', { balanceNano: 50 * USD });
  // Short-lived copies of the emulated video models, for the stuck tasks.
  for (const id of ['up-video', 'fal-video']) {
    const entry = (await u.t.gateway.catalog.find(id))!;
    const record = structuredClone(entry.record);
    record.id = `${id}-short`;
    record.capabilities = { ...record.capabilities, max_task_seconds: 1 };
    await u.t.gateway.catalog.put({ record, providerId: entry.routes[0]!.providerId, upstreamModel: entry.routes[0]!.upstreamModel });
  }
});
afterAll(() => u.close());

const bodies: Record<string, Record<string, unknown>> = {
  openai: { prompt: 'tide', seconds: 4, size: '1280x720' },
  fal: { prompt: 'tide', seconds: 5 },
};
const modelOf = { openai: 'up-video', fal: 'fal-video' } as const;
const kinds = ['openai', 'fal'] as const;

async function create(kind: (typeof kinds)[number], model: string): Promise<string> {
  const response = await postJson(`${u.t.baseUrl}/videos`, { model, ...bodies[kind] }, key.token);
  expect(response.status).toBe(200);
  return (response.body as { id: string }).id;
}

/** The task as stored, read without the client API (so nobody polls it). */
const untilStored = (id: string, statuses: string[]) =>
  waitFor(async () => {
    const row = await u.t.gateway.videoTasks.get(id);
    return row && statuses.includes(row.status) ? row : null;
  }, 20_000);

const holdOf = async (holdId: string) => u.t.gateway.store.db.selectFrom('holds').select(['status', 'amount_nano']).where('id', '=', holdId).executeTakeFirstOrThrow();

describe.each(kinds)('%s video tasks', (kind) => {
  it('complete and are charged by the scheduler when no client ever polls', async () => {
    const before = await u.t.gateway.billing.view(key.accountId);
    const id = await create(kind, modelOf[kind]);
    const row = await untilStored(id, ['completed', 'failed', 'timeout']);
    expect(row.status).toBe('completed');
    const hold = await holdOf(row.hold_id!);
    expect(hold.status).toBe('consumed');
    const after = await u.t.gateway.billing.view(key.accountId);
    const nano = (usd: string) => Math.round(Number(usd) * USD);
    expect(nano(before.balance_usd) - nano(after.balance_usd)).toBe(Number(hold.amount_nano));
  });

  it('stuck upstream past max_task_seconds: timeout, hold released, the upstream job cancelled', async () => {
    const stuck = (on: boolean) => (kind === 'openai' ? (u.openai.videoBehaviour.stuck = on) : (u.fal.behaviour.stuck = on));
    stuck(true);
    const id = await create(kind, `${modelOf[kind]}-short`).finally(() => stuck(false));
    const row = await untilStored(id, ['completed', 'failed', 'timeout']);
    expect(row.status).toBe('timeout');
    expect((await holdOf(row.hold_id!)).status).toBe('released');
    const cancelled = () =>
      kind === 'openai'
        ? u.openai.requests.some((r) => r.method === 'DELETE' && r.path === `/v1/videos/${row.upstream_id}`)
        : u.fal.cancelCalls.includes((JSON.parse(row.upstream_id!) as { request_id: string }).request_id);
    await waitFor(async () => cancelled() || null, 5_000);
  });

  it.each([
    ['429 with Retry-After', { status: 429, headers: { 'retry-after': '1' }, times: 2 }],
    ['503', { status: 503, times: 2 }],
  ] as [string, Fault][])('a status poll answered %s is not a failure: the task completes', async (_name, fault) => {
    if (kind === 'openai') u.openai.inject('GET /v1/videos/:id', fault);
    else u.fal.inject('GET status', fault);
    const id = await create(kind, modelOf[kind]);
    const row = await untilStored(id, ['completed', 'failed', 'timeout']);
    u.openai.clearFaults();
    u.fal.clearFaults();
    expect(row.status).toBe('completed');
  });
});

describe('an OpenAI video that is still running when its task ends', () => {
  it('is deleted upstream once it has ended: the refused DELETE is tried again, not taken as nothing to cancel', async () => {
    u.openai.videoBehaviour.stuck = true;
    const id = await create('openai', 'up-video-short').finally(() => (u.openai.videoBehaviour.stuck = false));
    const row = await untilStored(id, ['completed', 'failed', 'timeout']);
    expect(row.status).toBe('timeout');
    const deletes = () => u.openai.requests.filter((r) => r.method === 'DELETE' && r.path === `/v1/videos/${row.upstream_id}`);
    // OpenAI deletes only a completed or failed video: the first DELETE is refused.
    await waitFor(async () => deletes().length > 0 || null, 5_000);
    const upstream = u.openai.videos.get(row.upstream_id!)!;
    expect(upstream.deleted).toBe(false);
    expect((await u.t.gateway.videoTasks.get(id))!.upstream_cancel_until).not.toBeNull();
    // Once it has ended upstream, the pending cancel deletes it, and is done.
    upstream.completeNow();
    await waitFor(async () => upstream.deleted || null, 20_000);
    await waitFor(async () => ((await u.t.gateway.videoTasks.get(id))!.upstream_cancel_until === null) || null, 5_000);
    expect(deletes().length).toBeGreaterThanOrEqual(2);
  });
});
