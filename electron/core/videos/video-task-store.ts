// Video task rows and their transitions. Every terminal transition is one transaction that
// moves the status (guarded on the task still being active) and ends the hold, so a hold ends
// exactly once however many pollers, cancels or restarts race for it. Only a completed task keeps
// an output on disk: failing a task removes one already there (downloaded or rendered before a
// write failed, a restart, or a cancel), and a completion that finds its task already ended
// removes the file it brought.
import { sql, type Insertable } from 'kysely';
import { stat } from 'node:fs/promises';
import type { BillingService } from '../billing/billing-service.js';
import type { Clock } from '../clock.js';
import { GatewayError } from '../errors.js';
import { isAnonymous, type Principal } from '../access/principal.js';
import type { VideoOutput } from '../providers/provider.js';
import type { Db, Store } from '../store/database.js';
import type { VideoTaskRow, VideoTasksTable } from '../store/schema.js';
import type { VideoFiles } from './reference-store.js';
import { claimDue, type TaskLease } from './task-leases.js';

export const ACTIVE_STATUSES = ['queued', 'in_progress'] as const;

/** How long an ended task's upstream cancel is retried (an upstream down, a restart) before it is given up. */
export const UPSTREAM_CANCEL_RETRY_MS = 60 * 60 * 1000;


export interface ListOptions {
  limit: number;
  after?: string;
  order: 'asc' | 'desc';
}

export class VideoTaskStore {
  constructor(
    private readonly store: Store,
    private readonly billing: BillingService,
    private readonly files: VideoFiles,
    private readonly clock: Clock,
    /** Told the charge of every completed task, for per-key usage. */
    private readonly onCharged: (row: VideoTaskRow, chargedNano: number) => void = () => undefined,
    private readonly lease: TaskLease | null = null,
  ) {}

  /** A task's transitions take turns on it across instances (a no-op on SQLite, whose writer is alone). */
  private lockTask(trx: Db, id: string): Promise<void> {
    return this.store.lock(trx, `video_task:${id}`);
  }

