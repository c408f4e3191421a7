// Which store a gateway opens: SQLite in its data dir, or the PostgreSQL of --database /
// MGW_DATABASE_URL (team mode). The PostgreSQL side (and its driver) loads only when asked for:
// the desktop app and a lone server start without it.
import { openStore, type Store } from './database.js';

export async function openDatabase(dataDir: string, databaseUrl?: string | null): Promise<Store> {
  if (!databaseUrl) return openStore(dataDir);
  const { openPostgresStore } = await import('./postgres-store.js');
  return openPostgresStore(databaseUrl);
}
