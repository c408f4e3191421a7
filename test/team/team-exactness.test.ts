// Three `mgw serve --database` instances on one PostgreSQL, through real HTTP: what must be exact
// across instances (issue 27). Holds against one balance, one Idempotency-Key sent to every
// instance at once, request windows, daily tokens, and changes made elsewhere showing on every
// instance within a second; the studio answers on any instance with the one owner token.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VideoTask } from '../../shared/api-types.js';
import { startOpenAIEmulator, type OpenAIEmulator } from '../emulators/index.js';
import { mgwAsync } from '../helpers/cli.js';
import { tempDir, USD } from '../helpers/gateway.js';
import { postJson, request } from '../helpers/http.js';
import { putEmulatedVideoModel, serveTeamVideo, startTeam, teamKey, type Team } from './team-kit.js';

const PER_MINUTE = 10;
let team: Team;
let emulator: OpenAIEmulator;
/** Tokens one local-image generation of PROMPT at 256x256 counts. */
let imageTokens = 0;
const PROMPT = 'a lighthouse at dusk';

const urls = () => team.instances.map((instance) => instance.baseUrl);

beforeAll(async () => {
  emulator = await startOpenAIEmulator({ stuckVideos: true });
  process.env.TEAM_UPSTREAM_KEY = emulator.apiKey;
  // The admin gateway measures one image's tokens, so that the quota below covers exactly three.
  const probe = await startTeam({ instances: 0 });
  const key = await teamKey(probe, 'free');
  const principal = { keyId: key.id, accountId: key.accountId, access: 'free' as const };
  await probe.admin.images.generate(principal, { model: 'local-image', prompt: PROMPT, size: '256x256' });
  await probe.admin.access.usage.flush();
  imageTokens = (await probe.admin.access.usage.rows(key.id)).reduce((sum, row) => sum + row.input_tokens + row.output_tokens, 0);
  await probe.close();
  expect(imageTokens).toBeGreaterThan(0);

  team = await startTeam({
    instances: 3,
    env: { TEAM_UPSTREAM_KEY: emulator.apiKey },
    config: {
      limits: {
        requests: { pro: { perSecond: 1000, perMinute: PER_MINUTE, perHour: 10_000 }, free: { perSecond: 1000, perMinute: 10_000, perHour: 100_000 } },
        dailyTokens: { free: Math.floor(imageTokens * 3.5) },
      },
      team: { leaseSeconds: 2 },
    },
  });
  await serveTeamVideo(team.admin, emulator);
}, 60_000);

afterAll(async () => {
  await team?.close();
  await emulator?.close();
});

const createVideo = (url: string, token: string, prompt: string, headers: Record<string, string> = {}) =>
  postJson(`${url}/videos`, { model: 'team-video', prompt, seconds: 4, size: '1280x720' }, token, headers);

describe('holds and balances across instances', () => {
  it('concurrent creations on three instances against a balance covering 5: exactly 5 succeed, the rest 402, never negative', async () => {
    const key = await teamKey(team, 'balance', 2); // $0.40 a task: five
    const submittedBefore = emulator.videos.size;
    const answers = await Promise.all(Array.from({ length: 15 }, (_, i) => createVideo(urls()[i % 3]!, key.token, `race ${i}`)));
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 402)).toHaveLength(10);
    const account = await team.db.selectFrom('accounts').selectAll().where('id', '=', key.accountId).executeTakeFirstOrThrow();
    expect(account.balance_nano).toBe(2 * USD);
    expect(account.held_nano).toBe(2 * USD);
    const holds = await team.db.selectFrom('holds').select('amount_nano').where('account_id', '=', key.accountId).where('status', '=', 'active').execute();
    expect(holds.map((h) => h.amount_nano)).toEqual(Array(5).fill(0.4 * USD));
    expect(emulator.videos.size - submittedBefore).toBe(5);
  });

  it('one Idempotency-Key sent to every instance at once: one task, one hold, one submission', async () => {
    const key = await teamKey(team, 'balance', 10);
    const submittedBefore = emulator.videos.size;
    const answers = await Promise.all(Array.from({ length: 9 }, (_, i) => createVideo(urls()[i % 3]!, key.token, 'the same clip', { 'idempotency-key': 'one-task-please' })));
    expect(answers.map((a) => a.status)).toEqual(Array(9).fill(200));
    expect(new Set(answers.map((a) => (a.body as VideoTask).id)).size).toBe(1);
    const tasks = await team.db.selectFrom('video_tasks').select('id').where('account_id', '=', key.accountId).execute();
    expect(tasks).toHaveLength(1);
    const holds = await team.db.selectFrom('holds').select('id').where('account_id', '=', key.accountId).execute();
    expect(holds).toHaveLength(1);
    expect(emulator.videos.size - submittedBefore).toBe(1);
  });
});

