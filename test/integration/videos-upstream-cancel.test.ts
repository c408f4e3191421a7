// The upstream job of a task that ended early (a cancel, a timeout) is cancelled even when the
// upstream is down at the time or the gateway stops before the cancel went out: the pending
// cancel is written with the task's end and tried again, with backoff, for up to an hour, also
// after a restart. Driven by hand: a stub provider answers each cancel as told, the clock is
// injected, and the scheduler runs one tick at a time.
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startBackgroundWork } from '../../electron/core/gateway.js';
import { VideoFiles } from '../../electron/core/videos/reference-store.js';
import { UPSTREAM_CANCEL_RETRY_MS } from '../../electron/core/videos/video-task-store.js';
import { USD, type TestGateway } from '../helpers/gateway.js';
import { Gate } from '../helpers/hand-video-provider.js';
import { waitFor } from '../helpers/stub-video-provider.js';
import { handClock, videoTaskKit } from '../helpers/video-task-kit.js';

let t: TestGateway;
const { time, start } = handClock();

beforeAll(async () => {
  t = await start();
});
afterAll(() => t.close());

const { setup, callsOf, createHeld, expectCancelled } = videoTaskKit(() => t);

/** A task on a fresh stub, submitted (its upstream job `up-<id>-1` running). */
async function submitted(g: TestGateway = t) {
  const s = await setup(g);
  const task = await s.create();
  return { s, id: task.id, job: `up-${task.id}-1` };
}

const pendingUntil = async (id: string, g = t) => (await g.gateway.videoTasks.get(id))!.upstream_cancel_until;

describe('an upstream down when its task is cancelled', () => {
  it('the cancel stands at once; the upstream cancel is tried again after a backoff until it goes through, then never again', async () => {
    const { s, id, job } = await submitted();
    s.stub.cancelAnswers.push('down', 'down');
    expect(await s.cancel(id)).toMatchObject({ status: 'failed', error: { code: 'cancelled' } });
    await expectCancelled(s, id);
    expect([s.stub.cancelTries, s.stub.cancelled]).toEqual([[job], []]);
    expect(await pendingUntil(id)).toBe(time.now + UPSTREAM_CANCEL_RETRY_MS);

    await t.gateway.scheduler.tick(); // backing off: not yet
    expect(s.stub.cancelTries).toEqual([job]);
    time.now += 60_000;
    await t.gateway.scheduler.tick(); // still down
    expect(s.stub.cancelTries).toEqual([job, job]);
    time.now += 60_000;
    await t.gateway.scheduler.tick();
    expect(s.stub.cancelled).toEqual([job]);
    expect(await pendingUntil(id)).toBeNull();

    time.now += 60_000;
    await t.gateway.scheduler.tick();
    expect(s.stub.cancelTries).toEqual([job, job, job]);
    await expectCancelled(s, id);
  });

  it('an upstream that answers there is nothing to cancel (finished, unknown) ends the cancel: not tried again', async () => {
    const { s, id, job } = await submitted();
    s.stub.cancelAnswers.push('gone');
    await s.cancel(id);
    expect(await pendingUntil(id)).toBeNull();
    time.now += 60_000;
    await t.gateway.scheduler.tick();
    expect(s.stub.cancelTries).toEqual([job]);
  });

  it('an upstream down for longer than an hour: the cancel is given up, with a warning', async () => {
    const { s, id, job } = await submitted();
    s.stub.cancelAnswers.push(...Array<'down'>(200).fill('down'));
    await s.cancel(id);
    const warn = vi.spyOn(t.gateway.logger, 'warn');
    try {
      for (let elapsed = 0; elapsed <= UPSTREAM_CANCEL_RETRY_MS; elapsed += 60_000) {
        time.now += 60_000;
        await t.gateway.scheduler.tick();
      }
      expect(await pendingUntil(id)).toBeNull();
      expect(warn).toHaveBeenCalledWith({ taskId: id }, 'gave up cancelling the upstream job of an ended video task');
    } finally {
      warn.mockRestore();
    }
    const tries = s.stub.cancelTries.length;
    expect(tries).toBeGreaterThan(10); // backing off, capped at a minute
    time.now += 60_000;
    await t.gateway.scheduler.tick();
    expect(s.stub.cancelTries).toHaveLength(tries);
    expect(s.stub.cancelTries.every((tried) => tried === job)).toBe(true);
  });

  it('a timeout whose upstream cancel fails is tried again the same way', async () => {
    const { s, id, job } = await submitted();
    s.stub.cancelAnswers.push('down');
    time.now += 61_000; // past max_task_seconds
    await t.gateway.scheduler.tick();
    await expectCancelled(s, id, 'timeout');
    expect(s.stub.cancelled).toEqual([]);
    time.now += 60_000;
    await t.gateway.scheduler.tick();
    expect(s.stub.cancelled).toEqual([job]);
  });
});

