// Video tasks: create (validate, hold, insert, submit), read, list, cancel, and content.
import type { VideoTask, VideoTaskList } from '../../../shared/api-types.js';
import type { AccessGate } from '../access/access-gate.js';
import { assertModelAccess } from '../access/access-policy.js';
import type { Principal } from '../access/principal.js';
import type { BillingService } from '../billing/billing-service.js';
import { countOr } from '../catalog/capability-read.js';
import type { CatalogEntry, CatalogService } from '../catalog/catalog-service.js';
import { upstreamRouteFor } from '../catalog/partner-fields.js';
import type { Clock } from '../clock.js';
import { GatewayError, invalid } from '../errors.js';
import { newId } from '../ids.js';
import { checkImagesDecode } from '../images/image-decode-check.js';
import type { Logger } from '../logger.js';
import type { ModelRecord } from '../../../shared/api-types.js';
import type { ModelRoute } from '../catalog/model-routes.js';
import type { Failover, RouteTrace } from '../routing/failover.js';
import type { VideoTaskRow } from '../store/schema.js';
import type { VideoProvider } from '../providers/provider.js';
import type { ProviderRegistry } from '../providers/registry.js';
import type { Store } from '../store/database.js';
import { engineOptionsOf } from './engine-options.js';
import { sweepVideoFiles } from './file-sweep.js';
import { checkIdempotencyKey, findIdempotent, rememberIdempotent, requestFingerprint } from './idempotency.js';
import type { VideoFiles } from './reference-store.js';
import { checkVideoRules, effectiveSize, parseVideoRequest, resolveVideoModel, type VideoCreateInput, type VideoCreateRequest } from './video-request.js';
import { videoDimensions, videoHoldFor } from './video-pricing.js';
import type { VideoScheduler } from './video-scheduler.js';
import { ACTIVE_STATUSES, type VideoTaskStore } from './video-task-store.js';
import { asCreated, toVideoTask } from './video-view.js';

export const DEFAULT_MAX_TASK_SECONDS = 15 * 60;
/** Longer than an upstream creation call may take (the whole-call timeout). */
export const SUBMIT_LEASE_MS = 150_000;

export type ContentUrl = (taskId: string) => string;

export type VideoContent =
  | { kind: 'file'; path: string; bytes: number | null }
  | { kind: 'redirect'; url: string };

/** A validated, priced creation, ready to be written and submitted. */
interface Creation {
  request: VideoCreateRequest;
  entry: CatalogEntry;
  key: string | null;
  fingerprint: string;
  holdNano: number;
  size: string;
  taskId: string;
  /** Filled with what the model's routes did (the activity log's). */
  trace: RouteTrace | undefined;
}

export class VideoService {
  /** Creations in flight, by task id: settled with their answer once the provider took or refused the task. */
  private readonly creating = new Map<string, Promise<void>>();

  constructor(
    private readonly store: Store,
    private readonly catalog: CatalogService,
    private readonly providers: ProviderRegistry,
    private readonly billing: BillingService,
    private readonly tasks: VideoTaskStore,
    private readonly files: VideoFiles,
    private readonly scheduler: VideoScheduler,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly access: AccessGate,
    private readonly failover: Failover,
  ) {}

  async create(principal: Principal, input: VideoCreateInput, idempotencyKey: string | undefined, contentUrl: ContentUrl, trace?: RouteTrace): Promise<VideoTask> {
    const key = checkIdempotencyKey(idempotencyKey);
    const request = parseVideoRequest(input);
    const entry = await resolveVideoModel(this.catalog, request.model);
    const { record } = entry;
    checkVideoRules(request, record);
    assertModelAccess(principal, record);
    await checkImagesDecode(request.references);
    const size = effectiveSize(request, record);
    videoDimensions(size); // a listed size the gateway cannot render is refused now, not later
    // Priced by the model's first route, whichever serves: the client sees one model.
    const holdNano = videoHoldFor(principal, record, entry.routes[0]!.upstreamModel, request.requestType, request.seconds);
    // The size the task gets, so leaving size out and naming the model's default are one request.
    const fingerprint = requestFingerprint({ ...request, size });
    const taskId = newId('video', 20);
    // Known before the task is committed, so a retry that finds the task always finds this too.
    const outcome = settleable();
    this.creating.set(taskId, outcome.promise);
    try {
      const task = await this.insertAndSubmit(principal, { request, entry, key, fingerprint, holdNano, size, taskId, trace }, contentUrl);
      outcome.settle();
      return task;
    } catch (error) {
      outcome.settle(error);
      throw error;
    } finally {
      this.creating.delete(taskId);
    }
  }

