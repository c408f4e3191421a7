// Upstream faults under concurrency: 100 image requests and 100 video creations at once, on both
// emulated providers, while every upstream route serves a seeded mix of faults (500, 503, 429,
// 400, latency, timeouts, connection resets, malformed JSON, truncated bodies; each limited with
// `times`). Every answer is one of the documented ones (200, 400 upstream_bad_request, 429
// upstream_rate_limited, 502 upstream_invalid_response, 503 upstream_unavailable) in the standard
// error body, no upstream body ever reaches a client, and once every task has ended each hold
// ended exactly once, charges match what clients were told, and every account balances.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { VideoTask } from '../../shared/api-types.js';
import type { Fault } from '../emulators/index.js';
import { USD } from '../helpers/gateway.js';
import { errorOf, outcome, postJson, request, type RawResponse } from '../helpers/http.js';
import { falImageFaultCases, openaiImageFaultCases, type FaultCase } from '../helpers/upstream-fault-cases.js';
import { ledgerProblems, PRICE_PER_SECOND_NANO, prng, seedFor, sleep, startReliabilityUpstreams, type ReliabilityUpstreams } from './support.js';
import { startRemoteUpstreams, type RemoteUpstreamSetup } from '../helpers/remote-upstreams.js';

const SEED = seedFor(9_001);
const SECRET = 'sk-upstream-SECRET-77ab';
const ALLOWED = new Set(['200', '400 upstream_bad_request', '429 upstream_rate_limited', '502 upstream_invalid_response', '503 upstream_unavailable']);
const KEYS = 5;

let u: ReliabilityUpstreams;
const keys: { id: string; token: string; accountId: string }[] = [];

beforeAll(async () => {
  u = await startReliabilityUpstreams({
    scheduler: { intervalMs: 100, concurrency: 16 },
    limits: { requests: { balance: { perSecond: 10_000, perMinute: 100_000, perHour: 1_000_000 } } },
    upstreamTimeouts: { connectMs: 1_000, totalMs: 1_500 },
  });
  for (let i = 0; i < KEYS; i++) keys.push(await u.t.key('balance', { balanceNano: 100 * USD }));
});
afterAll(() => u?.close());

const secretBody = (what: string) => JSON.stringify({ error: { message: `upstream trouble (${what}); internal token ${SECRET}`, type: 'server_error', code: null }, detail: SECRET });

/** The fault kinds, each planting the secret where a body is sent. */
function faultOf(kind: string, rng: ReturnType<typeof prng>, times: number): Fault {
  switch (kind) {
    case '500':
      return { status: 500, body: secretBody('500'), times };
    case '503':
      return { status: 503, body: secretBody('503'), times };
    case '429':
      return { status: 429, body: secretBody('429'), headers: { 'retry-after': '1' }, times };
    case '400':
      return { status: 400, body: secretBody('400'), times };
    case 'latency':
      return { latencyMs: rng.int(50, 600), times };
    case 'timeout':
      return { latencyMs: 2_000, times };
    case 'reset':
      return { reset: true, times };
    case 'malformed':
      return { body: `{"data": [ {"b64_json": "${SECRET}`, times };
    case 'truncate':
      return { truncate: true, times };
    default:
      throw new Error(kind);
  }
}

const KINDS = ['500', '503', '429', '400', 'latency', 'latency', 'timeout', 'reset', 'malformed', 'truncate'];

/** A seeded run of faults on one route, with clean stretches between them. */
function injectMix(inject: (fault: Fault) => void, rng: ReturnType<typeof prng>, entries: number): string[] {
  const injected: string[] = [];
  for (let i = 0; i < entries; i++) {
    const kind = rng.pick(KINDS);
    const times = rng.int(1, 4);
    inject(faultOf(kind, rng, times));
    injected.push(`${kind}x${times}`);
    // A clean stretch: a latency-free pass-through fault (headers only) lets normal answers through.
    if (rng.chance(0.5)) inject({ headers: { 'x-emulator-clean': '1' }, times: rng.int(1, 3) });
  }
  return injected;
}


interface Sent {
  kind: 'image' | 'video';
  model: string;
  key: number;
  response?: RawResponse;
  error?: string;
}

