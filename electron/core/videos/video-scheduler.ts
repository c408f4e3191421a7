// Drives video tasks to an end in the background, whether or not any client polls: polls the
// provider of every active task, records progress, and makes the terminal transitions (which end
// the hold). It resumes from the database at start, so tasks survive a crash or restart.
import type { Clock } from '../clock.js';
import { isGatewayError } from '../errors.js';
import { ProviderUnreached } from '../providers/upstream/upstream-errors.js';
import type { Logger } from '../logger.js';
import type { VideoJob, VideoPoll, VideoProvider } from '../providers/provider.js';
import type { ProviderRegistry } from '../providers/registry.js';
import type { VideoTaskRow } from '../store/schema.js';
import type { VideoFiles } from './reference-store.js';
import { FailureBackoff } from './failure-backoff.js';
import { RepeatedAnswers } from './repeated-answers.js';
import { StepQueue } from './step-queue.js';
import { UpstreamCancels } from './upstream-cancels.js';
import { videoDimensions } from './video-pricing.js';
import { readEngineOptions } from './engine-options.js';
import type { VideoTaskStore } from './video-task-store.js';

export interface SchedulerOptions {
  /** How often active tasks are polled (local tasks also push updates between ticks). */
  intervalMs?: number;
  /** Task steps (a poll, a submission, a download) run at once. */
  concurrency?: number;
}

type Listener = (taskId: string) => void;

/** The longest rest after a step the gateway could not write: storage comes back, and then the task should too. */
const STEP_RETRY_CAP_MS = 10_000;

export class VideoScheduler {
  private timer: NodeJS.Timeout | null = null;
  /** The background scan under way; the steps it queued run on in `steps`. */
  private scanning: Promise<void> | null = null;
  private again = false;
  /** settled() callers waiting for the next background scan to start and end. */
  private nextScanWaiters: (() => void)[] = [];
  private stopped = true;
  /** Providers' push updates are heard from the first start on (the registry keeps the listener). */
  private listening = false;
  private readonly listeners = new Set<Listener>();
  /** Failed polls in a row per task (Retry-After, else backoff capped at a minute). */
  private readonly pollFailures: FailureBackoff;
  /** Poll answers in a row per task that end it when repeated. */
  private readonly repeatedAnswers = new RepeatedAnswers();
  /**
   * Tasks whose last step failed inside the gateway (storage that cannot be written): left
   * alone until the time here, backing off, instead of retried (and a local render restarted) every tick.
   */
  private readonly resting = new Map<string, number>();
  private readonly stepFailures: FailureBackoff;
  private readonly cancels: UpstreamCancels;
  private readonly intervalMs: number;
  private readonly steps: StepQueue<VideoTaskRow>;

  constructor(
    private readonly tasks: VideoTaskStore,
    private readonly providers: ProviderRegistry,
    private readonly files: VideoFiles,
    private readonly clock: Clock,
    private readonly logger: Logger,
    options: SchedulerOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 500;
    this.pollFailures = new FailureBackoff(this.intervalMs, 60_000);
    this.stepFailures = new FailureBackoff(this.intervalMs, STEP_RETRY_CAP_MS);
    this.cancels = new UpstreamCancels(tasks, providers, clock, logger, this.intervalMs, (row) => this.jobOf(row));
    this.steps = new StepQueue(options.concurrency ?? 16, (row) =>
      this.process(row).then(
        () => {
          this.resting.delete(row.id);
          this.stepFailures.forget(row.id);
        },
        (error: unknown) => this.rest(row.id, error),
      ),
    );
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    if (!this.listening) {
      this.listening = true;
      this.providers.onVideoUpdate((taskId) => {
        if (this.stopped) return;
        // Make the task due now, so its change is recorded without waiting for the next tick.
        this.tasks
          .schedulePoll(taskId, 0)
          .then(() => this.poke())
          // Storage trouble here only delays the update: the next tick polls the task anyway.
          .catch((error: unknown) => this.logger.warn({ err: error, taskId }, 'could not mark a video task due'));
      });
    }
    this.timer = setInterval(() => this.poke(), this.intervalMs);
    this.timer.unref();
    this.poke();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    for (const resolve of this.nextScanWaiters.splice(0)) resolve();
    await this.scanning;
    await this.steps.idle();
  }

