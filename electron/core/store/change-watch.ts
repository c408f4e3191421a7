// Whether another process may have written the database since a cache was filled. SQLite's
// data_version moves on every commit by another connection (the CLI, a second app); it costs
// ~4 us through libsql, a good part of a whole request, so it is read at most once per
// `windowMs`: another process's commit shows within that window. Writes made through this
// process never move it: their services invalidate their caches themselves.
import type { Store } from './database.js';

type VersionSource = Pick<Store, 'dataVersion'>;

/** The last data_version read per store, shared by every watch on it: one read per window. */
const lastRead = new WeakMap<VersionSource, { value: number; at: number }>();

function recentDataVersion(store: VersionSource, windowMs: number, now: number): number {
  const last = lastRead.get(store);
  if (last && now - last.at < windowMs) return last.value;
  const value = store.dataVersion();
  lastRead.set(store, { value, at: now });
  return value;
}

export class ChangeWatch {
  private seen = -1;
  private checkedAt = -Infinity;

  constructor(
    private readonly store: VersionSource,
    private readonly windowMs = 1,
  ) {}

  /** Call when the cache was (re)filled from the database. */
  mark(): void {
    this.seen = this.store.dataVersion();
    this.checkedAt = performance.now();
  }

  /** Forget the mark: the next unchanged() is false. */
  reset(): void {
    this.seen = -1;
    this.checkedAt = -Infinity;
  }

  /** True while no other connection committed since mark() (as of at most `windowMs` ago). */
  unchanged(): boolean {
    if (this.seen === -1) return false;
    const now = performance.now();
    if (now - this.checkedAt < this.windowMs) return true;
    if (recentDataVersion(this.store, this.windowMs, now) !== this.seen) return false;
    this.checkedAt = now;
    return true;
  }
}
