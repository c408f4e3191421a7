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
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { VideoTask } from '../../shared/api-types.js';
import { GatewayError } from '../../electron/core/errors.js';
import type { VideoJob } from '../../electron/core/providers/provider.js';
import { createStudio } from '../../electron/core/studio/studio.js';
import { USD } from '../helpers/gateway.js';
import { makeImage } from '../helpers/images.js';
import { errorOf, outcome, postJson, request, type RawResponse } from '../helpers/http.js';
import { addStubVideoModel, StubVideoProvider, waitFor } from '../helpers/stub-video-provider.js';
import { ledgerProblems, sleep, startReliabilityUpstreams, type ReliabilityUpstreams } from './support.js';

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

async function waitTerminal(id: string, timeoutMs = 20_000): Promise<VideoTask> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const task = await getTask(id);
    if (task.status !== 'queued' && task.status !== 'in_progress') return task;
    if (Date.now() > deadline) throw new Error(`task ${id} still ${task.status} after ${timeoutMs} ms`);
    await sleep(100);
  }
}

async function waitNoActiveTasks(timeoutMs = 20_000): Promise<void> {
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
    raw().pragma('query_only = 1');
    try {
      // Long enough for the render (~0.5-1 s) to end and the scheduler to fail its completion a few times.
      await sleep(2_500);
      const stuck = await u.t.gateway.videoTasks.get(id);
      expect(stuck!.status).not.toBe('completed');
    } finally {
      raw().pragma('query_only = 0');
    }
    const done = await waitTerminal(id);
    expect(done).toMatchObject({ status: 'completed', cost_usd: '0.10000000' });
    const row = (await u.t.gateway.videoTasks.get(id))!;
    const endings = await u.t.gateway.store.db.selectFrom('ledger').select('kind').where('hold_id', '=', row.hold_id!).where('kind', 'in', ['consume', 'release']).execute();
    expect(endings.map((e) => e.kind)).toEqual(['consume']);
    await expectRecovered();
  }

  it('an image request in flight when storage turns read-only does not leave its hold active once storage is back', async () => {
    // The upstream answers after 800 ms: the hold is reserved before the fault, settled after it.
    u.openai.inject('POST /v1/images/generations', { latencyMs: 800, times: 1 });
    const pending = postJson(`${u.t.baseUrl}/images/generations`, { model: 'up-image', prompt: 'slow one', size: '256x256' }, key.token);
    await sleep(300);
    const balanceBefore = await u.t.gateway.billing.view(key.accountId);
    expect(await u.t.gateway.billing.activeHolds(key.accountId)).toHaveLength(1);
    expect(balanceBefore.holds_usd).not.toBe('0.00000000');
    raw().pragma('query_only = 1');
    let response: RawResponse;
    try {
      response = await pending;
    } finally {
      raw().pragma('query_only = 0');
    }
    expect(outcome(response)).toBe('503 storage_unavailable');
    expect(response.text).not.toMatch(INTERNALS);
    // Storage is back and nothing is in flight: no hold may stay active (it would keep the money
    // unavailable until the next restart).
    await sleep(300);
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

  /** Holds the write lock from another process, as the CLI would. */
  async function holdLock(holdMs: number): Promise<{ released: Promise<void> }> {
    const child = spawn(
      process.execPath,
      [
        '-e',
        `const Database = require(process.argv[1]);
         const db = new Database(process.argv[2]);
         db.exec('BEGIN IMMEDIATE');
         db.exec("UPDATE meta SET key = key WHERE 0");
         process.stdout.write('locked\\n');
         setTimeout(() => { db.exec('COMMIT'); db.close(); process.stdout.write('released\\n'); }, Number(process.argv[3]));`,
        libsqlPath,
        u.t.gateway.store.path,
        String(holdMs),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
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
    await seen('locked');
    return { released: seen('released') };
  }

  it('a request meeting a lock released after ~500 ms waits for it (busy timeout) and succeeds', async () => {
    for (const send of [() => image(), () => video()]) {
      const lock = await holdLock(500);
      const started = Date.now();
      const response = await send();
      const waited = Date.now() - started;
      await lock.released;
      expect(outcome(response)).toBe('200');
      expect(waited).toBeGreaterThanOrEqual(300);
    }
    await expectRecovered();
  });

  it('a lock held past the wait: 503 after ~5 s, and the server answers other requests all the while', async () => {
    const lock = await holdLock(7_000);
    const started = Date.now();
    const pending = image();
    // While the image request waits for the lock, the catalog and task polls are answered:
    // the wait is a timer, not SQLite sleeping on the event loop.
    await sleep(1_000);
    const probeStart = Date.now();
    const models = await request(`${u.t.baseUrl}/models`);
    const probeMs = Date.now() - probeStart;
    expect(models.status).toBe(200);
    expect(probeMs, 'GET /v1/models waited for the lock').toBeLessThan(1_500);
    const response = await pending;
    const waited = Date.now() - started;
    expect(outcome(response)).toBe('503 storage_unavailable');
    expect(response.text).toMatch(/locked by another process/);
    expect(waited).toBeGreaterThanOrEqual(4_500);
    await lock.released;
    await expectRecovered();
  }, 30_000);
});

/**
 * A partner video provider at whose first submission the data dir turns read-only for a while:
 * it takes the job (or refuses it), and what follows cannot be written.
 */
class ReadOnlyAtFirstSubmit extends StubVideoProvider {
  override readonly submitTimeoutMs: number;
  private first = true;
  constructor(
    id: string,
    private readonly options: { readOnlyMs: number; submitTimeoutMs: number; refuse?: boolean },
  ) {
    super(id, 'partner');
    this.submitTimeoutMs = options.submitTimeoutMs;
  }
  override async submitVideo(job: VideoJob): Promise<string> {
    if (this.first) {
      this.first = false;
      raw().pragma('query_only = 1');
      setTimeout(() => raw().pragma('query_only = 0'), this.options.readOnlyMs);
    }
    if (this.options.refuse) throw new GatewayError('upstream_bad_request', 'The upstream provider rejected the request.');
    return super.submitVideo(job);
  }
}

/** A 4 s video task created on a model of `stub`'s own. */
async function createOn(stub: StubVideoProvider, model: string) {
  await addStubVideoModel(u.t.gateway, stub, model);
  return postJson(`${u.t.baseUrl}/videos`, { model, prompt: 'a kite', seconds: 4 }, key.token);
}

describe('storage that fails right after the provider took a new video task', () => {
  it('the provider took it but its upstream id cannot be written: the client gets its task (200), charged once when it completes', async () => {
    const stub = new ReadOnlyAtFirstSubmit('stub-took', { readOnlyMs: 150, submitTimeoutMs: 300 });
    const response = await createOn(stub, 'video-took');
    expect(outcome(response)).toBe('200');
    const task = await waitTerminal((response.body as VideoTask).id);
    expect(task.status).toBe('completed');
    expect(await problemsOfKey()).toEqual([]);
    const charges = (await u.t.gateway.billing.ledgerFor(key.accountId)).filter((r) => r.kind === 'consume');
    expect(charges).toHaveLength(1);
  });

  it('the provider refused it and the task cannot be discarded: the refusal is answered, and the task ends failed with its hold released', async () => {
    const stub = new ReadOnlyAtFirstSubmit('stub-refused', { readOnlyMs: 150, submitTimeoutMs: 300, refuse: true });
    const before = (await u.t.gateway.billing.view(key.accountId)).balance_usd;
    const response = await createOn(stub, 'video-refused');
    expect(outcome(response)).toBe('400 upstream_bad_request');
    await waitNoActiveTasks();
    expect(await problemsOfKey()).toEqual([]);
    expect((await u.t.gateway.billing.view(key.accountId)).balance_usd).toBe(before);
  });
});

describe('background batches that meet a read-only moment', () => {
  it('usage counters and the activity log are kept and written once storage is back, not dropped', async () => {
    const response = await image();
    expect(outcome(response)).toBe('200');
    const charged = (await u.t.gateway.billing.ledgerFor(key.accountId)).filter((r) => r.kind === 'consume');
    expect(charged).toHaveLength(1);
    // The batches are flushed 200 ms after the request: they meet the read-only data dir.
    raw().pragma('query_only = 1');
    await sleep(700);
    raw().pragma('query_only = 0');
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
    // The provider takes the job, then the data dir is read-only for 2 s: the task has no
    // upstream id on record, so each scheduler step submits it again and fails to write.
    const stub = new ReadOnlyAtFirstSubmit('stub-readonly', { readOnlyMs: 2_000, submitTimeoutMs: 50 });
    const response = await createOn(stub, 'video-readonly');
    expect(outcome(response)).toBe('200');
    await sleep(2_000);
    // Every 100 ms tick would be ~20 submissions; backing off from 100 ms keeps it to a handful.
    expect(stub.submitted.length).toBeGreaterThanOrEqual(2);
    expect(stub.submitted.length).toBeLessThanOrEqual(10);
    expect((await waitTerminal((response.body as VideoTask).id, 90_000)).status).toBe('completed');
    expect(await problemsOfKey()).toEqual([]);
  }, 120_000);
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