  /** The creation's transaction (idempotency, hold, task) and the provider's submission. */
  private async insertAndSubmit(principal: Principal, plan: Creation, contentUrl: ContentUrl): Promise<VideoTask> {
    const { request, entry, key, fingerprint, holdNano, size, taskId } = plan;
    const { record } = entry;
    const first = entry.routes[0]!;
    // A lease: the scheduler must not submit the task while this creation is submitting it.
    // After a crash mid-submit, the task is resubmitted once the lease runs out.
    const lease = await this.submitLeaseMs(first.providerId);
    const referenceFiles = await this.files.saveReferences(taskId, request.references);

    let existing: string | null = null;
    try {
      existing = await this.store.tx(async (trx) => {
        // The account's creations take turns (on every instance), so a second request with this
        // key finds the first's task once that has committed.
        await this.billing.lockAccountIn(trx, principal.accountId);
        const now = this.clock.now();
        if (key) {
          const found = await findIdempotent(trx, principal.accountId, key, fingerprint, now);
          if (found) return found;
        }
        const hold = await this.billing.reserveIn(trx, principal.accountId, holdNano, 'video', taskId);
        const maxSeconds = countOr(record.capabilities.max_task_seconds, 0) || DEFAULT_MAX_TASK_SECONDS;
        await this.tasks.insertIn(trx, {
          id: taskId,
          account_id: principal.accountId,
          key_id: principal.keyId,
          model: record.id,
          ...this.routeColumns(record, first, request.requestType),
          request_type: request.requestType,
          prompt: request.prompt,
          seconds: request.seconds,
          size,
          client_request_id: request.clientRequestId,
          reference_files: JSON.stringify(referenceFiles),
          status: 'queued',
          progress: 0,
          hold_id: hold.holdId,
          cost_nano: holdNano,
          upstream_id: null,
          output_path: null,
          output_bytes: null,
          upstream_cancel_until: null,
          output_url: null,
          error_code: null,
          error_message: null,
          created_at: now,
          updated_at: now,
          completed_at: null,
          deadline_at: now + maxSeconds * 1000,
          next_poll_at: now + lease,
        });
        if (key) await rememberIdempotent(trx, principal.accountId, key, fingerprint, taskId, now);
        return null;
      });
    } catch (error) {
      await this.files.removeReferences(referenceFiles);
      throw error;
    }
    if (existing) {
      // The first request may still be submitting it: answer what it answers (a refusal
      // leaves no task), not a task that is about to vanish. Taken before any await, so the
      // first cannot finish and leave the map in between.
      const firstOutcome = this.creating.get(existing);
      await this.files.removeReferences(referenceFiles);
      await firstOutcome;
      return toVideoTask(asCreated(await this.tasks.getOwned(principal, existing)), contentUrl);
    }

    let submitted: { row: VideoTaskRow; upstreamId: string; provider: VideoProvider } | null;
    try {
      submitted = await this.submit(plan);
    } catch (error) {
      await this.discardRefused(taskId, referenceFiles);
      this.logger.warn({ taskId, code: (error as GatewayError).code }, 'video creation refused by every route');
      throw error instanceof GatewayError ? error : new GatewayError('upstream_unavailable', 'The video provider did not accept the task.');
    }
    if (submitted) {
      const { row, upstreamId, provider } = submitted;
      try {
        // Cancelled while the provider was taking it, or resubmitted meanwhile: a job it will not follow is cancelled.
        await this.scheduler.recordJob(row, upstreamId, null, provider);
      } catch (error) {
        // The task and its hold are committed and the provider took the job; only its upstream id
        // is not on record. The task stands (answering an error here would invite a retry that
        // pays twice): when its submit lease runs out the scheduler submits it again.
        this.logger.warn({ taskId, err: error }, 'could not record the upstream id of a new video task; it will be resubmitted');
      }
    }
    this.scheduler.poke();
    this.access.record({ principal: principal.keyId, model: record.id, inputTokens: 0, outputTokens: 0, spendNano: 0 });
    return toVideoTask(asCreated((await this.tasks.get(taskId))!), contentUrl);
  }

  /**
   * Submits the new task to its model's routes in order (routing/failover.ts): a route that
   * failed before taking the job passes the task to the next, the row moved first so a crash
   * resubmits it there. A job an upstream accepted is never submitted anywhere else. Null when
   * the task was cancelled before any route took it.
   */
  private async submit(plan: Creation): Promise<{ row: VideoTaskRow; upstreamId: string; provider: VideoProvider } | null> {
    const { entry, request, taskId } = plan;
    let row: VideoTaskRow | null = (await this.tasks.get(taskId))!;
    return this.failover.run(
      entry.routes,
      async ({ route }) => {
        const provider = await this.providers.video(route.providerId);
        const columns = this.routeColumns(entry.record, route, request.requestType);
        const moved = row!.provider_id !== columns.provider_id || row!.upstream_model !== columns.upstream_model || row!.engine_json !== columns.engine_json;
        if (moved) row = await this.tasks.moveToRoute(taskId, columns, this.clock.now() + (provider.submitTimeoutMs ?? SUBMIT_LEASE_MS));
        if (!row) return null;
        return { row, upstreamId: await provider.submitVideo(this.scheduler.jobOf(row)), provider };
      },
      plan.trace ? { trace: plan.trace } : {},
    );
  }