  /**
   * An observable hook for tests: resolves once a background scan that started after this call
   * has ended, and every step queued by then has ended too: the scheduler has looked at the due
   * tasks and done what it found, so "and nothing more happens" can be awaited instead of timed.
   * A stopped scheduler scans no more: then it waits for the steps alone.
   */
  async settled(): Promise<void> {
    if (!this.stopped) await new Promise<void>((resolve) => this.nextScanWaiters.push(resolve));
    await this.steps.idle();
  }

  /** Task status changes, for the studio's push events. */
  onTaskChange(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Queues the steps of the due tasks now (or right after the scan in progress), without
   * waiting for the steps queued before: a slow one (a long download) holds up only its task.
   */
  poke(): void {
    if (this.stopped) return;
    if (this.scanning) {
      this.again = true;
      return;
    }
    const waiters = this.nextScanWaiters.splice(0);
    this.scanning = this.startDue()
      .then(() => undefined)
      .catch((error: unknown) => this.logger.error({ err: error }, 'video scheduler tick failed'))
      .finally(() => {
        this.scanning = null;
        for (const resolve of waiters) resolve();
        if (this.again) {
          this.again = false;
          this.poke();
        }
      });
  }

  /** One pass over the due tasks, resolved when their steps have ended; tests drive the scheduler with it. */
  async tick(): Promise<void> {
    await Promise.all(await this.startDue());
  }

  /**
   * Queues a step for every due task not already in hand (nor resting), and starts the pending
   * upstream cancels that are due; returns their ends.
   */
  private async startDue(): Promise<Promise<void>[]> {
    // Cancels first: a task that ends in one of this scan's steps sends its own cancel.
    const retries = await this.cancels.retryDue();
    const steps = await this.steps.scan(async () => {
      const now = this.clock.now();
      return (await this.tasks.due(now, 500)).filter((row) => (this.resting.get(row.id) ?? 0) <= now);
    });
    return [...retries, ...steps];
  }

  jobOf(row: VideoTaskRow): VideoJob {
    const { width, height } = videoDimensions(row.size);
    const references = JSON.parse(row.reference_files) as string[];
    return {
      taskId: row.id,
      modelId: row.model,
      upstreamModel: row.upstream_model,
      requestType: row.request_type,
      prompt: row.prompt,
      seconds: row.seconds,
      size: row.size,
      width,
      height,
      referencePaths: references.map((name) => this.files.referencePath(name)),
      outputPath: this.files.outputPath(row.id),
      ...readEngineOptions(row.engine_json),
    };
  }

  /**
   * Ends an active task with its upstream job cancelled. The end writes the cancel as pending, so
   * one that fails, or never runs because the process stopped, is tried again by later scans (see
   * upstream-cancels.ts). Returns the task as it was, or null when it had already ended.
   */
  endWithCancel(id: string, status: 'failed' | 'timeout', code: string, message: string): Promise<VideoTaskRow | null> {
    return this.cancels.endThenCancel(id, () => this.tasks.fail(id, status, code, message, true), (row) => this.ended(row.id));
  }

  /**
   * Records the job a submission took (`replacing` the one on record). A job the task will not
   * follow is cancelled upstream: the task ended while the provider was taking it, or it follows
   * another job already (a second one, on no row: cancelled once, best effort).
   */
  async recordJob(row: VideoTaskRow, upstreamId: string, replacing: string | null, provider: VideoProvider): Promise<void> {
    const firstPollAt = provider.firstPollAfterMs ? this.clock.now() + provider.firstPollAfterMs : 0;
    let outcome = 'recorded' as 'recorded' | 'ended' | 'surplus';
    await this.cancels.endThenCancel(
      row.id,
      async () => {
        outcome = await this.tasks.setUpstream(row.id, upstreamId, replacing, firstPollAt);
        return outcome === 'ended' ? { ...row, upstream_id: upstreamId } : null;
      },
      (ended) => this.ended(ended.id),
    );
    if (outcome === 'surplus') await this.cancels.cancelOnce(row, upstreamId);
  }

  private async process(row: VideoTaskRow): Promise<void> {
    const now = this.clock.now();
    if (now >= row.deadline_at) {
      if (await this.endWithCancel(row.id, 'timeout', 'timeout', `The task did not finish within its time limit.`)) {
        this.logger.warn({ taskId: row.id }, 'video task timed out');
      }
      return;
    }
    let provider: VideoProvider;
    try {
      provider = await this.providers.video(row.provider_id);
    } catch (error) {
      // Only a provider that is gone ends the task; the database unreadable for a moment (it
      // holds the provider's row) is a step to retry.
      if (!(error instanceof ProviderUnreached)) throw error;
      this.logger.warn({ taskId: row.id, providerId: row.provider_id, reason: error.reason }, 'video task failed: its provider is not usable');
      if (await this.tasks.fail(row.id, 'failed', 'provider_unavailable', 'The provider of this task is no longer configured.')) this.ended(row.id);
      return;
    }
    const job = this.jobOf(row);
    if (!row.upstream_id) {
      await this.submit(provider, row, job);
      return;
    }
    let poll: VideoPoll;
    try {
      poll = await provider.pollVideo(job, row.upstream_id);
      this.pollFailures.forget(row.id);
      this.repeatedAnswers.forget(row.id);
    } catch (error) {
      // The upstream refusing the task (400/404/422) ends it, and so does a run of unreadable
      // answers (or of ones a provider marks so); anything else (rate limit, network, one such
      // answer) is not a task failure:
      // poll again later, backing off with jitter.
      if (isGatewayError(error) && error.code === 'upstream_bad_request') {
        if (await this.tasks.fail(row.id, 'failed', 'generation_failed', 'The upstream provider rejected the task.')) this.ended(row.id);
        return;
      }
      const ending = this.repeatedAnswers.count(row.id, error);
      if (ending) {
        const ended = ending.cancelUpstream
          ? await this.endWithCancel(row.id, 'failed', ending.code, ending.message)
          : await this.tasks.fail(row.id, 'failed', ending.code, ending.message);
        if (ended) {
          this.logger.warn({ taskId: row.id, code: ending.code }, 'video task failed: the upstream kept answering so');
          if (!ending.cancelUpstream) this.ended(row.id);
        }
        return;
      }
      // From when the refusal came, not from when the poll set out: a Retry-After counts from the answer.
      await this.tasks.schedulePoll(row.id, this.clock.now() + this.pollFailures.fail(row.id, error).waitMs);
      return;
    }
    await this.apply(provider, row, job, poll);
  }

  private rest(taskId: string, error: unknown): void {
    const { failures, waitMs } = this.stepFailures.fail(taskId, error);
    this.resting.set(taskId, this.clock.now() + waitMs);
    // The first failure of a run and every tenth: a dead disk must not also flood the log.
    if (failures === 1 || failures % 10 === 0) this.logger.error({ err: error, taskId, failures }, 'video task step failed');
  }

  private async apply(provider: VideoProvider, row: VideoTaskRow, job: VideoJob, poll: VideoPoll): Promise<void> {
    switch (poll.state) {
      case 'queued':
      case 'in_progress':
        if (await this.tasks.progress(row.id, poll.state, poll.progress)) this.emit(row.id);
        await this.tasks.schedulePoll(row.id, this.clock.now() + Math.max(this.intervalMs, provider.pollIntervalMs ?? 0));
        return;
      case 'completed':
        if (await this.tasks.complete(row.id, poll.output)) this.ended(row.id);
        return;
      case 'failed':
        if (await this.tasks.fail(row.id, 'failed', 'generation_failed', poll.message)) this.ended(row.id);
        return;
      case 'unknown':
        this.logger.info({ taskId: row.id }, 'resuming video task');
        await this.submit(provider, row, job);
        return;
    }
  }

  private async submit(provider: VideoProvider, row: VideoTaskRow, job: VideoJob): Promise<void> {
    let upstreamId: string;
    try {
      upstreamId = await provider.submitVideo(job);
    } catch (error) {
      const message = isGatewayError(error) ? error.message : 'The provider did not accept the task.';
      if (await this.tasks.fail(job.taskId, 'failed', 'generation_failed', message)) this.ended(job.taskId);
      return;
    }
    // A write that fails here is the gateway's trouble, not the task's: it rests and is submitted again.
    // Cancelled (or timed out) while the provider was taking it, or already following the job of
    // a creation that was slow to answer: the job it took is cancelled.
    await this.recordJob(row, upstreamId, row.upstream_id, provider);
  }

  private emit(taskId: string): void {
    for (const listener of this.listeners) listener(taskId);
  }

  /** A task has ended (here, or by a cancel through endWithCancel): its counters go, listeners hear. */
  private ended(taskId: string): void {
    this.pollFailures.forget(taskId);
    this.repeatedAnswers.forget(taskId);
    this.resting.delete(taskId);
    this.stepFailures.forget(taskId);
    this.emit(taskId);
  }
}
