// One instance of a team (several gateways on one PostgreSQL, docs/team.md). It beats: a row in
// `instances` says until when it is alive, renewed four times per lease. Its video tasks are
// leased to it until the same moment (video-task-store.ts claims them), so when it dies
// (SIGKILL, a lost machine) its leases lapse with its heartbeat and another instance takes the
// tasks over within the lease; the image holds of its requests in flight are released by the
// others then, since no answer will ever charge them.
// Instances' clocks must agree (NTP): leases compare wall-clock times written by different machines.
import { hostname } from 'node:os';
import type { BillingService } from '../billing/billing-service.js';
import { newId } from '../ids.js';
import type { Logger } from '../logger.js';
import type { Store } from '../store/database.js';
import { ACTIVE_STATUSES } from '../videos/video-task-store.js';

/** Rows of instances dead this long are deleted. */
const FORGET_MS = 24 * 3_600_000;

export class TeamInstance {
  readonly id = newId('inst', 12);
  private timer: NodeJS.Timeout | null = null;
  private beating: Promise<void> | null = null;
  /** A beat renews the leases four times per lease: one or two late beats lose nothing. */
  private readonly heartbeatMs: number;

  constructor(
    private readonly store: Store,
    private readonly logger: Logger,
    /** How long a lease and a heartbeat last (config.json team.leaseSeconds): a dead instance's tasks move on within this, plus one scan. */
    private readonly leaseMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.heartbeatMs = Math.max(250, Math.floor(leaseMs / 4));
  }

  /** Until when a lease taken now lasts. */
  leaseUntil(): number {
    return this.now() + this.leaseMs;
  }

  /** Announces the instance and keeps beating until stop(). */
  async start(billing: BillingService): Promise<void> {
    const now = this.now();
    await this.store.db
      .insertInto('instances')
      .values({ id: this.id, host: hostname(), pid: process.pid, started_at: now, alive_until: now + this.leaseMs })
      .execute();
    await this.sweep(billing);
    this.timer = setInterval(() => {
      if (this.beating) return;
      this.beating = this.beat(billing)
        .catch((error: unknown) => this.logger.warn({ err: error }, 'team heartbeat failed; retrying'))
        .finally(() => (this.beating = null));
    }, this.heartbeatMs);
    this.timer.unref();
  }

  private async beat(billing: BillingService): Promise<void> {
    const until = this.now() + this.leaseMs;
    await this.store.db
      .insertInto('instances')
      .values({ id: this.id, host: hostname(), pid: process.pid, started_at: this.now(), alive_until: until })
      .onConflict((oc) => oc.column('id').doUpdateSet({ alive_until: until }))
      .execute();
    await this.store.db
      .updateTable('video_tasks')
      .set({ lease_until: until })
      .where('lease_owner', '=', this.id)
      // Its active tasks, and the ended ones whose upstream cancel it is sending.
      .where((eb) => eb.or([eb('status', 'in', [...ACTIVE_STATUSES]), eb('upstream_cancel_until', 'is not', null)]))
      .execute();
    await this.sweep(billing);
  }

  /** What dead instances left: their image holds (released) and, after a day, their rows. */
  private async sweep(billing: BillingService): Promise<void> {
    const released = await billing.releaseOrphans('image');
    if (released > 0) this.logger.warn({ released }, 'released image holds of an instance that stopped');
    await this.store.db.deleteFrom('instances').where('alive_until', '<', this.now() - FORGET_MS).execute();
  }

  /** A clean stop: its tasks are free for the others at once, and it is no longer alive. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.beating;
    try {
      await this.store.db.updateTable('video_tasks').set({ lease_owner: null, lease_until: null }).where('lease_owner', '=', this.id).execute();
      await this.store.db.updateTable('instances').set({ alive_until: this.now() }).where('id', '=', this.id).execute();
    } catch (error) {
      // The database is away: the leases lapse by themselves.
      this.logger.warn({ err: error }, 'could not hand back video task leases at stop; they lapse by themselves');
    }
  }
}
