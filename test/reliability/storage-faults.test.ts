// Disk and database faults, made real through SQLite itself (the suite runs as root, so file
// permissions would not stop a write): `PRAGMA query_only = 1` on the gateway's own connection
// turns every write into SQLITE_READONLY (a read-only data dir), `PRAGMA max_page_count = <page
// count>` makes the database full (SQLITE_FULL), and another process that holds `BEGIN
// IMMEDIATE` locks it. Contract: a write that fails because storage is read-only or
// full answers 503 `storage_unavailable` with a clear message (never a 500, never internals);
// nothing is corrupted, and once the fault is gone the database checks `ok`, every hold has ended
// exactly once, the accounts balance, and requests work again. A lock released within the busy
// timeout is waited out: the request succeeds.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { VideoTask } from '../../shared/api-types.js';
import { GatewayError } from '../../electron/core/errors.js';
import type { VideoJob } from '../../electron/core/providers/provider.js';
import { createStudio } from '../../electron/core/studio/studio.js';
import { USD } from '../helpers/gateway.js';
import { Gate } from '../helpers/hand-video-provider.js';
import { handClock } from '../helpers/video-task-kit.js';
import { makeImage } from '../helpers/images.js';
import { errorOf, outcome, postJson, request, type RawResponse } from '../helpers/http.js';
import { addStubVideoModel, StubVideoProvider, waitFor } from '../helpers/stub-video-provider.js';
import { ledgerProblems, sleep, startReliabilityUpstreams, type ReliabilityUpstreams } from './support.js';
import { isBusy } from '../../electron/core/store/lock-wait.js';

let u: ReliabilityUpstreams;
type Key = { id: string; token: string; accountId: string };
/** Each test bills its own key, so a hold one test leaves behind never fails another. */
let key: Key;
const raw = () => u.t.gateway.store.raw;
/** A pragma's single value (libsql ignores better-sqlite3's {simple: true} and adds _metadata). */
const pragmaValue = (name: string): unknown => (raw().prepare(`pragma ${name}`).raw(true).get() as unknown[])[0];
/** All rows of a pragma, as arrays. */
const pragmaRows = (name: string): unknown[][] => raw().prepare(`pragma ${name}`).raw(true).all() as unknown[][];

beforeAll(async () => {
  u = await startReliabilityUpstreams({
    scheduler: { intervalMs: 100 },
    limits: { requests: { balance: { perSecond: 10_000, perMinute: 100_000, perHour: 1_000_000 } } },
  });
});
beforeEach(async () => {
  key = await u.t.key('balance', { balanceNano: 100 * USD });
});
afterEach(() => {
  // Whatever a test did, the next one starts from a writable, unbounded database.
  raw().pragma('query_only = 0');
  raw().pragma('max_page_count = 4294967294');
  u.openai.clearFaults();
});
afterAll(() => u?.close());

const image = (size = '256x256') => postJson(`${u.t.baseUrl}/images/generations`, { model: 'local-image', prompt: 'a lighthouse on a cliff', size }, key.token);
const video = () => postJson(`${u.t.baseUrl}/videos`, { model: 'local-video', prompt: 'waves at dusk', seconds: 2, size: '480p' }, key.token);
const getTask = async (id: string) => (await request(`${u.t.baseUrl}/videos/${id}`, { headers: { authorization: `Bearer ${key.token}` } })).body as VideoTask;


/** Internals that must never reach a client: stack frames, file paths, SQLite's own messages. */
const INTERNALS = /\bat \S+ \(|node_modules|\.(ts|js):\d+|SQLITE_|readonly database|disk is full|database is locked|SqliteError/i;

/**
 * Stops the image calls of provider `id` at `gate` (once the gateway holds their money) until
 * the test opens it; returns the undo.
 */
async function gateImageCalls(id: string, gate: Gate): Promise<() => void> {
  const provider = await u.t.gateway.providers.image(id);
  const spies: { mockRestore(): void }[] = [];
  const generate = provider.generateImage.bind(provider);
  spies.push(vi.spyOn(provider, 'generateImage').mockImplementation(async (job) => {
    await gate.pass();
    return generate(job);
  }));
  const stream = provider.generateImageStream?.bind(provider);
  if (stream) spies.push(vi.spyOn(provider, 'generateImageStream').mockImplementation(async (job) => {
    await gate.pass();
    return stream(job);
  }));
  return () => spies.forEach((spy) => spy.mockRestore());
}

async function waitTerminal(id: string, timeoutMs = 60_000): Promise<VideoTask> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const task = await getTask(id);
    if (task.status !== 'queued' && task.status !== 'in_progress') return task;
    if (Date.now() > deadline) throw new Error(`task ${id} still ${task.status} after ${timeoutMs} ms`);
    await sleep(100);
  }
}

