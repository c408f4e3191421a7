// Races in a video task's life, each forced by hand: a provider stub stops at a named point (its
// submission, its poll answer, the download of a finished video) until the test lets it go, the
// clock is injected, and the scheduler is driven one tick at a time. Whatever lands in between (a
// cancel over HTTP or from the studio, two cancels, the deadline, a write that fails, a restart),
// the task ends once, its hold ends once (one consume or one release), a cancelled task is never
// charged, an upstream job the gateway gave up on is cancelled, and no output is left on disk for
// a task that did not complete.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { VideoTask } from '../../shared/api-types.js';
import { silentLogger } from '../../electron/core/logger.js';
import { LocalVideoProvider } from '../../electron/core/providers/local/local-video-provider.js';
import { createStudio } from '../../electron/core/studio/studio.js';
import type { StudioVideo } from '../../shared/studio-contract.js';
import type { VideoJob, VideoProvider } from '../../electron/core/providers/provider.js';
import { USD, type TestGateway } from '../helpers/gateway.js';
import { Gate, HandProvider } from '../helpers/hand-video-provider.js';
import { postJson, request } from '../helpers/http.js';
import { addStubVideoModel, waitFor } from '../helpers/stub-video-provider.js';
import { handClock, videoTaskKit } from '../helpers/video-task-kit.js';

let t: TestGateway;
const { time, start } = handClock();

beforeAll(async () => {
  t = await start();
});
afterAll(() => t.close());

const { setup, callsOf, createHeld, taskOf, ledgerKinds, outputsOf, expectSettled, expectCancelled, nextModel } = videoTaskKit(() => t);

describe('a cancel landing in the middle of a scheduler step', () => {
  it.each([
    ['while the finished video is being downloaded', 'download'],
    ['after the download, before the completion is written', 'answer'],
  ] as const)('%s: cancelled and released, the upstream job cancelled, no output left on disk', async (_name, where) => {
    const s = await setup();
    const task = await s.create();
    s.stub.upstream = 'completed';
    const gate = new Gate();
    if (where === 'download') s.stub.downloadGate = gate;
    else s.stub.answerGate = gate;
    const step = t.gateway.scheduler.tick();
    await gate.reached;

    expect(await s.cancel(task.id)).toMatchObject({ status: 'failed', error: { code: 'cancelled' } });
    gate.open();
    await step;

    expect(s.stub.cancelled).toEqual([`up-${task.id}-1`]);
    await expectCancelled(s, task.id);
    await t.gateway.scheduler.tick();
    await expectCancelled(s, task.id);
  });

  it('between a running answer and its progress write: the cancel stands, the progress write does not revive the task', async () => {
    const s = await setup();
    const task = await s.create();
    s.stub.answerGate = new Gate();
    const gate = s.stub.answerGate;
    const step = t.gateway.scheduler.tick();
    await gate.reached;
    await s.cancel(task.id);
    gate.open();
    await step;
    await expectCancelled(s, task.id);
    expect((await s.get(task.id)).progress).toBe(0);
  });

  it('two cancels at once while the scheduler polls: both answer the cancelled task, one release, one upstream cancel', async () => {
    const s = await setup();
    const task = await s.create();
    await t.gateway.scheduler.tick();
    time.now += 1_000; // its next poll is due
    s.stub.answerGate = new Gate();
    const gate = s.stub.answerGate;
    const step = t.gateway.scheduler.tick();
    await gate.reached;
    const [first, second] = await Promise.all([s.cancel(task.id), s.cancel(task.id)]);
    gate.open();
    await step;
    expect(first).toMatchObject({ status: 'failed', error: { code: 'cancelled' } });
    expect(second).toEqual(first);
    expect(s.stub.cancelled).toEqual([`up-${task.id}-1`]);
    await expectCancelled(s, task.id);
  });
});

describe('the deadline passing during a download', () => {
  it('the upstream finished before the deadline: the task completes, charged once, and the next step changes nothing', async () => {
    const s = await setup();
    const task = await s.create();
    s.stub.upstream = 'completed';
    s.stub.downloadGate = new Gate();
    const gate = s.stub.downloadGate;
    const step = t.gateway.scheduler.tick();
    await gate.reached;
    time.now += 61_000;
    gate.open();
    await step;
    await t.gateway.scheduler.tick();

    expect(await s.get(task.id)).toMatchObject({ status: 'completed', error: null, cost_usd: '0.40000000' });
    expect(await ledgerKinds(s.key.accountId)).toEqual(['top_up', 'reserve', 'consume']);
    expect(outputsOf(task.id)).toEqual([`${task.id}.mp4`]);
    expect((await s.content(task.id)).status).toBe(200);
    expect(s.stub.cancelled).toEqual([]);
    await expectSettled(s.key.accountId);
  });
});

