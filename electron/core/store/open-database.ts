// Which store a gateway opens: SQLite in its data dir, or the PostgreSQL of --database /
// MGW_DATABASE_URL (team mode).
import { openStore, type Store } from './database.js';
import { openPostgresStore } from './postgres-store.js';

export async function openDatabase(dataDir: string, databaseUrl?: string | null): Promise<Store> {
  return databaseUrl ? openPostgresStore(databaseUrl) : openStore(dataDir);
}