async function waitNoActiveTasks(timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const active = await u.t.gateway.store.db.selectFrom('video_tasks').select('id').where('account_id', '=', key.accountId).where('status', 'in', ['queued', 'in_progress']).execute();
    if (active.length === 0) return;
    await sleep(100);
  }
  throw new Error('video tasks still active');
}

/** Ledger problems of this test's account (every hold ended exactly once, balance = top-ups - charges, ...). */
const problemsOfKey = async () => (await ledgerProblems(u.t.gateway.store.db, { requireEnded: true })).filter((p) => p.accountId === key.accountId);

/** After a fault is lifted: integrity ok, every hold ended exactly once, the account balances, requests work. */
async function expectRecovered(): Promise<void> {
  expect(pragmaValue('integrity_check')).toBe('ok');
  expect(pragmaRows('foreign_key_check')).toEqual([]);
  await waitNoActiveTasks();
  expect(await problemsOfKey()).toEqual([]);
  expect(outcome(await image())).toBe('200');
  const created = await video();
  expect(outcome(created)).toBe('200');
  expect((await waitTerminal((created.body as VideoTask).id)).status).toBe('completed');
  expect(await problemsOfKey()).toEqual([]);
}

describe('read-only data dir (PRAGMA query_only = 1: every write fails with SQLITE_READONLY)', () => {
  it('image and video creations answer 503 storage_unavailable with a clear message, never a 500', async () => {
    raw().pragma('query_only = 1');
    let responses: RawResponse[];
    try {
      responses = [await image(), await video()];
      // Reads do not write: polling and listing still work.
      const list = await request(`${u.t.baseUrl}/videos`, { headers: { authorization: `Bearer ${key.token}` } });
      expect(list.status).toBe(200);
    } finally {
      raw().pragma('query_only = 0');
    }
    expect(responses.map(outcome)).toEqual(['503 storage_unavailable', '503 storage_unavailable']);
    for (const response of responses) expect(response.text).not.toMatch(INTERNALS);
    await expectRecovered();
  });

  it('a local-video task that finishes while the database is read-only completes once it is writable, charged once, and nothing is left unhandled', async () => {
    // Node ends `mgw serve` on an unhandled promise rejection: a failed write must never become one.
    const unhandled: string[] = [];
    const onUnhandled = (reason: unknown) => {
      const lines = String((reason as Error)?.stack ?? reason).split('\n');
      // The message and the gateway's own frames (where the promise was left without a catch).
      unhandled.push([lines[0], ...lines.filter((l) => l.includes('/electron/')).map((l) => l.trim())].join(' | '));
    };
    process.on('unhandledRejection', onUnhandled);
    try {
      await renderThroughReadOnly();
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(unhandled.slice(0, 3), `${unhandled.length} unhandled rejections while storage was read-only`).toEqual([]);
  });

  async function renderThroughReadOnly(): Promise<void> {
    const created = await video();
    expect(created.status).toBe(200);
    const id = (created.body as VideoTask).id;
    // The scheduler's tries to write the completion, once the render has ended.
    let failedCompletions = 0;
    const complete = u.t.gateway.videoTasks.complete.bind(u.t.gateway.videoTasks);
    const spy = vi.spyOn(u.t.gateway.videoTasks, 'complete').mockImplementation(async (taskId, output) => {
      try {
        return await complete(taskId, output);
      } catch (error) {
        if (taskId === id) failedCompletions++;
        throw error;
      }
    });
    raw().pragma('query_only = 1');
    try {
      // The render ends and the scheduler fails to write its completion, more than once.
      await waitFor(async () => failedCompletions >= 2, 60_000);
      const stuck = await u.t.gateway.videoTasks.get(id);
      expect(stuck!.status).not.toBe('completed');
    } finally {
      raw().pragma('query_only = 0');
      spy.mockRestore();
    }
    const done = await waitTerminal(id);
    expect(done).toMatchObject({ status: 'completed', cost_usd: '0.10000000' });
    const row = (await u.t.gateway.videoTasks.get(id))!;
    const endings = await u.t.gateway.store.db.selectFrom('ledger').select('kind').where('hold_id', '=', row.hold_id!).where('kind', 'in', ['consume', 'release']).execute();
    expect(endings.map((e) => e.kind)).toEqual(['consume']);
    await expectRecovered();
  }

  it('an image request in flight when storage turns read-only does not leave its hold active once storage is back', async () => {
    // The upstream call waits at a gate: the hold is reserved before the fault, settled after it.
    const upstreamCall = new Gate();
    const restore = await gateImageCalls('up', upstreamCall);
    let balanceBefore: Awaited<ReturnType<typeof u.t.gateway.billing.view>>;
    let response: RawResponse;
    try {
      const pending = postJson(`${u.t.baseUrl}/images/generations`, { model: 'up-image', prompt: 'slow one', size: '1024x1024' }, key.token);
      await upstreamCall.reached;
      balanceBefore = await u.t.gateway.billing.view(key.accountId);
      expect(await u.t.gateway.billing.activeHolds(key.accountId)).toHaveLength(1);
      expect(balanceBefore.holds_usd).not.toBe('0.00000000');
      raw().pragma('query_only = 1');
      try {
        upstreamCall.open();
        response = await pending;
      } finally {
        raw().pragma('query_only = 0');
      }
    } finally {
      restore();
    }
    expect(outcome(response)).toBe('503 storage_unavailable');
    expect(response.text).not.toMatch(INTERNALS);
    // Storage is back and nothing is in flight: no hold may stay active (it would keep the money
    // unavailable until the next restart). A request's hold ends before its answer goes out.
    const left = await u.t.gateway.store.db.selectFrom('holds').select(['id', 'amount_nano']).where('account_id', '=', key.accountId).where('status', '=', 'active').execute();
    expect(left, 'image hold stored active after storage recovered').toEqual([]);
    expect(await u.t.gateway.billing.activeHolds(key.accountId), 'image hold still held after storage recovered').toEqual([]);
    const balanceAfter = await u.t.gateway.billing.view(key.accountId);
    expect(balanceAfter.holds_usd).toBe('0.00000000');
    expect(balanceAfter.balance_usd, 'the failed request charged nothing').toBe(balanceBefore.balance_usd);
    await expectRecovered();
  });
});

describe('full database (PRAGMA max_page_count = page_count: new pages fail with SQLITE_FULL)', () => {
  it('requests that cannot be written answer 503 storage_unavailable; after more room, all is consistent', async () => {
    const pages = Number(pragmaValue('page_count'));
    expect(pages).toBeGreaterThan(10);
    raw().pragma(`max_page_count = ${pages}`);
    expect(Number(pragmaValue('max_page_count'))).toBe(pages);
    const outcomes: string[] = [];
    const texts: string[] = [];
    try {
      // Fill what room is left: image and video creations until several have failed.
      for (let i = 0; i < 400 && outcomes.filter((o) => o !== '200').length < 6; i++) {
        const response = i % 4 === 3 ? await video() : await image();
        outcomes.push(outcome(response));
        if (response.status !== 200) texts.push(response.text);
      }
    } finally {
      raw().pragma('max_page_count = 4294967294');
    }
    const failures = outcomes.filter((o) => o !== '200');
    expect(failures.length, 'the database never filled up').toBeGreaterThan(0);
    expect([...new Set(failures)]).toEqual(['503 storage_unavailable']);
    for (const text of texts) expect(text).not.toMatch(INTERNALS);
    await expectRecovered();
  });
});

describe('locked database (another connection holds BEGIN IMMEDIATE)', () => {
  const libsqlPath = createRequire(import.meta.url).resolve('libsql');

  /**
   * Holds the write lock from another process, as the CLI would, until release() (or until this
   * process goes and its stdin closes).
   */
  async function holdLock(): Promise<{ release(): Promise<void> }> {
    const child = spawn(
      process.execPath,
      [
        '-e',
        `const Database = require(process.argv[1]);
         const db = new Database(process.argv[2]);
         db.exec('BEGIN IMMEDIATE');
         db.exec("UPDATE meta SET key = key WHERE 0");
         process.stdout.write('locked\\n');
         const release = () => { db.exec('COMMIT'); db.close(); process.stdout.write('released\\n'); process.exit(0); };
         process.stdin.once('data', release);
         process.stdin.once('end', release);`,
        libsqlPath,
        u.t.gateway.store.path,
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    let out = '';
    const seen = (word: string) =>
      new Promise<void>((resolve, reject) => {
        const check = () => out.includes(word) && resolve();
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          check();
        });
        child.once('exit', (code) => (out.includes(word) ? resolve() : reject(new Error(`lock holder exited ${code} before "${word}"`))));
        check();
      });
    const released = seen('released');
    released.catch(() => undefined);
    await seen('locked');
    return {
      release: () => {
        if (child.stdin.writable) child.stdin.end('release\n');
        return released;
      },
    };
  }

  /** Counts the gateway's tries to take the write lock that met another's (SQLITE_BUSY). */
  function countLockWaits(): { count(): number; restore(): void } {
    let met = 0;
    const db = raw();
    const exec = db.exec.bind(db);
    const spy = vi.spyOn(db, 'exec').mockImplementation((sql: string) => {
      try {
        return exec(sql);
      } catch (error) {
        if (isBusy(error)) met++;
        throw error;
      }
    });
    return { count: () => met, restore: () => spy.mockRestore() };
  }

  /** Writes what the background batches hold now, so that the next lock wait is a request's own. */
  const flushBatches = () => Promise.all([u.t.gateway.activity.flush(), u.t.gateway.access.usage.flush()]);

  it('a request meeting a lock waits for it (busy timeout) and succeeds once it is released', async () => {
    for (const send of [() => image(), () => video()]) {
      await flushBatches();
      const lock = await holdLock();
      const waits = countLockWaits();
      let released = false;
      let answeredWhileLocked = false;
      try {
        const pending = send().then((response) => ((answeredWhileLocked = !released), response));
        // The request met the lock and is waiting for it: now the other process lets go.
        await waitFor(async () => waits.count() > 0, 20_000, 1);
        released = true;
        await lock.release();
        const response = await pending;
        expect(outcome(response)).toBe('200');
        expect(answeredWhileLocked).toBe(false);
      } finally {
        waits.restore();
        await lock.release();
      }
    }
    await expectRecovered();
  });

  it('a lock held past the wait: 503 after ~5 s, and the server answers other requests all the while', async () => {
    await flushBatches();
    const lock = await holdLock();
    const waits = countLockWaits();
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    try {
      const started = Date.now();
      let imageAnswered = false;
      const pending = image().then((response) => ((imageAnswered = true), response));
      await waitFor(async () => waits.count() > 0, 20_000, 1);
      const ticksAtLock = ticks;
      // While the image request waits for the lock, the catalog is answered: the wait is a
      // timer, not SQLite sleeping on the event loop.
      const models = await request(`${u.t.baseUrl}/models`);
      expect(models.status).toBe(200);
      expect(imageAnswered, 'GET /v1/models waited for the lock').toBe(false);
      const response = await pending;
      const waited = Date.now() - started;
      expect(outcome(response)).toBe('503 storage_unavailable');
      expect(response.text).toMatch(/locked by another process/);
      expect(waited).toBeGreaterThanOrEqual(4_500);
      // And this thread's timers kept firing through the whole wait (~500 ticks of 10 ms; none
      // while SQLite would sleep on it).
      expect(ticks - ticksAtLock).toBeGreaterThan(20);
    } finally {
      clearInterval(ticker);
      waits.restore();
      await lock.release();
    }
    await expectRecovered();
  }, 60_000);
});

/**
 * A partner video provider at whose first submission the data dir turns read-only, until the
 * test lifts it: it takes the job (or refuses it), and what follows cannot be written.
 */
class ReadOnlyAtFirstSubmit extends StubVideoProvider {
  override readonly submitTimeoutMs: number;
  private first = true;
  constructor(
    id: string,
    private readonly options: { submitTimeoutMs: number; refuse?: boolean; store?: () => typeof u.t.gateway.store.raw },
  ) {
    super(id, 'partner');
    this.submitTimeoutMs = options.submitTimeoutMs;
  }
  override async submitVideo(job: VideoJob): Promise<string> {
    if (this.first) {
      this.first = false;
      (this.options.store ?? raw)().pragma('query_only = 1');
    }
    if (this.options.refuse) throw new GatewayError('upstream_bad_request', 'The upstream provider rejected the request.');
    return super.submitVideo(job);
  }
}

/** Whether the gateway logged `message` since the `since`-th line. */
const loggedSince = (since: number, message: RegExp) => u.logs.slice(since).some((line) => message.test(line.message ?? ''));

/** A 4 s video task created on a model of `stub`'s own. */
async function createOn(stub: StubVideoProvider, model: string) {
  await addStubVideoModel(u.t.gateway, stub, model);
  return postJson(`${u.t.baseUrl}/videos`, { model, prompt: 'a kite', seconds: 4 }, key.token);
}

describe('storage that fails right after the provider took a new video task', () => {
  it('the provider took it but its upstream id cannot be written: the client gets its task (200), charged once when it completes', async () => {
    const stub = new ReadOnlyAtFirstSubmit('stub-took', { submitTimeoutMs: 300 });
    const since = u.logs.length;
    let response: RawResponse;
    try {
      response = await createOn(stub, 'video-took');
    } finally {
      raw().pragma('query_only = 0');
    }
    expect(outcome(response)).toBe('200');
    expect(loggedSince(since, /^could not record the upstream id of a new video task/)).toBe(true);
    const task = await waitTerminal((response.body as VideoTask).id);
    expect(task.status).toBe('completed');
    expect(await problemsOfKey()).toEqual([]);
    const charges = (await u.t.gateway.billing.ledgerFor(key.accountId)).filter((r) => r.kind === 'consume');
    expect(charges).toHaveLength(1);
  });

  it('the provider refused it and the task cannot be discarded: the refusal is answered, and the task ends failed with its hold released', async () => {
    const stub = new ReadOnlyAtFirstSubmit('stub-refused', { submitTimeoutMs: 300, refuse: true });
    const before = (await u.t.gateway.billing.view(key.accountId)).balance_usd;
    const since = u.logs.length;
    let response: RawResponse;
    try {
      response = await createOn(stub, 'video-refused');
    } finally {
      raw().pragma('query_only = 0');
    }
    expect(outcome(response)).toBe('400 upstream_bad_request');
    expect(loggedSince(since, /^could not discard a refused video task/)).toBe(true);
    await waitNoActiveTasks();
    expect(await problemsOfKey()).toEqual([]);
    expect((await u.t.gateway.billing.view(key.accountId)).balance_usd).toBe(before);
  });
});

describe('background batches that meet a read-only moment', () => {
  it('usage counters and the activity log are kept and written once storage is back, not dropped', async () => {
    // The activity entry is recorded as the answer goes out (usage counters before it).
    let recorded!: () => void;
    const activityRecorded = new Promise<void>((resolve) => (recorded = resolve));
    const record = u.t.gateway.activity.record.bind(u.t.gateway.activity);
    const spy = vi.spyOn(u.t.gateway.activity, 'record').mockImplementation((entry) => {
      record(entry);
      if (entry.key_id === key.id) recorded();
    });
    let response: RawResponse;
    try {
      response = await image();
      await activityRecorded;
    } finally {
      spy.mockRestore();
    }
    expect(outcome(response)).toBe('200');
    const charged = (await u.t.gateway.billing.ledgerFor(key.accountId)).filter((r) => r.kind === 'consume');
    expect(charged).toHaveLength(1);
    // The batches meet the read-only data dir: each write is tried (and fails) before it is lifted.
    raw().pragma('query_only = 1');
    try {
      await Promise.all([u.t.gateway.activity.flush(), u.t.gateway.access.usage.flush()]);
    } finally {
      raw().pragma('query_only = 0');
    }
    const usage = await waitFor(async () => {
      const rows = await u.t.gateway.access.usage.rows(key.id);
      return rows.length > 0 ? rows : null;
    }, 10_000);
    expect(usage).toMatchObject([{ requests: 1, spend_nano: charged[0]!.amount_nano }]);
    const logged = await waitFor(async () => {
      const entries = (await u.t.gateway.activity.recent(50)).filter((e) => e.key_id === key.id);
      return entries.length > 0 ? entries : null;
    }, 10_000);
    expect(logged).toMatchObject([{ endpoint: '/v1/images/generations', status: 200 }]);
  });
});

describe('a scheduler step that cannot be written', () => {
  it('backs off instead of resubmitting every tick, and the task completes once storage is back', async () => {
    // A gateway on a hand-set clock whose scheduler the test steps, 100 ms at a time.
    const { time, start } = handClock();
    const g = await start();
    try {
      const stub = new ReadOnlyAtFirstSubmit('stub-readonly', { submitTimeoutMs: 50, store: () => g.gateway.store.raw });
      await addStubVideoModel(g.gateway, stub, 'video-readonly');
      const owner = await g.key('balance', { balanceNano: 100 * USD });
      const step = async () => {
        time.now += 100;
        await g.gateway.scheduler.tick();
      };
      let response: RawResponse;
      try {
        response = await postJson(`${g.baseUrl}/videos`, { model: 'video-readonly', prompt: 'a kite', seconds: 4 }, owner.token);
        expect(outcome(response)).toBe('200');
        // The provider took the job, then the data dir is read-only for 2 s: the task has no
        // upstream id on record, so each scheduler step submits it again and fails to write.
        for (let i = 0; i < 20; i++) await step();
      } finally {
        g.gateway.store.raw.pragma('query_only = 0');
      }
      // Every 100 ms tick would be ~20 submissions; backing off from 100 ms keeps it to a handful.
      expect(stub.submitted.length).toBeGreaterThanOrEqual(2);
      expect(stub.submitted.length).toBeLessThanOrEqual(10);
      const id = (response.body as VideoTask).id;
      // Storage is back: the task completes within the backoff's cap (10 s) and a poll.
      for (let i = 0; i < 300 && (await g.gateway.videoTasks.get(id))!.status !== 'completed'; i++) await step();
      expect((await g.gateway.videoTasks.get(id))!.status).toBe('completed');
      expect(await ledgerProblems(g.gateway.store.db, { requireEnded: true })).toEqual([]);
    } finally {
      await g.close();
    }
  });
});

describe('files of the data dir that cannot be written or read', () => {
  it('an upload dir that is not a directory: image-to-video answers 503 storage_unavailable, never a 500', async () => {
    const uploads = join(u.t.dataDir, 'uploads');
    renameSync(uploads, `${uploads}.away`);
    writeFileSync(uploads, 'not a directory');
    try {
      const form = new FormData();
      form.append('model', 'local-video');
      form.append('prompt', 'slow zoom');
      form.append('seconds', '2');
      form.append('input_reference', new Blob([await makeImage(64, 64)], { type: 'image/png' }), 'ref.png');
      const response = await request(`${u.t.baseUrl}/videos`, { method: 'POST', headers: { authorization: `Bearer ${key.token}` }, body: form });
      expect(outcome(response)).toBe('503 storage_unavailable');
      expect(response.text).not.toMatch(INTERNALS);
    } finally {
      rmSync(uploads);
      renameSync(`${uploads}.away`, uploads);
    }
    expect(await problemsOfKey()).toEqual([]);
    expect(await u.t.gateway.billing.activeHolds(key.accountId)).toEqual([]);
  });

  it('a completed output that cannot be opened answers 503 storage_unavailable; a missing one 404', async () => {
    const created = await video();
    const task = await waitTerminal((created.body as VideoTask).id);
    expect(task.status).toBe('completed');
    const row = await u.t.gateway.store.db.selectFrom('video_tasks').select('output_path').where('id', '=', task.id).executeTakeFirstOrThrow();
    const output = row.output_path!;
    const content = (range?: string) => request(`${u.t.baseUrl}/videos/${task.id}/content`, { headers: { authorization: `Bearer ${key.token}`, ...(range ? { range } : {}) } });
    renameSync(output, `${output}.away`);
    mkdirSync(output);
    try {
      for (const range of [undefined, 'bytes=0-99']) {
        const response = await content(range);
        expect(outcome(response)).toBe('503 storage_unavailable');
        expect(response.text).not.toMatch(INTERNALS);
      }
    } finally {
      rmSync(output, { recursive: true });
    }
    expect(outcome(await content())).toBe('404 not_found');
    renameSync(`${output}.away`, output);
    expect(outcome(await content())).toBe('200');
  });

  it('a completed output cut short or replaced on disk answers 503 storage_unavailable, never a short or foreign MP4', async () => {
    const created = await video();
    const task = await waitTerminal((created.body as VideoTask).id);
    expect(task.status).toBe('completed');
    const row = await u.t.gateway.store.db.selectFrom('video_tasks').select(['output_path', 'output_bytes']).where('id', '=', task.id).executeTakeFirstOrThrow();
    const output = row.output_path!;
    const original = readFileSync(output);
    expect(row.output_bytes).toBe(original.length);
    const content = (init: { method?: string; range?: string } = {}) =>
      request(`${u.t.baseUrl}/videos/${task.id}/content`, { method: init.method ?? 'GET', headers: { authorization: `Bearer ${key.token}`, ...(init.range ? { range: init.range } : {}) } });
    try {
      // A disk that filled up mid-copy, a restore from a partial backup, another file put in its place.
      for (const damaged of [original.subarray(0, original.length >> 1), Buffer.alloc(0), Buffer.concat([original, Buffer.from('tail')])]) {
        writeFileSync(output, damaged);
        for (const init of [{}, { range: 'bytes=0-99' }]) {
          const response = await content(init);
          expect(outcome(response)).toBe('503 storage_unavailable');
          expect(errorOf(response).message).toMatch(/damaged/);
          expect(response.text).not.toMatch(INTERNALS);
        }
        expect((await content({ method: 'HEAD' })).status).toBe(503);
      }
    } finally {
      writeFileSync(output, original);
    }
    const whole = await content();
    expect(outcome(whole)).toBe('200');
    expect(Number(whole.headers.get('content-length'))).toBe(original.length);
  });
});

describe("the studio's gallery that cannot be written", () => {
  it('a studio image whose file cannot be saved is not charged, and leaves nothing behind', async () => {
    const studio = await createStudio(u.t.gateway, { version: 'test' });
    try {
      const owner = studio.context.owner.accountId;
      const charges = async () => (await u.t.gateway.billing.ledgerFor(owner)).filter((r) => r.kind === 'consume').length;
      const before = { charges: await charges(), balance: (await u.t.gateway.billing.view(owner)).balance_usd };
      const gallery = join(u.t.dataDir, 'gallery');
      rmSync(gallery, { recursive: true, force: true });
      writeFileSync(gallery, 'in the way of the gallery');
      try {
        const failed = await studio.dispatch('images.generate', { model: 'local-image', prompt: 'a paper boat', size: '256x256' }).then(() => null, (error: unknown) => error);
        expect(failed).toMatchObject({ code: 'storage_unavailable' });
      } finally {
        rmSync(gallery);
      }
      expect(await charges()).toBe(before.charges);
      expect((await u.t.gateway.billing.view(owner)).balance_usd).toBe(before.balance);
      expect(await u.t.gateway.billing.activeHolds(owner)).toEqual([]);
      const saved = (await studio.dispatch('images.generate', { model: 'local-image', prompt: 'a paper boat', size: '256x256' })) as { item: { media: string } };
      expect(readdirSync(gallery)).toEqual([saved.item.media.replace('gallery/', '')]);
      expect(await charges()).toBe(before.charges + 1);
    } finally {
      studio.dispose();
    }
  });
});

describe('the studio hearing of a task change while storage is away', () => {
  it('loses that one event, not the process: nothing is left unhandled', async () => {
    let heard: ((taskId: string) => void) | undefined;
    const listen = vi.spyOn(u.t.gateway.scheduler, 'onTaskChange').mockImplementation((listener) => {
      heard = listener;
      return () => undefined;
    });
    const studio = await createStudio(u.t.gateway, { version: 'test' });
    listen.mockRestore();
    const unhandled: unknown[] = [];
    const hear = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', hear);
    const read = vi.spyOn(u.t.gateway.videos, 'get').mockRejectedValue(new GatewayError('storage_unavailable', "The gateway's storage is unavailable."));
    try {
      heard!('video_gone_while_storage_is_away');
      await waitFor(async () => read.mock.calls.length > 0 || null);
      // Node reports a rejection nobody handled once the microtasks of that turn have run.
      for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      read.mockRestore();
      process.off('unhandledRejection', hear);
      studio.dispose();
    }
  });
});