describe('an end arriving after the completion', () => {
  it('a completed task stays completed and charged: a cancel or failure that read it active before its completion committed changes nothing', async () => {
    const s = await setup();
    const task = await s.create();
    s.stub.upstream = 'completed';
    await t.gateway.scheduler.tick();
    expect(await s.get(task.id)).toMatchObject({ status: 'completed', cost_usd: '0.40000000' });

    // What a cancel or a poll's failure does once it has read the task as active.
    expect(await t.gateway.videoTasks.fail(task.id, 'failed', 'cancelled', 'The task was cancelled by its owner.', true)).toBeNull();
    expect(await t.gateway.videoTasks.fail(task.id, 'timeout', 'timeout', 'late')).toBeNull();

    expect(await s.get(task.id)).toMatchObject({ status: 'completed', error: null, cost_usd: '0.40000000' });
    expect(await ledgerKinds(s.key.accountId)).toEqual(['top_up', 'reserve', 'consume']);
    expect(outputsOf(task.id)).toEqual([`${task.id}.mp4`]);
    expect((await s.content(task.id)).status).toBe(200);
    await expectSettled(s.key.accountId);
  });
});

describe('a cancel racing a submission (the task is queued, no upstream id yet)', () => {
  it("during the creation's own submission: cancelled and released, and the job the provider then took is cancelled upstream, never resubmitted", async () => {
    const s = await setup();
    const gate = new Gate();
    const { id, creating } = await createHeld(s, gate);
    expect(await s.cancel(id)).toMatchObject({ status: 'failed', error: { code: 'cancelled' } });
    gate.open();
    // The creation answers what it answers on a retry with its Idempotency-Key: the task as created.
    expect(await creating).toMatchObject({ id, status: 'queued' });

    expect(s.stub.cancelled).toEqual([`up-${id}-1`]);
    time.now += 2_000; // past the creation's submit lease
    await t.gateway.scheduler.tick();
    expect(s.stub.submitted).toEqual([id]);
    await expectCancelled(s, id);
  });

  it("during the scheduler's resubmission after the lease ran out: both jobs the provider took are cancelled upstream", async () => {
    const s = await setup();
    const slowCreation = new Gate();
    const resubmission = new Gate();
    const { id, creating } = await createHeld(s, slowCreation, resubmission);
    time.now += 2_000; // past the creation's submit lease
    const step = t.gateway.scheduler.tick();
    await resubmission.reached;
    await s.cancel(id);
    resubmission.open();
    await step;
    slowCreation.open();
    await creating;

    expect(s.stub.cancelled.sort()).toEqual([`up-${id}-1`, `up-${id}-2`]);
    await t.gateway.scheduler.tick();
    await expectCancelled(s, id);
  });
});

describe('a cancel racing a creation the provider refuses', () => {
  it('the refusal removes the task while the cancel is on its way: the cancel answers 404 (no such task), the refusal 503, the hold released once', async () => {
    const s = await setup();
    const gate = new Gate();
    s.stub.submitGates.push(gate);
    s.stub.refuse = true;
    const creating = postJson(`${t.baseUrl}/videos`, { model: s.model, prompt: 'a kite', seconds: 4 }, s.key.token);
    await gate.reached;
    const id = await taskOf(s.key.accountId);
    // The cancel has read the task (queued) and is about to end it when the refusal discards it.
    const cancelReadTask = new Gate();
    const fail = t.gateway.videoTasks.fail.bind(t.gateway.videoTasks);
    const spy = vi.spyOn(t.gateway.videoTasks, 'fail').mockImplementationOnce(async (...args) => {
      await cancelReadTask.pass();
      return fail(...args);
    });
    try {
      const cancelling = request(`${t.baseUrl}/videos/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${s.key.token}` } });
      await cancelReadTask.reached;
      gate.open();
      expect((await creating).status).toBe(503);
      cancelReadTask.open();
      const cancelled = await cancelling;
      expect([cancelled.status, (cancelled.body as { error?: { code: string } }).error?.code]).toEqual([404, 'not_found']);
    } finally {
      spy.mockRestore();
    }
    expect(await t.gateway.videoTasks.get(id)).toBeUndefined();
    expect(await ledgerKinds(s.key.accountId)).toEqual(['top_up', 'reserve', 'release']);
    await expectSettled(s.key.accountId);
  });
});

