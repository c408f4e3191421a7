// Nothing lost when an instance dies: 20 rounds of SIGKILL of the `mgw serve` instance holding
// video tasks, on alternate rounds mid-render (the upstream job running, the task in progress)
// and mid-poll (a poll of one of its tasks in flight at the upstream). A fresh instance joins at
// once, so three serve throughout. The others take the dead one's tasks over when their leases
// lapse; afterwards every task is terminal and completed, the upstream emulator counts exactly
// one submission per task, every hold ended exactly once and every ledger balances. A last case
// runs the default 20 s lease: the tasks move on within 30 s, also one whose creation was at the
// upstream when its instance died.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VideoTask } from '../../shared/api-types.js';
import { startOpenAIEmulator, type OpenAIEmulator } from '../emulators/index.js';
import type { Served } from '../helpers/cli.js';
import { postJson } from '../helpers/http.js';
import { ledgerProblems, sleep } from '../reliability/support.js';
import { serveTeamVideo, startTeam, teamKey, type Team } from './team-kit.js';

const ROUNDS = 20;
const TASKS_PER_ROUND = 2;
const LEASE_SECONDS = 2;
const PRICE_NANO = 400_000_000; // 4 s at $0.10

let team: Team;
let emulator: OpenAIEmulator;
let key: { id: string; token: string; accountId: string };

beforeAll(async () => {
  emulator = await startOpenAIEmulator({ videoDurationMs: 2_500 });
  process.env.TEAM_UPSTREAM_KEY = emulator.apiKey;
  team = await startTeam({ instances: 3, env: { TEAM_UPSTREAM_KEY: emulator.apiKey }, config: { team: { leaseSeconds: LEASE_SECONDS } } });
  await serveTeamVideo(team.admin, emulator);
  key = await teamKey(team, 'balance', 1_000);
}, 60_000);

afterAll(async () => {
  await team?.close();
  await emulator?.close();
});

