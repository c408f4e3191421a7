// Load: 2,000 video tasks in flight at once, half on the OpenAI-compatible emulator and half on
// the fal queue emulator, created over real HTTP by several keys. The emulators hold every task
// until all 2,000 exist (so they really are in flight together), then finish each one after a
// random 200-1500 ms, 10% of them as upstream failures, while status polls meet random latency
// and a few retryable 500/429 answers. Then: every task ended as planned, every hold ended
// exactly once, each account's ledger balances, charges are exactly the price of the completed
// tasks, every task was submitted upstream exactly once, and memory stayed bounded. How long it
// took is reported (test-results/reliability.json), not asserted: a shared machine sets that.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VideoTask } from '../../shared/api-types.js';
import { USD } from '../helpers/gateway.js';
import { postJson, request } from '../helpers/http.js';
import { waitFor } from '../helpers/stub-video-provider.js';
import { ledgerProblems, pool, PRICE_PER_SECOND_NANO, prng, seedFor, startReliabilityUpstreams, writeResult, type ReliabilityUpstreams } from './support.js';

const SEED = seedFor(20_261_121);
const TASKS = 2_000;
const KEYS = 8;
const HTTP_CONCURRENCY = 200;
const FAIL_RATE = 0.1;
const RSS_LIMIT_BYTES = 1.5 * 1024 ** 3;
/** Only a safety net for a drain that never ends: it takes ~10-60 s. */
const DRAIN_SAFETY_MS = 400_000;

interface Planned {
  index: number;
  model: 'up-video' | 'fal-video';
  seconds: number;
  key: number;
  finishAfterMs: number;
  fail: boolean;
}

const rng = prng(SEED);
const plan: Planned[] = Array.from({ length: TASKS }, (_, index) => {
  const up = index % 2 === 0;
  return {
    index,
    model: up ? 'up-video' : 'fal-video',
    seconds: up ? rng.pick([4, 8]) : rng.pick([5, 10]),
    key: index % KEYS,
    finishAfterMs: rng.int(200, 1_500),
    fail: rng.chance(FAIL_RATE),
  };
});
const promptOf = (p: Planned) => `load task ${p.index} seed ${SEED}`;
const indexOfPrompt = (prompt: string) => Number(/^load task (\d+) /.exec(prompt)?.[1] ?? -1);

let u: ReliabilityUpstreams;
const keys: { id: string; token: string; accountId: string }[] = [];
const created: { index: number; status: number; id?: string; text: string }[] = [];
const run = { done: false, peakRssBytes: 0, startRssBytes: 0, samples: 0, inFlightAtOnce: 0, upstreamAtOnce: 0, createMs: 0, drainMs: 0, totalMs: 0 };

beforeAll(async () => {
  u = await startReliabilityUpstreams({
    scheduler: { intervalMs: 100, concurrency: 32 },
    limits: { requests: { balance: { perSecond: 100_000, perMinute: 1_000_000, perHour: 10_000_000 } } },
    // Tasks stay in progress upstream until the test finishes them (see `release` below).
    stuck: true,
    openaiVideoMs: 300,
    falMs: 300,
    // No task may time out, however slowly a shared machine creates and drains them: every one
    // must end as its upstream decides (the deadline has tests of its own, on an injected clock).
    maxTaskSeconds: 3_600,
    // Nor may an upstream call time out: 200 creations at once against emulators in this
    // process answer slowly on a loaded machine (upstream timeouts have tests of their own).
    totalTimeoutMs: 120_000,
  });
  for (let i = 0; i < KEYS; i++) keys.push(await u.t.key('balance', { balanceNano: 1_000 * USD }));
});
afterAll(async () => {
  await u?.close();
});

/**
 * Finishes every emulator task after the delay planned for its index (complete, or fail for 10%).
 * Keeps watching for new upstream jobs too (a task submitted twice gets its second job later),
 * so the test never leaves a job stuck that a real provider would have finished.
 */
function release(): { stop(): void } {
  const timers: NodeJS.Timeout[] = [];
  const seen = new Set<object>();
  const schedule = (job: object, prompt: string, finish: (fail: boolean) => void) => {
    if (seen.has(job)) return;
    seen.add(job);
    const planned = plan[indexOfPrompt(prompt)];
    if (!planned) return;
    timers.push(setTimeout(() => finish(planned.fail), planned.finishAfterMs));
  };
  const scan = () => {
    for (const task of u.openai.videos.values()) schedule(task, task.prompt, (fail) => (fail ? task.failNow() : task.completeNow()));
    for (const job of u.fal.jobs.values()) schedule(job, job.prompt, (fail) => (fail ? job.failNow() : job.completeNow()));
  };
  scan();
  const watcher = setInterval(scan, 50);
  return {
    stop: () => {
      clearInterval(watcher);
      timers.forEach(clearTimeout);
    },
  };
}