  /** What a task records of the route it goes to. fal serves a model's text- and image-to-video at two paths: the record's partner route says which. */
  private routeColumns(record: ModelRecord, route: ModelRoute, requestType: string): Pick<VideoTaskRow, 'provider_id' | 'upstream_model' | 'engine_json'> {
    return {
      provider_id: route.providerId,
      upstream_model: upstreamRouteFor(record, route.upstreamModel, requestType),
      engine_json: JSON.stringify(engineOptionsOf(record, route)),
    };
  }

  /** How long a creation may take to submit its task to one route before the scheduler may. */
  private async submitLeaseMs(providerId: string): Promise<number> {
    const provider = await this.providers.video(providerId).catch(() => null);
    return provider?.submitTimeoutMs ?? SUBMIT_LEASE_MS;
  }

  /**
   * Undoes a creation the provider refused. When even that cannot be written (a full or
   * read-only disk), the task is left to the scheduler, which submits it again after its lease
   * and fails it (releasing the hold) if the provider still refuses.
   */
  private async discardRefused(taskId: string, referenceFiles: string[]): Promise<void> {
    try {
      await this.tasks.discard(taskId);
      await this.files.removeReferences(referenceFiles);
    } catch (error) {
      this.logger.warn({ taskId, err: error }, 'could not discard a refused video task; the scheduler will retry it');
    }
  }

  /** At server start: removes files an interrupted run left (see file-sweep.ts); returns how many. */
  sweepFiles(): Promise<number> {
    return sweepVideoFiles(this.store, this.files, this.store.dialect === 'postgres');
  }

  async get(principal: Principal, id: string, contentUrl: ContentUrl): Promise<VideoTask> {
    return toVideoTask(await this.tasks.getOwned(principal, id), contentUrl);
  }

  async list(principal: Principal, query: { limit?: unknown; after?: unknown; order?: unknown }, contentUrl: ContentUrl): Promise<VideoTaskList> {
    const limit = query.limit === undefined ? 20 : Number(query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100 || (typeof query.limit === 'string' && !/^\d+$/.test(query.limit))) {
      throw invalid('limit must be a whole number from 1 to 100.', 'limit');
    }
    if (query.order !== undefined && query.order !== 'asc' && query.order !== 'desc') throw invalid('order must be asc or desc.', 'order');
    if (query.after !== undefined && typeof query.after !== 'string') throw invalid('after must be a task id.', 'after');
    const { rows, hasMore } = await this.tasks.list(principal, {
      limit,
      order: (query.order as 'asc' | 'desc' | undefined) ?? 'desc',
      ...(query.after ? { after: query.after as string } : {}),
    });
    const data = rows.map((row) => toVideoTask(row, contentUrl));
    return { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: hasMore };
  }

  /** Cancels a queued or running task: upstream cancel, hold released, failed with code "cancelled". */
  async cancel(principal: Principal, id: string, contentUrl: ContentUrl): Promise<VideoTask> {
    const row = await this.tasks.getOwned(principal, id);
    if ((ACTIVE_STATUSES as readonly string[]).includes(row.status)) {
      // The job to cancel is the one on record when the task ended (it may have been taken since `row` was read).
      await this.scheduler.endWithCancel(id, 'failed', 'cancelled', 'The task was cancelled by its owner.');
    }
    // Read again through the owner check: a creation refused meanwhile has left no task (404).
    return toVideoTask(await this.tasks.getOwned(principal, id), contentUrl);
  }

  async content(principal: Principal, id: string): Promise<VideoContent> {
    const row = await this.tasks.getOwned(principal, id);
    if (row.status !== 'completed') {
      throw new GatewayError('video_not_ready', `The video is not ready: the task is ${row.status}.`);
    }
    if (row.output_url) return { kind: 'redirect', url: row.output_url };
    if (!row.output_path) throw new GatewayError('internal_error', 'The completed task has no output.');
    return { kind: 'file', path: row.output_path, bytes: row.output_bytes };
  }
}

/** A promise settled from outside; a rejection nobody awaits is not an unhandled one. */
function settleable(): { promise: Promise<void>; settle: (error?: unknown) => void } {
  let settle!: (error?: unknown) => void;
  const promise = new Promise<void>((resolve, reject) => {
    settle = (error) => (error === undefined ? resolve() : reject(error));
  });
  promise.catch(() => {});
  return { promise, settle };
}
