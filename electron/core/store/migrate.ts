// Applies the migrations (migrations.ts) at open, for both dialects. Instances started together
// take turns (Kysely's migration lock); one of an older version than the database refuses to
// start rather than write rows a newer schema does not expect.
import { Migrator, type Kysely } from 'kysely';
import { GatewayError } from '../errors.js';
import { migrationProvider } from './migrations.js';
import type { Database } from './schema.js';

export async function migrate(db: Kysely<Database>): Promise<void> {
  const migrator = new Migrator({ db, provider: migrationProvider });
  // Instances starting at the same moment may race to create Kysely's own bookkeeping tables
  // (PostgreSQL's CREATE TABLE IF NOT EXISTS is not atomic): one more try finds them made.
  for (let attempt = 0; ; attempt++) {
    const { error } = await migrator.migrateToLatest();
    if (!error) return;
    const missing = /previously executed migration (\S+) is missing/.exec(String((error as Error).message));
    if (missing) {
      throw new GatewayError(
        'storage_unavailable',
        `The database was set up by a newer mgw (it has migration ${missing[1]}, which this version does not know); run the same version on every instance.`,
      );
    }
    const code = String((error as { code?: unknown }).code ?? '');
    if (attempt === 0 && (code === '23505' || code === '42P07')) continue;
    throw Object.assign(new GatewayError('storage_unavailable', `Database migration failed: ${(error as Error).message}`), { cause: error, pgCode: code });
  }
}