function injectPollFaults(): void {
  const faults = prng(SEED + 1);
  // Random latency on most status polls, in runs, plus a few retryable failures in between.
  for (let i = 0; i < 40; i++) {
    u.openai.inject('GET /v1/videos/:id', { latencyMs: faults.int(20, 400), times: faults.int(20, 80) });
    u.fal.inject('GET status', { latencyMs: faults.int(20, 400), times: faults.int(20, 80) });
    if (i % 10 === 5) {
      u.openai.inject('GET /v1/videos/:id', { status: 500, times: 10 });
      u.fal.inject('GET status', { status: 429, headers: { 'retry-after': '1' }, times: 10 });
    }
  }
}

const activeCount = async () =>
  Number(
    (await u.t.gateway.store.db.selectFrom('video_tasks').select((eb) => eb.fn.countAll<number>().as('n')).where('status', 'in', ['queued', 'in_progress']).executeTakeFirstOrThrow()).n,
  );

describe(`load: ${TASKS} video tasks in flight at once (seed ${SEED})`, () => {
  it('creates them over HTTP and drives every one to an end', { timeout: DRAIN_SAFETY_MS + 150_000 }, async () => {
    const started = Date.now();
    run.startRssBytes = process.memoryUsage().rss;
    const sampler = setInterval(() => {
      run.samples++;
      run.peakRssBytes = Math.max(run.peakRssBytes, process.memoryUsage().rss);
    }, 250);
    injectPollFaults();
    try {
      await pool(plan, HTTP_CONCURRENCY, async (p) => {
        const body =
          p.model === 'up-video'
            ? { model: p.model, prompt: promptOf(p), seconds: p.seconds, size: '1280x720' }
            : { model: p.model, prompt: promptOf(p), duration: p.seconds, resolution: '720p' };
        const response = await postJson(`${u.t.baseUrl}/videos`, body, keys[p.key]!.token);
        created.push({ index: p.index, status: response.status, id: (response.body as VideoTask | null)?.id, text: response.text.slice(0, 300) });
      });
      run.createMs = Date.now() - started;
      run.inFlightAtOnce = await activeCount();
      // And upstream: every task already submitted, none finished (the emulators hold them all).
      run.upstreamAtOnce =
        [...u.openai.videos.values()].filter((task) => task.status === 'queued' || task.status === 'in_progress').length +
        [...u.fal.jobs.values()].filter((job) => job.status !== 'COMPLETED').length;

      const releaser = release();
      const drainStarted = Date.now();
      try {
        await waitFor(async () => (await activeCount()) === 0, DRAIN_SAFETY_MS, 250).catch(async () => {
          throw new Error(`${await activeCount()} tasks still active after ${DRAIN_SAFETY_MS} ms`);
        });
        run.drainMs = Date.now() - drainStarted;
      } finally {
        releaser.stop();
      }
    } finally {
      clearInterval(sampler);
      run.peakRssBytes = Math.max(run.peakRssBytes, process.memoryUsage().rss);
      run.totalMs = Date.now() - started;
      const peakMb = Math.round(run.peakRssBytes / 1024 / 1024);
      console.log(`[reliability/load] ${TASKS} tasks (${plan.filter((p) => p.fail).length} set to fail upstream): created in ${run.createMs} ms, ${run.inFlightAtOnce} in flight at once (${run.upstreamAtOnce} running upstream), drained in ${run.drainMs} ms; peak RSS ${peakMb} MB (start ${Math.round(run.startRssBytes / 1024 / 1024)} MB, ${run.samples} samples every 250 ms)`);
      writeResult('load', {
        seed: SEED,
        tasks: TASKS,
        keys: KEYS,
        inFlightAtOnce: run.inFlightAtOnce,
        upstreamAtOnce: run.upstreamAtOnce,
        createMs: run.createMs,
        drainMs: run.drainMs,
        totalMs: run.totalMs,
        peakRssBytes: run.peakRssBytes,
        peakRssMb: peakMb,
        startRssMb: Math.round(run.startRssBytes / 1024 / 1024),
        rssSamples: run.samples,
        rssLimitMb: RSS_LIMIT_BYTES / 1024 / 1024,
        at: new Date().toISOString(),
      });
    }
    run.done = true;
  });

  it('every creation got a 200 and all 2,000 were in flight together', () => {
    expect(run.done).toBe(true);
    const failing = plan.filter((p) => p.fail).length / TASKS;
    expect(failing).toBeGreaterThan(0.07);
    expect(failing).toBeLessThan(0.13);
    const refused = created.filter((c) => c.status !== 200);
    expect(refused.slice(0, 5), `${refused.length} creations were refused`).toEqual([]);
    expect(new Set(created.map((c) => c.id)).size).toBe(TASKS);
    expect(run.inFlightAtOnce).toBe(TASKS);
    expect(run.upstreamAtOnce, 'upstream jobs running at once').toBe(TASKS);
  });

  it('no task was lost: each one ended, completed or failed exactly as the upstream decided', async () => {
    expect(run.done).toBe(true);
    const rows = await u.t.gateway.store.db.selectFrom('video_tasks').select(['id', 'prompt', 'status', 'error_code', 'cost_nano', 'hold_id', 'model', 'seconds']).execute();
    expect(rows).toHaveLength(TASKS);
    const wrong: string[] = [];
    for (const row of rows) {
      const planned = plan[indexOfPrompt(row.prompt)]!;
      const expected = planned.fail ? 'failed' : 'completed';
      if (row.status !== expected || (planned.fail && row.error_code !== 'generation_failed')) wrong.push(`${row.id} (#${planned.index} ${row.model}): ${row.status}/${row.error_code}, expected ${expected}`);
    }
    expect(wrong.slice(0, 10), `${wrong.length} tasks ended differently than planned`).toEqual([]);
    // And over HTTP, as the owners see them: a sample of each key's tasks.
    for (const key of keys) {
      const list = (await request(`${u.t.baseUrl}/videos?limit=100`, { headers: { authorization: `Bearer ${key.token}` } })).body as { data: VideoTask[] };
      expect(list.data).toHaveLength(100);
      expect(list.data.every((task) => task.status === 'completed' || task.status === 'failed')).toBe(true);
    }
  });

  it('every hold ended exactly once and every account balances (held = 0 at the end, available >= 0)', async () => {
    expect(run.done).toBe(true);
    const problems = await ledgerProblems(u.t.gateway.store.db, { requireEnded: true });
    expect(problems.slice(0, 10), `${problems.length} ledger problems`).toEqual([]);
    const holds = await u.t.gateway.store.db.selectFrom('holds').select(['id', 'status']).where('purpose', '=', 'video').execute();
    expect(holds).toHaveLength(TASKS);
  });

  it('charges equal the price of the completed tasks exactly, per task and per account', async () => {
    expect(run.done).toBe(true);
    const db = u.t.gateway.store.db;
    const tasks = await db.selectFrom('video_tasks').selectAll().execute();
    const holds = new Map((await db.selectFrom('holds').selectAll().execute()).map((h) => [h.id, h]));
    const wrong: string[] = [];
    const expectedByAccount = new Map<string, number>();
    for (const task of tasks) {
      const price = PRICE_PER_SECOND_NANO[task.model]! * task.seconds;
      const hold = holds.get(task.hold_id ?? '');
      const completed = task.status === 'completed';
      if (!hold) wrong.push(`${task.id}: no hold`);
      else if (hold.amount_nano !== price) wrong.push(`${task.id}: held ${hold.amount_nano}, price ${price}`);
      else if (completed && (hold.status !== 'consumed' || hold.charged_nano !== price || task.cost_nano !== price)) wrong.push(`${task.id}: completed but hold ${hold.status} charged ${hold.charged_nano}, task cost ${task.cost_nano}`);
      else if (!completed && (hold.status !== 'released' || hold.charged_nano !== 0 || task.cost_nano !== 0)) wrong.push(`${task.id}: ${task.status} but hold ${hold.status} charged ${hold.charged_nano}`);
      if (completed) expectedByAccount.set(task.account_id, (expectedByAccount.get(task.account_id) ?? 0) + price);
    }
    expect(wrong.slice(0, 10), `${wrong.length} tasks billed wrongly`).toEqual([]);
    for (const key of keys) {
      const consumed = await db.selectFrom('ledger').select(['amount_nano', 'balance_delta_nano']).where('account_id', '=', key.accountId).where('kind', '=', 'consume').execute();
      const charged = consumed.reduce((s, r) => s - r.balance_delta_nano, 0);
      const expected = expectedByAccount.get(key.accountId) ?? 0;
      expect(charged).toBe(expected);
      const account = await u.t.gateway.billing.getAccount(key.accountId);
      expect(account.balance_nano).toBe(1_000 * USD - expected);
    }
  });

  it('memory stayed bounded: peak RSS under 1.5 GB', () => {
    expect(run.done).toBe(true);
    expect(run.samples).toBeGreaterThan(4);
    expect(run.peakRssBytes).toBeLessThan(RSS_LIMIT_BYTES);
  });

  it('each task was submitted upstream exactly once (creations are never repeated: a repeat bills twice upstream)', () => {
    expect(run.done).toBe(true);
    const upstream = new Map<number, number>();
    for (const task of u.openai.videos.values()) upstream.set(indexOfPrompt(task.prompt), (upstream.get(indexOfPrompt(task.prompt)) ?? 0) + 1);
    for (const job of u.fal.jobs.values()) upstream.set(indexOfPrompt(job.prompt), (upstream.get(indexOfPrompt(job.prompt)) ?? 0) + 1);
    const repeated = [...upstream.entries()].filter(([, n]) => n !== 1).map(([index, n]) => `#${index} x${n}`);
    expect(repeated.slice(0, 10), `${repeated.length} tasks submitted more than once (of ${upstream.size})`).toEqual([]);
    expect(upstream.size).toBe(TASKS);
  });
});