describe(`upstream faults under concurrency (seed ${SEED})`, () => {
  const sent: Sent[] = [];
  let injected: Record<string, string[]> = {};

  it('100 image requests and 100 video creations at once get only documented answers, never an upstream body', { timeout: 60_000 }, async () => {
    const rng = prng(SEED);
    injected = {
      'openai POST images': injectMix((f) => u.openai.inject('POST /v1/images/generations', f), rng, 14),
      'openai POST videos': injectMix((f) => u.openai.inject('POST /v1/videos', f), rng, 10),
      'openai GET video': injectMix((f) => u.openai.inject('GET /v1/videos/:id', f), rng, 12),
      'openai GET content': injectMix((f) => u.openai.inject('GET /v1/videos/:id/content', f), rng, 6),
      'fal POST submit': injectMix((f) => u.fal.inject('POST submit', f), rng, 18),
      'fal GET status': injectMix((f) => u.fal.inject('GET status', f), rng, 14),
      'fal GET result': injectMix((f) => u.fal.inject('GET result', f), rng, 8),
      'fal GET file': injectMix((f) => u.fal.inject('GET file', f), rng, 6),
    };
    for (let i = 0; i < 100; i++) {
      sent.push({ kind: 'image', model: i % 2 === 0 ? 'up-image' : 'fal-image', key: i % KEYS });
      sent.push({ kind: 'video', model: i % 2 === 0 ? 'up-video' : 'fal-video', key: (i + 2) % KEYS });
    }
    await Promise.all(
      sent.map(async (s, i) => {
        const token = keys[s.key]!.token;
        const body =
          s.kind === 'image'
            ? { model: s.model, prompt: `concurrent image ${i}`, size: s.model === 'up-image' ? '1024x1024' : '256x256' }
            : s.model === 'up-video'
              ? { model: s.model, prompt: `concurrent video ${i}`, seconds: 4, size: '1280x720' }
              : { model: s.model, prompt: `concurrent video ${i}`, seconds: 5, size: '720p' };
        try {
          s.response = await postJson(`${u.t.baseUrl}/${s.kind === 'image' ? 'images/generations' : 'videos'}`, body, token);
        } catch (error) {
          s.error = String(error);
        }
      }),
    );

    const unexpected = sent.filter((s) => !s.response || !ALLOWED.has(outcome(s.response))).map((s) => `${s.kind} ${s.model}: ${s.error ?? outcome(s.response!)}`);
    expect(unexpected, `faults injected: ${JSON.stringify(injected)}`).toEqual([]);
    const leaks = sent.filter((s) => s.response && (s.response.text.includes(SECRET) || s.response.text.includes('upstream trouble')));
    expect(leaks.map((s) => s.response!.text.slice(0, 200))).toEqual([]);
    // An upstream 429 keeps its Retry-After (every injected 429 carries one).
    const limited = sent.filter((s) => s.response?.status === 429);
    expect(limited.filter((s) => !s.response!.headers.get('retry-after')).length).toBe(0);
    for (const s of sent.filter((x) => x.response?.status === 200)) {
      if (s.kind === 'image') expect(Object.keys(s.response!.body as object).sort()).toEqual(['data', 'usage']);
      else expect((s.response!.body as VideoTask).id).toMatch(/^video_/);
    }
    // The mix really was a mix: some of everything happened.
    const seen = new Set(sent.map((s) => outcome(s.response!)));
    expect(seen.has('200')).toBe(true);
    expect(seen.size).toBeGreaterThanOrEqual(4);
    console.log(`[reliability/upstream] outcomes: ${JSON.stringify(Object.fromEntries([...seen].map((o) => [o, sent.filter((s) => outcome(s.response!) === o).length])))}`);
  });

  it('every accepted video task ends (completed or failed) with an error in the gateway words only', { timeout: 60_000 }, async () => {
    const accepted = sent.filter((s) => s.kind === 'video' && s.response?.status === 200);
    expect(accepted.length).toBeGreaterThan(0);
    const deadline = Date.now() + 45_000;
    let tasks: VideoTask[] = [];
    while (Date.now() < deadline) {
      tasks = await Promise.all(
        accepted.map(async (s) => (await request(`${u.t.baseUrl}/videos/${(s.response!.body as VideoTask).id}`, { headers: { authorization: `Bearer ${keys[s.key]!.token}` } })).body as VideoTask),
      );
      if (tasks.every((t) => t.status !== 'queued' && t.status !== 'in_progress')) break;
      await sleep(250);
    }
    expect(tasks.filter((t) => t.status === 'queued' || t.status === 'in_progress').map((t) => `${t.id} ${t.model} ${t.status}`)).toEqual([]);
    expect(tasks.filter((t) => !['completed', 'failed'].includes(t.status)).map((t) => `${t.id}: ${t.status}`)).toEqual([]);
    expect(tasks.filter((t) => JSON.stringify(t).includes(SECRET)).map((t) => t.id)).toEqual([]);
    for (const t of tasks.filter((x) => x.status === 'failed')) expect(t.error?.code).toBe('generation_failed');
    // Content: a file for the OpenAI-compatible provider, a redirect for the partner-backed one.
    for (const t of tasks.filter((x) => x.status === 'completed').slice(0, 20)) {
      const owner = accepted.find((s) => (s.response!.body as VideoTask).id === t.id)!;
      const content = await fetch(`${u.t.baseUrl}/videos/${t.id}/content`, { headers: { authorization: `Bearer ${keys[owner.key]!.token}` }, redirect: 'manual' });
      expect(content.status).toBe(t.model === 'fal-video' ? 302 : 200);
      await content.arrayBuffer();
    }
  });

  it('after the dust settles: every hold ended exactly once, charges match the answers, every account balances', async () => {
    const db = u.t.gateway.store.db;
    expect(await ledgerProblems(db, { requireEnded: true })).toEqual([]);
    const holds = await db.selectFrom('holds').selectAll().execute();
    const tasks = new Map((await db.selectFrom('video_tasks').selectAll().execute()).map((t) => [t.id, t]));

    // Videos: one task per accepted creation; completed <-> consumed at the price, else released;
    // a refused creation leaves no task and charges nothing.
    const acceptedIds = sent.filter((s) => s.kind === 'video' && s.response?.status === 200).map((s) => (s.response!.body as VideoTask).id);
    expect(acceptedIds.filter((id) => !tasks.has(id))).toEqual([]);
    expect(tasks.size).toBe(acceptedIds.length);
    const wrong: string[] = [];
    for (const hold of holds.filter((h) => h.purpose === 'video')) {
      const task = tasks.get(hold.ref ?? '');
      if (!task) {
        if (hold.status !== 'released') wrong.push(`hold ${hold.id} of a refused creation (no task ${hold.ref}) is ${hold.status}, charged ${hold.charged_nano}`);
        continue;
      }
      const price = PRICE_PER_SECOND_NANO[task.model]! * task.seconds;
      if (task.status === 'completed' && (hold.status !== 'consumed' || hold.charged_nano !== price || task.cost_nano !== price)) wrong.push(`${task.id} completed, hold ${hold.status} charged ${hold.charged_nano}`);
      if (task.status !== 'completed' && hold.status !== 'released') wrong.push(`${task.id} ${task.status}, hold ${hold.status}`);
    }
    expect(wrong).toEqual([]);

    // Images: a 200 was charged exactly its cost_usd (one ledger row each: image holds live in
    // memory and are never stored); every other answer charged nothing and left no hold.
    const images = sent.filter((s) => s.kind === 'image');
    const answered = images.filter((s) => s.response?.status === 200);
    const told = answered.reduce((sum, s) => sum + Math.round(Number((s.response!.body as { usage: { cost_usd: string } }).usage.cost_usd) * 1e9), 0);
    expect(holds.filter((h) => h.purpose === 'image')).toEqual([]);
    const imageCharges = await db.selectFrom('ledger').select('amount_nano').where('kind', '=', 'consume').where('hold_id', 'is', null).execute();
    expect(imageCharges).toHaveLength(answered.length);
    expect(imageCharges.reduce((sum, r) => sum + r.amount_nano, 0)).toBe(told);
  });
});

