// Pushes what another process changed. The CLI (or a second app) commits to the same database;
// the core's caches notice through SQLite's data_version on their next read, but an open studio
// would not hear of it until it asked. While someone listens to studio events, a small timer
// reads data_version (one cheap pragma; it moves only on other connections' commits, never on
// this process's own writes) and, when it moved, calls onChange.
import type { Store } from '../store/database.js';

export const EXTERNAL_CHANGE_MS = 500;

export interface ExternalChangeOptions {
  store: Pick<Store, 'dataVersion'>;
  /** Whether anyone would hear an event: no studio open, no polling. */
  listened(): boolean;
  onChange(): void;
  intervalMs?: number;
}

/** Starts the watch; returns its stop. */
export function watchExternalChanges({ store, listened, onChange, intervalMs = EXTERNAL_CHANGE_MS }: ExternalChangeOptions): () => void {
  let seen: number | null = null;
  const timer = setInterval(() => {
    if (!listened()) {
      // Whoever connects next loads everything afresh: no need to report what came before.
      seen = null;
      return;
    }
    let version: number;
    try {
      version = store.dataVersion();
    } catch {
      return; // a closed or locked database: the next tick tries again
    }
    if (seen !== null && version !== seen) onChange();
    seen = version;
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