describe('a scan between a task ending and its cancel going out', () => {
  it('sends no second cancel: the task counts as under way from before its end commits', async () => {
    const { s, id, job } = await submitted();
    // The end commits, then removes any output before the cancel is sent: a scan runs right there.
    const removeOutput = VideoFiles.prototype.removeOutput;
    const pendingThen: (number | null)[] = [];
    const spy = vi.spyOn(VideoFiles.prototype, 'removeOutput').mockImplementation(async function (this: VideoFiles, taskId: string) {
      pendingThen.push(await pendingUntil(id));
      await t.gateway.scheduler.tick();
      return removeOutput.call(this, taskId);
    });
    try {
      await s.cancel(id);
    } finally {
      spy.mockRestore();
    }
    expect(pendingThen).toEqual([time.now + UPSTREAM_CANCEL_RETRY_MS]);
    expect([s.stub.cancelTries, s.stub.cancelled]).toEqual([[job], [job]]);
    expect(await pendingUntil(id)).toBeNull();
  });
});

describe('many pending cancels and an upstream that hangs', () => {
  it('at most 16 are sent at once; the rest wait for room', async () => {
    const s = await setup();
    const key = await t.key('balance', { balanceNano: 20 * USD });
    const calls = callsOf(t, key.token, s.model);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await calls.create()).id);
    s.stub.cancelAnswers.push(...Array<'down'>(20).fill('down'));
    for (const id of ids) await calls.cancel(id);
    time.now += 60_000;
    const hang = new Gate();
    const cancelVideo = vi.spyOn(s.stub, 'cancelVideo').mockImplementation(async (_job, upstreamId) => {
      s.stub.cancelTries.push(upstreamId);
      await hang.pass();
    });
    // Every cancel a scan starts looks its provider up first, before the scan reads the due
    // tasks: so once the scan reads them, the cancels it started are all counted here.
    const started: string[] = [];
    const video = t.gateway.providers.video.bind(t.gateway.providers);
    const lookups = vi.spyOn(t.gateway.providers, 'video').mockImplementation((id) => {
      if (id === s.stub.id) started.push(id);
      return video(id);
    });
    let scanned!: () => void;
    const cancelsStarted = new Promise<void>((resolve) => (scanned = resolve));
    const due = t.gateway.videoTasks.due.bind(t.gateway.videoTasks);
    const reading = vi.spyOn(t.gateway.videoTasks, 'due').mockImplementationOnce((...args) => {
      scanned();
      return due(...args);
    });
    try {
      const scan = t.gateway.scheduler.tick();
      await cancelsStarted;
      expect(started).toHaveLength(16);
      // And each of them reaches the upstream, where it hangs.
      await waitFor(async () => s.stub.cancelTries.length - 20 === started.length, 10_000, 1);
      expect(s.stub.cancelTries.length - 20).toBe(16);
      hang.open();
      await scan;
      await t.gateway.scheduler.tick();
      expect(s.stub.cancelTries.length - 20).toBe(20);
    } finally {
      cancelVideo.mockRestore();
      lookups.mockRestore();
      reading.mockRestore();
    }
  });
});

describe('a gateway stopped before the upstream cancel went out', () => {
  it('the next start cancels the job: the pending cancel was written with the end', async () => {
    const first = await start();
    const { s, id, job } = await submitted(first);
    // The cancel's upstream call never returns: the process is stopped while it hangs.
    const hang = new Gate();
    const cancelVideo = vi.spyOn(s.stub, 'cancelVideo').mockImplementationOnce(() => hang.pass());
    const cancelling = callsOf(first, s.key.token, s.model).cancel(id);
    await hang.reached;
    expect((await first.gateway.videoTasks.get(id))!.status).toBe('failed');
    cancelVideo.mockRestore();
    await first.gateway.close();

    const again = await start({ dataDir: first.dataDir });
    try {
      again.gateway.providers.register(s.stub);
      await again.gateway.scheduler.tick();
      expect(s.stub.cancelled).toEqual([job]);
      expect(await pendingUntil(id, again)).toBeNull();
      await expectCancelled({ key: s.key, ...callsOf(again, s.key.token, s.model) }, id, 'cancelled', again);
    } finally {
      hang.open();
      await cancelling.catch(() => undefined);
      await first.server.close();
      await again.close();
    }
  });
});