describe('a slow creation racing the scheduler', () => {
  it('a creation the provider refuses after a slow answer leaves no task and charges nothing', { timeout: 20_000 }, async () => {
    u.openai.clearFaults();
    u.fal.clearFaults();
    const key = await u.t.key('balance', { balanceNano: 10 * USD });
    // The creation's upstream call answers 500 after 800 ms; anything else goes through.
    u.openai.inject('POST /v1/videos', { latencyMs: 800, status: 500, body: secretBody('slow 500'), times: 1 });
    const response = await postJson(`${u.t.baseUrl}/videos`, { model: 'up-video', prompt: 'slow refusal', seconds: 4, size: '1280x720' }, key.token);
    expect(outcome(response)).toBe('503 upstream_unavailable');
    // Nothing happens later either: a scan of the scheduler's that started after the answer has
    // ended, and so has every step it had in hand (a submission it started meanwhile included).
    await u.t.gateway.scheduler.settled();
    const db = u.t.gateway.store.db;
    const tasks = await db.selectFrom('video_tasks').select(['id', 'status']).where('account_id', '=', key.accountId).execute();
    const ledger = await db.selectFrom('ledger').select(['kind', 'amount_nano']).where('account_id', '=', key.accountId).orderBy('id').execute();
    expect({
      tasks,
      ledger: ledger.map((r) => r.kind),
      // By prompt: a creation the first test gave up on (a 2 s 'timeout' fault) may still land upstream now.
      upstreamJobsCreated: [...u.openai.videos.values()].filter((v) => v.prompt === 'slow refusal').length,
      balance: (await u.t.gateway.billing.view(key.accountId)).balance_usd,
    }).toEqual({ tasks: [], ledger: ['top_up', 'reserve', 'release'], upstreamJobsCreated: 0, balance: '10.00000000' });
  });
});

