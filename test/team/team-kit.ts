// Team mode test kit: one PostgreSQL database, an in-process "admin" gateway on it that sets up
// providers, models and keys (as the CLI would), and real `mgw serve --database` instances on it,
// each with a data dir of its own and one shared files dir.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kysely } from 'kysely';
import { createGateway, type Gateway } from '../../electron/core/gateway.js';
import type { Database } from '../../electron/core/store/schema.js';
import { postgresDialect } from '../../electron/core/store/pg-dialect.js';
import { createPool } from '../../electron/core/store/pg-connection.js';
import { serve, type Served } from '../helpers/cli.js';
import { tempDir, USD } from '../helpers/gateway.js';
import { sharedPostgres } from '../helpers/postgres.js';

export const SECRET_KEY = 'team-test-secret-key-0123456789';

export interface Team {
  url: string;
  admin: Gateway;
  filesDir: string;
  instances: Served[];
  /** Starts one more instance (its own data dir, the given config.json). */
  start(config?: object, env?: Record<string, string>): Promise<Served>;
  /** A direct connection for the test's own checks. */
  db: Kysely<Database>;
  close(): Promise<void>;
}

export async function startTeam(options: { instances: number; config?: object; env?: Record<string, string>; url?: string }): Promise<Team> {
  const url = options.url ?? (await (await sharedPostgres()).createDatabase('team'));
  const root = tempDir('mgw-team-');
  const filesDir = join(root, 'files');
  mkdirSync(filesDir);
  process.env.MGW_SECRET_KEY = SECRET_KEY;
  const admin = await createGateway({ dataDir: join(root, 'admin'), databaseUrl: url, filesDir });
  const pool = createPool(url);
  const db = new Kysely<Database>({ dialect: postgresDialect(pool) });
  const instances: Served[] = [];
  let made = 0;
  const start = async (config: object = options.config ?? {}, env: Record<string, string> = options.env ?? {}): Promise<Served> => {
    const dataDir = join(root, `instance-${made++}`);
    mkdirSync(dataDir);
    writeFileSync(join(dataDir, 'config.json'), JSON.stringify(config));
    const served = await serve(['--database', url, '--data-dir', dataDir, '--files-dir', filesDir], { MGW_SECRET_KEY: SECRET_KEY, ...env });
    instances.push(served);
    return served;
  };
  await Promise.all(Array.from({ length: options.instances }, () => start()));
  return {
    url,
    admin,
    filesDir,
    instances,
    start,
    db,
    async close() {
      await Promise.all(instances.map((instance) => instance.stop('SIGKILL')));
      await admin.close();
      await db.destroy();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** A key made through the admin gateway (as `mgw keys create --database` would). */
export async function teamKey(team: Team, access: 'free' | 'pro' | 'balance', balanceUsd = 0, allowanceUsd = 0): Promise<{ id: string; token: string; accountId: string }> {
  const created = await team.admin.keys.create({ access, balanceNano: Math.round(balanceUsd * USD), allowanceNano: Math.round(allowanceUsd * USD) });
  return { id: created.key.id, token: created.token, accountId: created.key.account_id };
}

/** A video model served by an OpenAI-compatible emulator: `seconds` 4, 1280x720, $`pricePerSecond` a second. */
export async function putEmulatedVideoModel(admin: Gateway, id: string, providerId: string, pricePerSecond: number): Promise<void> {
  const video = structuredClone((await admin.catalog.find('local-video'))!.record);
  const { route_prices_usd_per_second: _prices, ...pricing } = video.pricing;
  await admin.catalog.put({
    record: { ...video, id, owned_by: providerId, pricing: { ...pricing, price: pricePerSecond }, capabilities: { ...video.capabilities, supported_seconds: [4], supported_sizes: ['1280x720'] } },
    routes: [{ providerId, upstreamModel: 'sora-2' }],
  });
}

/** The emulator as provider `up` (its key read from TEAM_UPSTREAM_KEY, given to the instances too) serving `team-video` at $0.10 a second. */
export async function serveTeamVideo(admin: Gateway, emulator: { baseUrl: string }): Promise<void> {
  await admin.providerConfigs.add({ id: 'up', kind: 'openai', baseUrl: emulator.baseUrl, apiKeyEnv: 'TEAM_UPSTREAM_KEY' });
  await putEmulatedVideoModel(admin, 'team-video', 'up', 0.1);
}
