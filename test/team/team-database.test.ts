// The database itself: what `mgw` says when it cannot use it, instances of different schema
// versions, and a server that goes away under a serving instance and comes back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import type { VideoTask } from '../../shared/api-types.js';
import { startOpenAIEmulator, type OpenAIEmulator } from '../emulators/index.js';
import { mgwAsync, serve } from '../helpers/cli.js';
import { tempDir } from '../helpers/gateway.js';
import { errorOf, postJson, request } from '../helpers/http.js';
import { startPostgres, sharedPostgres, type PgServer } from '../helpers/postgres.js';
import { ledgerProblems, sleep } from '../reliability/support.js';
import { serveTeamVideo, startTeam, teamKey, type Team } from './team-kit.js';

const oneLine = (text: string) => text.trim().split('\n');

describe('mgw refuses a database it cannot use, in one line', () => {
  let admin: string;
  beforeAll(async () => {
    admin = await (await sharedPostgres()).createDatabase('cli');
  });

  it('a malformed URL is a usage error (exit 2), from the flag or MGW_DATABASE_URL', async () => {
    for (const url of ['not a url', 'mysql://u:p@localhost/db', 'postgres://localhost']) {
      const result = await mgwAsync(['keys', 'list', '--database', url, '--data-dir', tempDir()]);
      expect(result.status, result.stderr).toBe(2);
      expect(oneLine(result.stderr)).toHaveLength(1);
      expect(result.stderr).toMatch(/^mgw: --database /);
    }
    const env = await mgwAsync(['keys', 'list', '--data-dir', tempDir()], { MGW_DATABASE_URL: 'http://x/y' });
    expect(env.status).toBe(2);
    expect(env.stderr).toMatch(/^mgw: MGW_DATABASE_URL must be a postgres:\/\/ URL/);
    // A sealing key too short to be safe stops the start before anything connects.
    const short = await mgwAsync(['keys', 'list', '--database', admin, '--data-dir', tempDir()], { MGW_SECRET_KEY: 'short' });
    expect(short.status).toBe(2);
    expect(short.stderr).toBe('mgw: MGW_SECRET_KEY is 5 characters long; it must have at least 16 (openssl rand -base64 32 makes a good one).\n');
  });

  it('unreachable, wrong credentials, a missing database and missing rights: exit 1, one line, no stack', async () => {
    const base = new URL(admin);
    const cases: [string, RegExp][] = [
      [`postgres://u:p@127.0.0.1:1/db`, /^mgw: Cannot reach the database at 127\.0\.0\.1:1: connection refused/],
      [`postgres://postgres:wrong@${base.host}/postgres`, /^mgw: The database at .* refused the credentials of postgres\.\n$/],
      [`postgres://${base.username}:${base.password}@${base.host}/no_such_db`, /^mgw: The database "no_such_db" does not exist on /],
    ];
    // A user who may connect but not create tables (PostgreSQL 15+: no CREATE on schema public).
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    await client.query(`create role limited login password 'limited'`).catch(() => undefined);
    await client.end();
    cases.push([`postgres://limited:limited@${base.host}${base.pathname}`, /^mgw: The database user limited lacks the rights the gateway needs on ".*" \(it creates its tables there\): permission denied for schema public\.\n$/]);
    for (const [url, message] of cases) {
      const result = await mgwAsync(['keys', 'list', '--database', url, '--data-dir', tempDir()]);
      expect(result.status, result.stderr).toBe(1);
      expect(oneLine(result.stderr), result.stderr).toHaveLength(1);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it('an instance older than the database refuses to start rather than write to it', async () => {
    const url = await (await sharedPostgres()).createDatabase('schema');
    expect((await mgwAsync(['keys', 'list', '--database', url, '--data-dir', tempDir()])).status).toBe(0);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`insert into kysely_migration (name, timestamp) values ('9999_from_the_future', now()::text)`);
    await client.end();
    const started = await serve(['--database', url, '--data-dir', tempDir()]).then(
      (served) => served.stop().then(() => 'started'),
      (error: Error) => error.message,
    );
    expect(started).toMatch(/exited with 1/);
    expect(started).not.toMatch(/listening/);
    const cli = await mgwAsync(['keys', 'list', '--database', url, '--data-dir', tempDir()]);
    expect(cli.status).toBe(1);
    expect(cli.stderr).toBe('mgw: The database was set up by a newer mgw (it has migration 9999_from_the_future, which this version does not know); run the same version on every instance.\n');
  });
});

describe('the database goes away while an instance serves, and comes back', () => {
  let server: PgServer;
  let team: Team;
  let emulator: OpenAIEmulator;

  beforeAll(async () => {
    server = await startPostgres();
    emulator = await startOpenAIEmulator({ videoDurationMs: 1_500 });
    process.env.TEAM_UPSTREAM_KEY = emulator.apiKey;
    team = await startTeam({ instances: 1, url: await server.createDatabase('outage'), env: { TEAM_UPSTREAM_KEY: emulator.apiKey }, config: { team: { leaseSeconds: 2 } } });
    await serveTeamVideo(team.admin, emulator);
  }, 60_000);

  afterAll(async () => {
    await team?.close();
    await emulator?.close();
    await server?.destroy();
  });

  it('answers 503 storage_unavailable in gateway words (never a 500), then recovers with every hold accounted for', async () => {
    const key = await teamKey(team, 'balance', 10);
    const url = team.instances[0]!.baseUrl;
    const created: string[] = [];
    for (let i = 0; i < 3; i++) {
      const answer = await postJson(`${url}/videos`, { model: 'team-video', prompt: `before ${i}`, seconds: 4, size: '1280x720' }, key.token);
      expect(answer.status).toBe(200);
      created.push((answer.body as VideoTask).id);
    }
    await server.stop();
    const refused = [
      await postJson(`${url}/videos`, { model: 'team-video', prompt: 'during', seconds: 4, size: '1280x720' }, key.token),
      await postJson(`${url}/images/generations`, { model: 'local-image', prompt: 'during', size: '256x256' }, key.token),
      await request(`${url}/videos/${created[0]}`, { headers: { authorization: `Bearer ${key.token}` } }),
    ];
    for (const answer of refused) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(503);
      expect(errorOf(answer).code).toBe('storage_unavailable');
      expect(errorOf(answer).message).toBe("The gateway's storage is unavailable: the database server cannot be reached; the gateway reconnects when it is back.");
    }
    // The catalog as last read still answers.
    expect((await request(`${url}/models`)).status).toBe(200);
    await sleep(1_000);
    await server.start();
    let back = 0;
    for (let tries = 0; back !== 200 && tries < 100; tries++) {
      back = (await postJson(`${url}/videos`, { model: 'team-video', prompt: 'after', seconds: 4, size: '1280x720' }, key.token)).status;
      if (back !== 200) await sleep(100);
    }
    expect(back).toBe(200);
    const deadline = Date.now() + 30_000;
    while ((await team.db.selectFrom('video_tasks').select('id').where('status', 'in', ['queued', 'in_progress']).execute()).length > 0) {
      if (Date.now() > deadline) throw new Error('tasks did not end after the database came back');
      await sleep(100);
    }
    const tasks = await team.db.selectFrom('video_tasks').select('status').execute();
    expect(tasks.map((t) => t.status)).toEqual(Array(tasks.length).fill('completed'));
    expect(await ledgerProblems(team.db, { requireEnded: true })).toEqual([]);
  }, 90_000);
});