async function until(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

const polls = (upstreamIds: Set<string>, since: number) =>
  emulator.requests.slice(since).some((r) => r.method === 'GET' && upstreamIds.has(r.path.split('?')[0]!.split('/').pop()!));

/** Kills the instance holding this round's tasks, mid-render or mid-poll; a new instance joins at once. */
async function round(n: number, taskIds: string[]): Promise<void> {
  const victim = team.instances[n % team.instances.length]!;
  const kind = n % 2 === 0 ? 'mid-render' : 'mid-poll';
  for (let i = 0; i < TASKS_PER_ROUND; i++) {
    const answer = await postJson(`${victim.baseUrl}/videos`, { model: 'team-video', prompt: `round ${n} task ${i}`, seconds: 4, size: '1280x720' }, key.token);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    taskIds.push((answer.body as VideoTask).id);
  }
  const mine = taskIds.slice(-TASKS_PER_ROUND);
  // Running upstream (recorded, in progress) and held by the victim.
  await until(`round ${n}: tasks in progress`, async () => {
    const rows = await team.db.selectFrom('video_tasks').select(['status', 'upstream_id']).where('id', 'in', mine).execute();
    return rows.every((row) => row.status === 'in_progress' && row.upstream_id !== null);
  }, 10_000);
  if (kind === 'mid-poll') {
    const rows = await team.db.selectFrom('video_tasks').select('upstream_id').where('id', 'in', mine).execute();
    const upstream = new Set(rows.map((row) => row.upstream_id!));
    // Polls answered slowly, so the kill lands while one is in flight.
    emulator.inject('GET /v1/videos/:id', { latencyMs: 300 });
    const since = emulator.requests.length;
    await until(`round ${n}: a poll in flight`, async () => polls(upstream, since), 10_000);
    victim.child.kill('SIGKILL');
    emulator.clearFaults();
  } else victim.child.kill('SIGKILL');
  team.instances.splice(team.instances.indexOf(victim), 1);
  await team.start();
}

describe('an instance killed while it holds video tasks', () => {
  it(`${ROUNDS} rounds of SIGKILL mid-render and mid-poll: every task ends completed, submitted once, charged once`, async () => {
    const taskIds: string[] = [];
    for (let n = 0; n < ROUNDS; n++) await round(n, taskIds);
    await until('every task terminal', async () => {
      const active = await team.db.selectFrom('video_tasks').select('id').where('status', 'in', ['queued', 'in_progress']).execute();
      return active.length === 0;
    }, 60_000);
    const rows = await team.db.selectFrom('video_tasks').select(['id', 'status', 'prompt', 'cost_nano', 'error_message']).where('id', 'in', taskIds).execute();
    expect(rows.filter((row) => row.status !== 'completed')).toEqual([]);
    expect(rows.map((row) => row.cost_nano)).toEqual(Array(taskIds.length).fill(PRICE_NANO));
    // Exactly one upstream job per task (the emulator keeps every one it was given).
    const submissions = new Map<string, number>();
    for (const job of emulator.videos.values()) submissions.set(job.prompt, (submissions.get(job.prompt) ?? 0) + 1);
    expect(rows.map((row) => submissions.get(row.prompt))).toEqual(Array(taskIds.length).fill(1));
    expect(await ledgerProblems(team.db, { requireEnded: true })).toEqual([]);
    const account = await team.db.selectFrom('accounts').selectAll().where('id', '=', key.accountId).executeTakeFirstOrThrow();
    expect(account.balance_nano).toBe(1_000 * 1_000_000_000 - taskIds.length * PRICE_NANO);
  }, 300_000);
});

describe('the default lease', () => {
  let slow: Team;
  afterAll(async () => slow?.close());

  it('a dead instance’s tasks are taken over within 30 s', async () => {
    slow = await startTeam({ instances: 2, env: { TEAM_UPSTREAM_KEY: emulator.apiKey } });
    await serveTeamVideo(slow.admin, emulator);
    const owner = await teamKey(slow, 'balance', 10);
    const victim: Served = slow.instances[0]!;
    const answer = await postJson(`${victim.baseUrl}/videos`, { model: 'team-video', prompt: 'default lease', seconds: 4, size: '1280x720' }, owner.token);
    expect(answer.status).toBe(200);
    const id = (answer.body as VideoTask).id;
    const leased = await slow.db.selectFrom('video_tasks').select('lease_owner').where('id', '=', id).executeTakeFirstOrThrow();
    victim.child.kill('SIGKILL');
    const killedAt = Date.now();
    await until('another instance takes the task', async () => {
      const row = await slow.db.selectFrom('video_tasks').select(['lease_owner', 'status']).where('id', '=', id).executeTakeFirstOrThrow();
      return row.lease_owner !== leased.lease_owner || row.status === 'completed';
    }, 35_000);
    expect(Date.now() - killedAt).toBeLessThan(30_000);
    await until('the task completes', async () => (await slow.db.selectFrom('video_tasks').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status === 'completed', 30_000);
  }, 90_000);

  it('a task whose creation was at the upstream when its instance died is submitted by another within 30 s, once', async () => {
    const owner = await teamKey(slow, 'balance', 10);
    const victim: Served = await slow.start();
    // The submission is held at the upstream, then dropped unanswered (no job made): the kill lands meanwhile.
    emulator.inject('POST /v1/videos', { latencyMs: 3_000, reset: true, times: 1 });
    const since = emulator.requests.length;
    const creation = postJson(`${victim.baseUrl}/videos`, { model: 'team-video', prompt: 'killed mid-creation', seconds: 4, size: '1280x720' }, owner.token).catch(() => null);
    await until('the submission at the upstream', async () => emulator.requests.slice(since).some((r) => r.method === 'POST' && r.path === '/v1/videos'), 10_000);
    const row = await slow.db.selectFrom('video_tasks').select(['id', 'lease_owner']).where('prompt', '=', 'killed mid-creation').executeTakeFirstOrThrow();
    victim.child.kill('SIGKILL');
    const killedAt = Date.now();
    await creation;
    slow.instances.splice(slow.instances.indexOf(victim), 1);
    // Its creation had planned minutes before anyone else might submit it: the lapsed lease wins.
    await until('another instance submits the task', async () => {
      const now = await slow.db.selectFrom('video_tasks').select(['lease_owner', 'upstream_id']).where('id', '=', row.id).executeTakeFirstOrThrow();
      return now.lease_owner !== row.lease_owner && now.upstream_id !== null;
    }, 35_000);
    expect(Date.now() - killedAt).toBeLessThan(30_000);
    await until('the task completes', async () => (await slow.db.selectFrom('video_tasks').select('status').where('id', '=', row.id).executeTakeFirstOrThrow()).status === 'completed', 30_000);
    expect([...emulator.videos.values()].filter((job) => job.prompt === 'killed mid-creation')).toHaveLength(1);
    expect(await ledgerProblems(slow.db, { requireEnded: true })).toEqual([]);
  }, 90_000);

  it('a cleanly stopped instance (SIGTERM) hands its tasks back at once, not after the lease', async () => {
    const leaving = await slow.start();
    const owner = await teamKey(slow, 'balance', 10);
    const answer = await postJson(`${leaving.baseUrl}/videos`, { model: 'team-video', prompt: 'clean stop', seconds: 4, size: '1280x720' }, owner.token);
    expect(answer.status).toBe(200);
    const id = (answer.body as VideoTask).id;
    const leased = await slow.db.selectFrom('video_tasks').select('lease_owner').where('id', '=', id).executeTakeFirstOrThrow();
    expect(await leaving.stop('SIGTERM')).toBe(0);
    const stoppedAt = Date.now();
    await until('another instance takes the task', async () => {
      const row = await slow.db.selectFrom('video_tasks').select(['lease_owner', 'status']).where('id', '=', id).executeTakeFirstOrThrow();
      return (row.lease_owner !== null && row.lease_owner !== leased.lease_owner) || row.status === 'completed';
    }, 10_000);
    // The default lease is 20 s: handed back, the task moves on at the next scan.
    expect(Date.now() - stoppedAt).toBeLessThan(5_000);
  }, 60_000);
});
