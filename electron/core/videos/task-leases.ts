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
 * whose pending upstream cancel is (`cancels`), and any of them whose lease lapsed. Oldest due first.
 */
export async function claimDue(db: Db, lease: TaskLease, which: 'active' | 'cancels', activeStatuses: readonly VideoStatus[], now: number, limit: number): Promise<VideoTaskRow[]> {
  const lapsed = Date.now();
  let due = db
    .selectFrom('video_tasks')
    .select('id')
    .where((eb) =>
      eb.or([
        eb.and([eb('next_poll_at', '<=', now), eb.or([eb('lease_owner', 'is', null), eb('lease_owner', '=', lease.owner)])]),
        // A lease lapsed: its instance died. Its task is due at once, whatever poll or submit
        // lease it had planned (a creation's is minutes long): it moves on within the lease.
        eb('lease_until', '<', lapsed),
      ]),
    );
  due = which === 'active' ? due.where('status', 'in', [...activeStatuses]) : due.where('upstream_cancel_until', 'is not', null);
  const rows = await db
    .updateTable('video_tasks')
    .set({ lease_owner: lease.owner, lease_until: lease.until() })
    .where('id', 'in', due.orderBy('next_poll_at').orderBy('created_at').limit(limit).forUpdate().skipLocked())
    .returningAll()
    .execute();
  return rows.sort((a, b) => a.next_poll_at - b.next_poll_at || a.created_at - b.created_at);
}
