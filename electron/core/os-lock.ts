// Cross-process locks the operating system holds for us: SQLite's own file locks (fcntl on
// POSIX, LockFileEx on Windows), taken through libsql, which the gateway already ships. The
// kernel drops them when their process ends, however it ends (SIGKILL, a crash, a power cut),
// so there is no pid to trust, no age to guess and nothing for the user to delete by hand.
// SQLite also arbitrates connections inside one process, so two holders in one process are kept
// apart the same way.
import { closeSync, existsSync, openSync } from 'node:fs';
import Libsql from 'libsql';
import { GatewayError } from './errors.js';

type Connection = InstanceType<typeof Libsql>;

/** Who holds a claim, as the holder wrote it when it took the claim. */
export interface ClaimHolder {
  pid: number;
  note: string;
}

/** A held claim; release() gives it back (the process ending does too). */
export interface HeldClaim {
  release(): void;
}

const BUSY = new Set(['SQLITE_BUSY', 'SQLITE_LOCKED']);
const isBusy = (error: unknown): boolean => BUSY.has((error as { code?: string }).code ?? '');

function connect(path: string, busyTimeoutMs: number): Connection {
  // Owner-only, like the rest of the data dir.
  if (!existsSync(path)) closeSync(openSync(path, 'a', 0o600));
  const db = new Libsql(path);
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  return db;
}

function closeQuietly(db: Connection): void {
  try {
    if (db.inTransaction) db.exec('rollback');
    db.close();
  } catch {
    // already closed
  }
}

/**
 * Tries once to take the long-lived claim in `path` (a small SQLite file), writing `note` for
 * whoever is refused. The claim is SQLite's RESERVED lock, held by a transaction that stays open:
 * other processes may still read who holds it, but none can write. Answers the holder when the
 * claim is taken (or null when it could not be read; its holder is between two steps).
 */
export function tryClaim(path: string, note: string): HeldClaim | { heldBy: ClaimHolder | null } {
  const db = connect(path, 0);
  try {
    db.exec('create table if not exists holder (id integer primary key check (id = 1), pid integer not null, note text not null, since integer not null)');
    // Writing the note needs the write lock, so a live holder refuses it; the write lock is then
    // taken again at once and kept. Another process may slip in between the two: then it holds
    // the claim and this one is refused below, never both.
    db.prepare('insert or replace into holder (id, pid, note, since) values (1, ?, ?, ?)').run(process.pid, note, Date.now());
    db.exec('begin immediate');
  } catch (error) {
    closeQuietly(db);
    if (!isBusy(error)) throw error;
    return { heldBy: readHolder(path) };
  }
  return { release: () => closeQuietly(db) };
}

/**
 * Reads the holder's note on a connection of its own: read on the connection whose write was
 * just refused, libsql kept a read lock past close(), and this process could never take the
 * claim afterwards.
 */
function readHolder(path: string): ClaimHolder | null {
  const db = connect(path, 0);
  try {
    const [row] = db.prepare('select pid, note from holder where id = 1').all() as { pid: number; note: string }[];
    return row ? { pid: row.pid, note: row.note } : null;
  } catch {
    return null;
  } finally {
    closeQuietly(db);
  }
}

/**
 * Runs `fn` while holding the lock in `path` (a short read-modify-write, such as the secret
 * store's). Synchronous, because the SecretStore interface is: SQLite's busy handler waits up to
 * `timeoutMs` for another holder, then the store is reported unavailable.
 */
export function withLock<T>(path: string, fn: () => T, timeoutMs = 10_000): T {
  const db = connect(path, timeoutMs);
  try {
    try {
      db.exec('begin immediate');
    } catch (error) {
      if (!isBusy(error)) throw error;
      throw new GatewayError('storage_unavailable', `The gateway's storage is unavailable: ${path} is held by another process.`);
    }
    return fn();
  } finally {
    closeQuietly(db);
  }
}