describe('request windows and daily tokens across instances', () => {
  it(`a key allowed ${PER_MINUTE} requests a minute gets exactly ${PER_MINUTE} across three instances`, async () => {
    const key = await teamKey(team, 'pro', 0, 100);
    // All inside one minute window: start with at least 20 s of it left.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 40_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 50));
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => createVideo(urls()[i % 3]!, key.token, `window ${i}`)));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(PER_MINUTE);
    expect(statuses.filter((s) => s === 429)).toHaveLength(30 - PER_MINUTE);
    const refused = answers.find((a) => a.status === 429)!;
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('x-ratelimit-limit-requests')).toBe(String(PER_MINUTE));
  }, 90_000);

  it('a daily token quota covering three images gives exactly three across instances', async () => {
    const key = await teamKey(team, 'free');
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => postJson(`${urls()[i % 3]}/images/generations`, { model: 'local-image', prompt: PROMPT, size: '256x256' }, key.token)),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.sort(), JSON.stringify(answers.filter((a) => a.status !== 200 && a.status !== 429).map((a) => a.body))).toEqual([200, 200, 200, 429, 429, 429, 429, 429]);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
    const row = await team.db.selectFrom('daily_tokens').selectAll().where('principal', '=', key.id).executeTakeFirstOrThrow();
    expect(row.held).toBe(0);
    expect(row.used).toBe(3 * imageTokens);
  }, 60_000);
});

/** Polls `check` on every instance until it holds; returns the slowest instance's time. */
async function everywhereWithin(check: (url: string) => Promise<boolean>): Promise<number> {
  const started = performance.now();
  const times = await Promise.all(
    urls().map(async (url) => {
      while (!(await check(url))) {
        if (performance.now() - started > 5_000) throw new Error(`${url} did not see the change within 5 s`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return performance.now() - started;
    }),
  );
  return Math.max(...times);
}

describe('changes made elsewhere apply on every instance within a second', () => {
  it('a model price changed through another gateway (the CLI, an instance) shows in GET /v1/models everywhere', async () => {
    const price = (url: string) => request(`${url}/models/team-video`).then((r) => (r.body as { pricing: { price: number } }).pricing.price);
    expect(await Promise.all(urls().map(price))).toEqual([0.1, 0.1, 0.1]);
    await team.admin.catalog.patch('team-video', { pricing: { price: 0.25 } });
    expect(await everywhereWithin(async (url) => (await price(url)) === 0.25)).toBeLessThan(1_000);
  });

  it('a revoked key is refused by every instance; a new one is accepted by every instance', async () => {
    const key = await teamKey(team, 'balance', 10);
    const balance = (url: string, token: string) => request(`${url}/models`, { headers: { authorization: `Bearer ${token}` } });
    // Each instance verifies (and remembers) the token first.
    for (const url of urls()) expect((await createVideo(url, key.token, 'before revoke')).status).toBe(200);
    await team.admin.keys.revoke(key.id);
    expect(await everywhereWithin(async (url) => (await createVideo(url, key.token, 'after revoke')).status === 401)).toBeLessThan(1_000);
    const next = await teamKey(team, 'balance', 1);
    for (const url of urls()) expect((await balance(url, next.token)).status).toBe(200);
  });

  it('a provider added elsewhere serves on every instance', async () => {
    const second = await startOpenAIEmulator({ stuckVideos: true });
    try {
      process.env.TEAM_SECOND_KEY = second.apiKey;
      // Stored sealed with MGW_SECRET_KEY, which every instance shares.
      await team.admin.providerConfigs.add({ id: 'second', kind: 'openai', baseUrl: second.baseUrl, apiKey: second.apiKey });
      await putEmulatedVideoModel(team.admin, 'second-video', 'second', 0.1);
      const key = await teamKey(team, 'balance', 10);
      for (const url of urls()) {
        const answer = await postJson(`${url}/videos`, { model: 'second-video', prompt: 'elsewhere', seconds: 4, size: '1280x720' }, key.token);
        expect(answer.status).toBe(200);
      }
      expect(second.videos.size).toBe(3);
    } finally {
      await second.close();
    }
  });
});

describe('a change by the CLI', () => {
  it('mgw models remove --database: the model is gone from every instance within a second', async () => {
    for (const url of urls()) expect((await request(`${url}/models/second-video`)).status).toBe(200);
    const removed = await mgwAsync(['models', 'remove', 'second-video', '--database', team.url, '--data-dir', tempDir()]);
    expect(removed.status, removed.stderr).toBe(0);
    expect(await everywhereWithin(async (url) => (await request(`${url}/models/second-video`)).status === 404)).toBeLessThan(1_000);
  });
});

it('the studio answers on every instance with the one owner token kept in the database, and one owner key', async () => {
  // Three instances started at once made one owner between them.
  expect(await team.db.selectFrom('api_keys').select('id').where('label', '=', 'studio (owner)').execute()).toHaveLength(1);
  const row = await team.db.selectFrom('meta').select('value').where('key', '=', 'studio_owner_token').executeTakeFirstOrThrow();
  for (const url of urls()) {
    const studio = url.replace(/\/v1$/, '/studio/api/catalog.list');
    const answer = await request(studio, { method: 'POST', headers: { authorization: `Bearer ${row.value}`, 'content-type': 'application/json' }, body: '{}' });
    expect(answer.status).toBe(200);
  }
});
