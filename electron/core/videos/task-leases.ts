// Team mode: which instance works which video task (team-instance.ts keeps the leases alive).
// A scan claims the due tasks that are free (unleased, its own, or whose lease lapsed because
// their instance died) in one statement; rows another instance is claiming at that moment are
// skipped, not waited for. Each task is then worked by one instance at a time.
import type { Db } from '../store/database.js';
import type { VideoStatus, VideoTaskRow } from '../store/schema.js';

/** The instance that works the tasks it leases. */
export interface TaskLease {
  owner: string;
  /** Until when a lease taken now lasts. */
  until(): number;
}

/**
 * Claims up to `limit` due tasks for `lease`: active ones whose next poll is due, or ended ones
 * whose pending upstream cancel is (`cancels`). Oldest due first.
 */
export async function claimDue(db: Db, lease: TaskLease, which: 'active' | 'cancels', activeStatuses: readonly VideoStatus[], now: number, limit: number): Promise<VideoTaskRow[]> {
  let due = db
    .selectFrom('video_tasks')
    .select('id')
    .where('next_poll_at', '<=', now)
    .where((eb) => eb.or([eb('lease_owner', 'is', null), eb('lease_owner', '=', lease.owner), eb('lease_until', '<', Date.now())]));
  due = which === 'active' ? due.where('status', 'in', [...activeStatuses]) : due.where('upstream_cancel_until', 'is not', null);
  const rows = await db
    .updateTable('video_tasks')
    .set({ lease_owner: lease.owner, lease_until: lease.until() })
    .where('id', 'in', due.orderBy('next_poll_at').orderBy('created_at').limit(limit).forUpdate().skipLocked())
    .returningAll()
    .execute();
  return rows.sort((a, b) => a.next_poll_at - b.next_poll_at || a.created_at - b.created_at);
}