/**
 * The same fault on every one of N requests sent at once: each must get exactly the answer the
 * providers issue maps that fault to (the mix above only checks answers are among the documented
 * ones, so a fault answered with another fault's mapping would pass it). Faults hold until
 * cleared, as in the one-at-a-time tests (test/integration/providers-faults.test.ts).
 */
describe('each upstream fault under concurrency gets exactly its mapped answer', () => {
  const N = 12;
  const openaiVideoCases: FaultCase[] = [
    ['400', { status: 400, body: secretBody('400') }, 400, 'upstream_bad_request'],
    ['422', { status: 422, body: secretBody('422') }, 400, 'upstream_bad_request'],
    ['429', { status: 429, body: secretBody('429'), headers: { 'retry-after': '3' } }, 429, 'upstream_rate_limited'],
    ['401', { status: 401, body: secretBody('401') }, 503, 'upstream_unavailable'],
    ['500', { status: 500, body: secretBody('500') }, 503, 'upstream_unavailable'],
    ['connection reset', { reset: true }, 503, 'upstream_unavailable'],
    ['timeout', { latencyMs: 2_000 }, 503, 'upstream_unavailable'],
    ['truncated body', { truncate: true }, 503, 'upstream_unavailable'],
    ['malformed JSON', { body: `{"id": "${SECRET}` }, 502, 'upstream_invalid_response'],
    ['no id', { body: JSON.stringify({ object: 'video', status: 'queued', note: SECRET }) }, 502, 'upstream_invalid_response'],
  ];
  const falVideoCases: FaultCase[] = [
    ['422', { status: 422, body: secretBody('422') }, 400, 'upstream_bad_request'],
    ['429', { status: 429, body: secretBody('429'), headers: { 'retry-after': '3' } }, 429, 'upstream_rate_limited'],
    ['503', { status: 503, body: secretBody('503') }, 503, 'upstream_unavailable'],
    ['connection reset', { reset: true }, 503, 'upstream_unavailable'],
    ['malformed JSON', { body: `{"request_id": "${SECRET}` }, 502, 'upstream_invalid_response'],
  ];

  /** Where a case's requests go, and the emulator route its fault is put on. */
  interface Target {
    path: 'images/generations' | 'videos';
    body: Record<string, unknown>;
    emulator: 'openai' | 'fal';
    route: string;
  }
  // Sizes the upstream model renders (gpt-image-1: 1024x1024; fal's flux/dev takes any {width, height}).
  const image = (model: string) => ({ path: 'images/generations' as const, body: { model, size: model === 'up-image' ? '1024x1024' : '256x256' } });
  const cases: [string, Target, Fault, number, string][] = [
    ...openaiImageFaultCases(SECRET).map(([name, fault, status, code]): [string, Target, Fault, number, string] => [`openai image ${name}`, { ...image('up-image'), emulator: 'openai', route: 'POST /v1/images/generations' }, fault, status, code]),
    ...falImageFaultCases(SECRET).map(([name, route, fault, status, code]): [string, Target, Fault, number, string] => [`fal image ${name}`, { ...image('fal-image'), emulator: 'fal', route }, fault, status, code]),
    ...openaiVideoCases.map(([name, fault, status, code]): [string, Target, Fault, number, string] => [
      `openai video creation ${name}`,
      { path: 'videos', body: { model: 'up-video', seconds: 4, size: '1280x720' }, emulator: 'openai', route: 'POST /v1/videos' },
      fault,
      status,
      code,
    ]),
    ...falVideoCases.map(([name, fault, status, code]): [string, Target, Fault, number, string] => [
      `fal video creation ${name}`,
      { path: 'videos', body: { model: 'fal-video', seconds: 5, size: '720p' }, emulator: 'fal', route: 'POST submit' },
      fault,
      status,
      code,
    ]),
  ];

  // Timeouts run against emulators in another process (below): the gateway's deadline is then
  // measured on its own event loop, not one it shares with the upstream.
  const isTimeout = ([name]: [string, ...unknown[]]) => name.endsWith(' timeout');

  describe('timeouts, against emulators in another process', () => {
    let r: RemoteUpstreamSetup;
    beforeAll(async () => {
      r = await startRemoteUpstreams({
        scheduler: { intervalMs: 100, concurrency: 16 },
        limits: { requests: { balance: { perSecond: 10_000, perMinute: 100_000, perHour: 1_000_000 } } },
        upstreamTimeouts: { connectMs: 1_000, totalMs: 1_500 },
      });
    });
    afterEach(async () => {
      await r.openai.clearFaults();
      await r.fal.clearFaults();
    });
    afterAll(() => r?.close());

    it.each(cases.filter(isTimeout))(`%s: ${N} at once, each gets the mapped answer within the deadline, nothing charged, no task left`, { timeout: 30_000 }, async (name, target, fault, status, code) => {
      const emulator = r[target.emulator];
      const hits = async () => (await emulator.requests()).filter((q) => q.route === target.route).length;
      const key = await r.t.key('balance', { balanceNano: 10 * USD });
      const before = await r.t.gateway.billing.view(key.accountId);
      const hitsBefore = await hits();
      await emulator.inject(target.route, fault);
      const started = Date.now();
      const responses = await Promise.all(Array.from({ length: N }, (_, i) => postJson(`${r.t.baseUrl}/${target.path}`, { ...target.body, prompt: `${name} ${i}` }, key.token)));
      expect(responses.map(outcome)).toEqual(Array(N).fill(`${status} ${code}`));
      // The gateway's 1.5 s deadline ended them all (the upstream would have answered 200 at 2 s).
      expect(Date.now() - started).toBeLessThan(2_500);
      expect((await hits()) - hitsBefore).toBeGreaterThanOrEqual(N);
      expect(await r.t.gateway.billing.activeHolds(key.accountId)).toEqual([]);
      expect(await r.t.gateway.billing.view(key.accountId)).toEqual(before);
      expect(await r.t.gateway.store.db.selectFrom('video_tasks').select('id').where('account_id', '=', key.accountId).execute()).toEqual([]);
    });
  });

  beforeAll(() => {
    u.openai.clearFaults();
    u.fal.clearFaults();
  });
  afterEach(() => {
    u.openai.clearFaults();
    u.fal.clearFaults();
  });

  it.each(cases.filter((c) => !isTimeout(c)))(`%s: ${N} at once, each gets the mapped answer, nothing charged, no task left`, { timeout: 30_000 }, async (name, target, fault, status, code) => {
    const emulator = u[target.emulator];
    const hits = () => emulator.requests.filter((r) => r.route === target.route).length;
    const key = await u.t.key('balance', { balanceNano: 10 * USD });
    const before = await u.t.gateway.billing.view(key.accountId);
    const hitsBefore = hits();
    emulator.inject(target.route, fault);
    const responses = await Promise.all(Array.from({ length: N }, (_, i) => postJson(`${u.t.baseUrl}/${target.path}`, { ...target.body, prompt: `${name} ${i}` }, key.token)));
    expect(responses.map(outcome)).toEqual(Array(N).fill(`${status} ${code}`));
    // Every one of them met the fault upstream: the answers are the fault's, not a shortcut's.
    expect(hits() - hitsBefore).toBeGreaterThanOrEqual(N);
    for (const response of responses) {
      expect(response.text).not.toContain(SECRET);
      expect(response.text).not.toMatch(/upstream trouble|upstream says no/);
      if (code === 'upstream_invalid_response') expect(errorOf(response)).toMatchObject({ type: code, param: null });
      if (status === 429) expect(response.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    }
    expect(await u.t.gateway.billing.activeHolds(key.accountId)).toEqual([]);
    expect(await u.t.gateway.billing.view(key.accountId)).toEqual(before);
    expect(await u.t.gateway.store.db.selectFrom('video_tasks').select('id').where('account_id', '=', key.accountId).execute()).toEqual([]);
  });
});