describe('the upstream job taken while the cancel was on its way', () => {
  it('a submission recorded between the cancel reading the task and ending it: that job is cancelled', async () => {
    const s = await setup();
    const gate = new Gate();
    const { id, creating } = await createHeld(s, gate);
    // The cancel reads the task (no upstream job yet); the submission lands before the cancel ends it.
    const getOwned = t.gateway.videoTasks.getOwned.bind(t.gateway.videoTasks);
    const spy = vi.spyOn(t.gateway.videoTasks, 'getOwned').mockImplementationOnce(async (...args) => {
      const row = await getOwned(...args);
      gate.open();
      await creating;
      return row;
    });
    try {
      await s.cancel(id);
    } finally {
      spy.mockRestore();
    }
    expect(s.stub.cancelled).toEqual([`up-${id}-1`]);
    await expectCancelled(s, id);
  });

  it("a creation that answers after the scheduler resubmitted its task: the task follows one job, the other is cancelled", async () => {
    const s = await setup();
    const slowCreation = new Gate();
    const { id, creating } = await createHeld(s, slowCreation);
    time.now += 2_000; // past the creation's submit lease
    await t.gateway.scheduler.tick(); // resubmits: the job it gets back (the stub's first, "-1") is recorded
    slowCreation.open();
    await creating; // the creation's job ("-2") comes back to a task that already follows another

    expect((await t.gateway.videoTasks.get(id))!.upstream_id).toBe(`up-${id}-1`);
    expect(s.stub.cancelled).toEqual([`up-${id}-2`]);
    s.stub.upstream = 'completed';
    await t.gateway.scheduler.tick();
    expect(await s.get(id)).toMatchObject({ status: 'completed', cost_usd: '0.40000000' });
  });
});

describe('a job the upstream lost, submitted again', () => {
  it('the task follows the new job: nothing is cancelled, and it completes', async () => {
    const { s, id } = await submitted();
    s.stub.upstream = 'lost';
    await t.gateway.scheduler.tick(); // resubmits
    expect((await t.gateway.videoTasks.get(id))!.upstream_id).toBe(`up-${id}-2`);
    s.stub.upstream = 'completed';
    await t.gateway.scheduler.tick();
    expect(await s.get(id)).toMatchObject({ status: 'completed', cost_usd: '0.40000000' });
    expect(s.stub.cancelTries).toEqual([]);
  });

  it("cancelled while resubmitted: the lost job's cancel going through does not drop the pending cancel of the new job", async () => {
    const { s, id } = await submitted();
    s.stub.upstream = 'lost';
    const resubmission = new Gate();
    s.stub.submitGates.push(resubmission);
    const ticking = t.gateway.scheduler.tick();
    await resubmission.reached;
    // The owner cancels: the lost job's upstream cancel is on its way (it hangs here)...
    const hang = new Gate();
    const cancelVideo = vi.spyOn(s.stub, 'cancelVideo').mockImplementationOnce(() => hang.pass());
    const cancelling = s.cancel(id);
    await hang.reached;
    cancelVideo.mockRestore();
    // ...when the resubmission comes back: its job is owed a cancel, and the upstream is down.
    s.stub.cancelAnswers.push('down');
    resubmission.open();
    await ticking;
    const second = `up-${id}-2`;
    expect(s.stub.cancelTries).toEqual([second]);
    hang.open();
    await cancelling; // the lost job's cancel goes through
    expect(await pendingUntil(id)).not.toBeNull();

    time.now += 60_000;
    await t.gateway.scheduler.tick();
    expect(s.stub.cancelled).toEqual([second]);
    expect(s.stub.cancelTries).toEqual([second, second]);
    expect(await pendingUntil(id)).toBeNull();
    await expectCancelled(s, id);
  });
});

describe('files an interrupted run left, swept at the next start', () => {
  it('partial downloads and renders, outputs of ended tasks, and references of creations that never committed go; what tasks need stays', async () => {
    const g = await start();
    try {
      const done = await submitted(g);
      done.s.stub.upstream = 'completed';
      await g.gateway.scheduler.tick();
      expect(await done.s.get(done.id)).toMatchObject({ status: 'completed' });
      const ended = await submitted(g);
      await ended.s.cancel(ended.id);
      const running = await submitted(g);

      const videos = join(g.dataDir, 'videos');
      const uploads = join(g.dataDir, 'uploads');
      const left = {
        download: join(videos, `${running.id}.mp4.part`),
        render: join(videos, `.${running.id}.mp4.0a1b2c3d4e5f.part`),
        endedOutput: join(videos, `${ended.id}.mp4`),
        runningOutput: join(videos, `${running.id}.mp4`),
        neverCommitted: join(uploads, 'video_neverinsertedtask12-0.png'),
        runningReference: join(uploads, `${running.id}-0.png`),
      };
      for (const path of Object.values(left)) writeFileSync(path, 'left by a killed process');

      await startBackgroundWork(g.gateway, 'test');
      expect(readdirSync(videos).sort()).toEqual([`${done.id}.mp4`, `${running.id}.mp4`].sort());
      expect(readdirSync(uploads)).toEqual([`${running.id}-0.png`]);
      expect((await done.s.content(done.id)).status).toBe(200);
    } finally {
      await g.close();
    }
  });
});
