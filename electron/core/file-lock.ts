// A cross-process lock on a small file's read-modify-write (the secret store): the CLI, a
// running server and the studio may write the same file at once. An O_EXCL lock file, retried
// with a short sleep; a lock whose owner died (or that is far older than any holder keeps one)
// is broken. Synchronous, because the SecretStore interface is.
import { randomBytes } from 'node:crypto';
import { closeSync, linkSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { GatewayError } from './errors.js';

export interface FileLockOptions {
  /** Give up after this long (a holder keeps the lock for a few milliseconds). */
  timeoutMs?: number;
  /** A lock older than this is stale whatever its owner (a reused pid cannot keep it forever). */
  staleMs?: number;
}

const SLEEPER = new Int32Array(new SharedArrayBuffer(4));
const sleep = (ms: number): void => void Atomics.wait(SLEEPER, 0, 0, ms);

/** Runs `fn` while holding `lockPath`; the lock is released even when `fn` throws. */
export function withFileLock<T>(lockPath: string, fn: () => T, options: FileLockOptions = {}): T {
  const release = acquire(lockPath, options.timeoutMs ?? 10_000, options.staleMs ?? 30_000);
  try {
    return fn();
  } finally {
    release();
  }
}

/**
 * Takes `lockPath` for as long as the caller keeps it (a serving process's claim on its data
 * dir), or answers what the holder wrote. Only a holder that is gone loses it: no age limit.
 */
export function holdFileLock(lockPath: string, note: string): { release: () => void } | { heldBy: string } {
  const token = `${process.pid} ${randomBytes(8).toString('hex')} ${note}`;
  for (let attempt = 0; attempt < 2; attempt++) {
    if (create(lockPath, token)) return { release: () => releaseIfOurs(lockPath, token) };
    breakIfStale(lockPath, Number.POSITIVE_INFINITY);
  }
  return { heldBy: readText(lockPath) ?? '' };
}

/** Creates the lock file holding `token`; false when it exists. */
function create(lockPath: string, token: string): boolean {
  try {
    const fd = openSync(lockPath, 'wx', 0o600);
    try {
      writeSync(fd, token);
    } finally {
      closeSync(fd);
    }
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return false;
  }
}

function acquire(lockPath: string, timeoutMs: number, staleMs: number): () => void {
  const token = `${process.pid} ${randomBytes(8).toString('hex')}`;
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    if (create(lockPath, token)) return () => releaseIfOurs(lockPath, token);
    breakIfStale(lockPath, staleMs);
    if (Date.now() >= deadline) {
      throw new GatewayError('storage_unavailable', `The gateway's storage is unavailable: ${lockPath} is held by another process.`);
    }
    // Jittered, growing a little: a dozen CLI processes at once must not retry in lockstep.
    sleep(Math.min(50, 2 + attempt) * (0.5 + Math.random()));
  }
}

function releaseIfOurs(lockPath: string, token: string): void {
  if (readText(lockPath) === token) unlinkQuietly(lockPath);
}

/**
 * A lock is stale when its owner process is gone or it is older than staleMs. It is moved aside
 * under a unique name before being deleted, and put back if what was moved is not the lock
 * judged stale (another process broke it and took a fresh one meanwhile).
 */
function breakIfStale(lockPath: string, staleMs: number): void {
  const seen = readText(lockPath);
  if (seen === null) return;
  let age: number;
  try {
    age = Date.now() - statSync(lockPath).mtimeMs;
  } catch {
    return;
  }
  const pid = Number(seen.split(' ')[0]);
  // An empty lock is one being written right now, unless it is old.
  const ownerGone = seen !== '' && Number.isInteger(pid) && pid > 0 && !alive(pid);
  if (!ownerGone && age < staleMs) return;
  const aside = `${lockPath}.${process.pid}.${randomBytes(6).toString('hex')}.stale`;
  try {
    renameSync(lockPath, aside);
  } catch {
    return; // someone else moved it first
  }
  if (readText(aside) !== seen) {
    try {
      linkSync(aside, lockPath);
    } catch {
      // A newer lock exists already; the one moved aside was live only for a moment.
    }
  }
  unlinkQuietly(aside);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}