  async get(id: string, trx: Db = this.store.db): Promise<VideoTaskRow | undefined> {
    return trx.selectFrom('video_tasks').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /**
   * Another caller's task and a missing task look the same: 404, existence not revealed.
   * Anonymous callers share one account, so their tasks are told apart by address too.
   */
  async getOwned(owner: Principal, id: string): Promise<VideoTaskRow> {
    const row = await this.get(id);
    if (!row || row.account_id !== owner.accountId || (isAnonymous(owner) && row.key_id !== owner.keyId)) {
      throw new GatewayError('not_found', `No video task ${id}.`, 'id');
    }
    return row;
  }

  async list(owner: Principal, options: ListOptions): Promise<{ rows: VideoTaskRow[]; hasMore: boolean }> {
    let query = this.store.db.selectFrom('video_tasks').selectAll().where('account_id', '=', owner.accountId);
    if (isAnonymous(owner)) query = query.where('key_id', '=', owner.keyId);
    if (options.after) {
      const cursor = await this.getOwned(owner, options.after).catch(() => {
        throw new GatewayError('invalid_request', `after must be the id of one of your tasks.`, 'after');
      });
      const cmp = options.order === 'desc' ? '<' : '>';
      query = query.where((eb) =>
        eb.or([
          eb('created_at', cmp, cursor.created_at),
          eb.and([eb('created_at', '=', cursor.created_at), eb('id', cmp, cursor.id)]),
        ]),
      );
    }
    const rows = await query
      .orderBy('created_at', options.order)
      .orderBy('id', options.order)
      .limit(options.limit + 1)
      .execute();
    return { rows: rows.slice(0, options.limit), hasMore: rows.length > options.limit };
  }

  /** A new task; in team mode leased to this instance, which submits it. */
  async insertIn(trx: Db, row: Insertable<VideoTasksTable>): Promise<void> {
    const leased = this.lease ? { lease_owner: this.lease.owner, lease_until: this.lease.until() } : {};
    await trx.insertInto('video_tasks').values({ ...row, ...leased }).execute();
  }

  /**
   * Moves a task no job was taken for yet to another of its model's routes (a failover at
   * creation), extending the creation's submit lease. Null when the task ended meanwhile (a
   * cancel) or a job was recorded for it: then it is submitted nowhere else.
   */
  async moveToRoute(id: string, route: Pick<VideoTasksTable, 'provider_id' | 'upstream_model' | 'engine_json'>, leaseUntil: number): Promise<VideoTaskRow | null> {
    const result = await this.store.db
      .updateTable('video_tasks')
      .set({ ...route, next_poll_at: leaseUntil, updated_at: this.clock.now() })
      .where('id', '=', id)
      .where('status', '=', 'queued')
      .where('upstream_id', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0 ? ((await this.get(id)) ?? null) : null;
  }

  /**
   * Records the upstream job in place of `replacing` (the job the submitter saw on the task: none
   * for a first submission, a lost one for a resubmission) and makes the task due, ending the
   * creation's submit lease (first polled at `firstPollAt`). Returns 'recorded', or what the job is when it is nobody's to
   * finish: 'ended' when the task ended while it was being submitted (a cancel; the job is then
   * kept on the row as one to cancel, so a crash before its cancel still cancels it), 'surplus'
   * when another submission recorded its job meanwhile (a resubmission after the lease ran out
   * while the first submission was still going).
   */
  async setUpstream(id: string, upstreamId: string, replacing: string | null, firstPollAt = 0): Promise<'recorded' | 'ended' | 'surplus'> {
    return this.store.tx(async (trx) => {
      await this.lockTask(trx, id);
      const row = await this.get(id, trx);
      if (!row || row.upstream_id !== replacing) return 'surplus';
      const now = this.clock.now();
      const active = (ACTIVE_STATUSES as readonly string[]).includes(row.status);
      await trx
        .updateTable('video_tasks')
        .set(active ? { upstream_id: upstreamId, updated_at: now, next_poll_at: firstPollAt } : { upstream_id: upstreamId, ...this.cancelPending(now) })
        .where('id', '=', id)
        .execute();
      return active ? 'recorded' : 'ended';
    });
  }

  /** Progress of an active task (never moves a terminal task, never goes backwards). */
  /**
   * Records a poll's status and progress. Within one status progress never goes back: a provider
   * that lost count (a local engine's event stream, heard again only after a gateway restart)
   * must not move a bar backwards.
   */
  async progress(id: string, status: 'queued' | 'in_progress', progress: number): Promise<boolean> {
    const percent = Math.max(0, Math.min(99, Math.round(progress)));
    const result = await this.store.db
      .updateTable('video_tasks')
      .set({
        status,
        progress: sql<number>`case when status = ${status} and progress > ${percent} then progress else ${percent} end`,
        updated_at: this.clock.now(),
      })
      .where('id', '=', id)
      .where('status', 'in', [...ACTIVE_STATUSES])
      .where((eb) => eb.or([eb('status', '!=', status), eb('progress', '<', percent)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async schedulePoll(id: string, at: number): Promise<void> {
    await this.store.db.updateTable('video_tasks').set({ next_poll_at: at }).where('id', '=', id).execute();
  }

  /** completed + hold consumed, atomically. Returns false when the task had already ended. */
  async complete(id: string, output: VideoOutput): Promise<boolean> {
    // The size is what the content endpoint checks the file against before serving it. A file
    // that cannot be read here fails this step, which the scheduler retries.
    const outputBytes = output.kind === 'file' ? (await stat(output.path)).size : null;
    type Outcome = { end: 'completed'; row: VideoTaskRow; charged: number } | { end: 'already completed' | 'ended otherwise' };
    const outcome = await this.store.tx(async (trx): Promise<Outcome> => {
      await this.lockTask(trx, id);
      const row = await this.get(id, trx);
      if (!row || !(ACTIVE_STATUSES as readonly string[]).includes(row.status)) return { end: row?.status === 'completed' ? 'already completed' : 'ended otherwise' };
      const held = row.hold_id ? await trx.selectFrom('holds').select('amount_nano').where('id', '=', row.hold_id).executeTakeFirst() : undefined;
      const charged = row.hold_id ? ((await this.billing.consumeIn(trx, row.hold_id, held?.amount_nano ?? 0)) ?? 0) : 0;
      const now = this.clock.now();
      await trx
        .updateTable('video_tasks')
        .set({
          status: 'completed',
          progress: 100,
          cost_nano: charged,
          output_path: output.kind === 'file' ? output.path : null,
          output_bytes: outputBytes,
          output_url: output.kind === 'url' ? output.url : null,
          updated_at: now,
          completed_at: now,
        })
        .where('id', '=', id)
        .execute();
      return { end: 'completed', row, charged };
    });
    // After the commit: a transaction run again (a PostgreSQL deadlock) must not count usage twice.
    if (outcome.end === 'completed') this.onCharged(outcome.row, outcome.charged);
    // Cancelled, failed or timed out while its video was being downloaded or rendered.
    if (outcome.end === 'ended otherwise' && output.kind === 'file') await this.files.removeOutput(id);
    return outcome.end === 'completed';
  }

  /**
   * failed / timeout + hold released, atomically. Returns the task as it was before (its
   * upstream job as of the end), or null when it had already ended. With `cancelUpstream`, a
   * task that has an upstream job keeps a pending cancel of it (see cancelDone()).
   */
  async fail(id: string, status: 'failed' | 'timeout', code: string, message: string, cancelUpstream = false): Promise<VideoTaskRow | null> {
    const ended = await this.store.tx(async (trx) => {
      await this.lockTask(trx, id);
      const row = await this.get(id, trx);
      if (!row || !(ACTIVE_STATUSES as readonly string[]).includes(row.status)) return null;
      if (row.hold_id) await this.billing.releaseIn(trx, row.hold_id);
      const now = this.clock.now();
      await trx
        .updateTable('video_tasks')
        .set({
          status,
          cost_nano: 0,
          error_code: code,
          error_message: message,
          updated_at: now,
          completed_at: now,
          ...(cancelUpstream && row.upstream_id ? this.cancelPending(now) : {}),
        })
        .where('id', '=', id)
        .execute();
      return row;
    });
    if (ended) await this.files.removeOutput(id);
    return ended;
  }

  /**
   * The columns that leave a pending upstream cancel on an ended task, due at once (for the next
   * start, should this process stop before sending it). In team mode the task stays leased to
   * this instance, which sends the cancel now: another instance takes it only if this one dies.
   */
  private cancelPending(now: number) {
    const leased = this.lease ? { lease_owner: this.lease.owner, lease_until: this.lease.until() } : {};
    return { upstream_cancel_until: now + UPSTREAM_CANCEL_RETRY_MS, next_poll_at: now, ...leased };
  }

  /**
   * The upstream cancel of `upstreamId` is done (or given up): nothing pending any more, unless
   * the task now owes the cancel of another job (a resubmission's, recorded meanwhile).
   */
  async cancelDone(id: string, upstreamId: string): Promise<void> {
    await this.store.db.updateTable('video_tasks').set({ upstream_cancel_until: null }).where('id', '=', id).where('upstream_id', '=', upstreamId).execute();
  }

  /** Ended tasks whose pending upstream cancel is due (in team mode, those this instance may take, leased to it). */
  async cancelsDue(now: number, limit: number): Promise<VideoTaskRow[]> {
    if (this.lease) return claimDue(this.store.db, this.lease, 'cancels', ACTIVE_STATUSES, now, limit);
    return this.store.db
      .selectFrom('video_tasks')
      .selectAll()
      .where('upstream_cancel_until', 'is not', null)
      .where('next_poll_at', '<=', now)
      .orderBy('next_poll_at')
      .limit(limit)
      .execute();
  }

  /**
   * Creation refused by the provider: release the hold and leave no task (or idempotency key)
   * behind. Only a task that was never submitted can be discarded.
   */
  async discard(id: string): Promise<void> {
    await this.store.tx(async (trx) => {
      await this.lockTask(trx, id);
      const row = await this.get(id, trx);
      if (!row || row.status !== 'queued' || row.upstream_id !== null) return;
      await trx.deleteFrom('idempotency_keys').where('task_id', '=', id).execute();
      await trx.deleteFrom('video_tasks').where('id', '=', id).execute();
      if (row.hold_id) await this.billing.releaseIn(trx, row.hold_id);
    });
  }

  /**
   * Active tasks whose next poll is due, oldest first. In team mode, only those this instance
   * holds or may take (unleased, or their lease lapsed: their instance died), leased to it now:
   * each task is worked by one instance at a time.
   */
  async due(now: number, limit: number): Promise<VideoTaskRow[]> {
    if (this.lease) return claimDue(this.store.db, this.lease, 'active', ACTIVE_STATUSES, now, limit);
    return this.store.db
      .selectFrom('video_tasks')
      .selectAll()
      .where('status', 'in', [...ACTIVE_STATUSES])
      .where('next_poll_at', '<=', now)
      .orderBy('next_poll_at')
      .orderBy('created_at')
      .limit(limit)
      .execute();
  }
}