describe('the studio cancelling its video while the creation is still submitting it', () => {
  it('the cancel is pushed to the studio at once (videos.updated), the hold released once, the job taken later cancelled upstream', async () => {
    const studio = await createStudio(t.gateway, { version: 'test' });
    try {
      const n = nextModel();
      const stub = new HandProvider(`hand-${n}`);
      const model = `video-hand-${n}`;
      await addStubVideoModel(t.gateway, stub, model, { max_task_seconds: 60 });
      const owner = studio.context.owner.accountId;
      await t.gateway.billing.topUp(owner, USD);
      const updates: StudioVideo[] = [];
      studio.events.subscribe((event, payload) => {
        if (event === 'videos.updated') updates.push((payload as { video: StudioVideo }).video);
      });
      const gate = new Gate();
      stub.submitGates.push(gate);
      const creating = studio.dispatch('videos.create', { model, prompt: 'a kite', seconds: 4 });
      await gate.reached;
      const { id } = await t.gateway.store.db.selectFrom('video_tasks').select('id').where('model', '=', model).executeTakeFirstOrThrow();

      expect(await studio.dispatch('videos.cancel', { id })).toMatchObject({ video: { id, status: 'failed', error: { code: 'cancelled' } } });
      await waitFor(async () => updates.find((video) => video.id === id && video.status === 'failed'), 2_000);
      gate.open();
      await creating;
      expect(stub.cancelled).toEqual([`up-${id}-1`]);
      const hold = await t.gateway.store.db.selectFrom('holds').selectAll().where('ref', '=', id).executeTakeFirstOrThrow();
      expect(hold.status).toBe('released');
      await expectSettled(owner);
    } finally {
      studio.dispose();
    }
  });
});

describe('a cancel landing after a local render finished, before the scheduler recorded it', () => {
  it('cancelled and released; the rendered MP4 is removed', async () => {
    const key = await t.key('balance', { balanceNano: USD });
    const calls = callsOf(t, key.token, 'local-video');
    const response = await postJson(`${t.baseUrl}/videos`, { model: 'local-video', prompt: 'waves at dusk', seconds: 2, size: '480p' }, key.token);
    expect(response.status).toBe(200);
    const { id } = response.body as VideoTask;
    // The scheduler is not running: the render ends and nobody records it yet.
    await waitFor(async () => existsSync(join(t.dataDir, 'videos', `${id}.mp4`)), 60_000);
    await calls.cancel(id);
    await t.gateway.scheduler.tick();
    expect(await calls.get(id)).toMatchObject({ status: 'failed', error: { code: 'cancelled' }, cost_usd: '0.00000000' });
    expect(await ledgerKinds(key.accountId)).toEqual(['top_up', 'reserve', 'release']);
    expect(outputsOf(id)).toEqual([]);
    await expectSettled(key.accountId);
  }, 90_000);
});

/** The built-in video engine, whose abort arrives only once the render has put its MP4 in place. */
class LateAbortEngine implements VideoProvider {
  readonly id = 'local-late-abort';
  readonly kind = 'local';
  private readonly engine = new LocalVideoProvider(silentLogger);
  submitVideo = (job: VideoJob) => this.engine.submitVideo(job);
  pollVideo = (job: VideoJob) => this.engine.pollVideo(job);
  async cancelVideo(job: VideoJob, upstreamId: string): Promise<void> {
    await waitFor(async () => existsSync(job.outputPath), 60_000);
    await this.engine.cancelVideo(job, upstreamId);
  }
}

describe('a local render that finishes after its task ended, before its abort', () => {
  it('the cancel waits for the render to stop, and removes the MP4 it made', async () => {
    await addStubVideoModel(t.gateway, new LateAbortEngine(), 'video-late-abort');
    const key = await t.key('balance', { balanceNano: USD });
    const calls = callsOf(t, key.token, 'video-late-abort');
    const task = await calls.create();
    await calls.cancel(task.id);
    await expectCancelled({ key, ...calls }, task.id);
  }, 90_000);
});

describe('a completion that cannot be written after the upstream finished', () => {
  /** Steps the task until its video is on disk and the completion fails to write (read-only database). */
  async function downloadedButNotRecorded(g: TestGateway, s: Awaited<ReturnType<typeof setup>>, id: string): Promise<void> {
    s.stub.upstream = 'completed';
    s.stub.answerGate = new Gate();
    const gate = s.stub.answerGate;
    const step = g.gateway.scheduler.tick();
    await gate.reached;
    g.gateway.store.raw.pragma('query_only = 1');
    gate.open();
    await step;
    g.gateway.store.raw.pragma('query_only = 0');
    expect((await s.get(id)).status).toBe('queued');
    expect(outputsOf(id, g)).toEqual([`${id}.mp4`]);
  }

  it('then a cancel: cancelled and released, the downloaded video removed', async () => {
    const s = await setup();
    const task = await s.create();
    await downloadedButNotRecorded(t, s, task.id);
    await s.cancel(task.id);
    await expectCancelled(s, task.id);
  });

  it('then a restart, and the deadline passes before the next step: timeout, released, the downloaded video removed', async () => {
    const first = await start();
    const s = await setup(first);
    const task = await s.create();
    await downloadedButNotRecorded(first, s, task.id);
    await first.server.close();
    await first.gateway.close();

    const again = await start({ dataDir: first.dataDir });
    try {
      again.gateway.providers.register(s.stub);
      time.now += 61_000;
      await again.gateway.scheduler.tick();
      expect(s.stub.cancelled).toEqual([`up-${task.id}-1`]);
      await expectCancelled({ key: s.key, ...callsOf(again, s.key.token, s.model) }, task.id, 'timeout', again);
    } finally {
      await again.close();
    }
  });
});
