// The built-in video engine behind the provider interface. Jobs render in worker threads (the
// engine's pool); their state lives in memory, so after a restart a poll answers "unknown" and
// the scheduler submits the job again (rendering is deterministic, so nothing is lost).
import { readFile, rm } from 'node:fs/promises';
import type { Logger } from '../../logger.js';
import type { VideoJob, VideoPoll, VideoProvider } from '../provider.js';
import { LOCAL_PROVIDER_ID } from './local-models.js';

type VideoEngine = typeof import('../../../engine/video/index.js');
let engine: Promise<VideoEngine> | null = null;
const loadEngine = (): Promise<VideoEngine> => (engine ??= import('../../../engine/video/index.js'));

interface LocalJob {
  state: VideoPoll;
  abort: AbortController;
  /** Settles once the render has stopped: true when it put its MP4 in place. */
  rendered: Promise<boolean>;
}

export class LocalVideoProvider implements VideoProvider {
  readonly id = LOCAL_PROVIDER_ID;
  readonly kind = 'local';
  private readonly jobs = new Map<string, LocalJob>();
  private readonly listeners = new Set<(taskId: string) => void>();

  constructor(private readonly logger: Logger) {}

  onVideoUpdate(listener: (taskId: string) => void): void {
    this.listeners.add(listener);
  }

  async submitVideo(job: VideoJob): Promise<string> {
    const reference = job.referencePaths[0] ? await readFile(job.referencePaths[0]) : undefined;
    const { renderVideo } = await loadEngine();
    const existing = this.jobs.get(job.taskId);
    existing?.abort.abort();
    const abort = new AbortController();
    let lastReported = -1;
    const local: LocalJob = { state: { state: 'queued', progress: 0 }, abort, rendered: Promise.resolve(false) };
    this.jobs.set(job.taskId, local);
    local.rendered = renderVideo(
      { prompt: job.prompt, width: job.width, height: job.height, seconds: job.seconds, ...(reference ? { reference } : {}) },
      job.outputPath,
      {
        signal: abort.signal,
        onProgress: (percent) => {
          local.state = { state: 'in_progress', progress: Math.min(99, percent) };
          // Report every 5% so the database sees steady progress without a write per frame.
          if (percent - lastReported >= 5) {
            lastReported = percent;
            this.notify(job.taskId);
          }
        },
      },
    ).then(
      (video) => {
        local.state = { state: 'completed', output: { kind: 'file', path: video.path } };
        this.notify(job.taskId);
        return true;
      },
      (error: Error) => {
        if (error.name === 'AbortError') return false;
        this.logger.error({ taskId: job.taskId, err: error }, 'local video render failed');
        local.state = { state: 'failed', message: 'The local engine could not render this video.' };
        this.notify(job.taskId);
        return false;
      },
    );
    return job.taskId;
  }

  async pollVideo(job: VideoJob): Promise<VideoPoll> {
    const local = this.jobs.get(job.taskId);
    if (!local) return { state: 'unknown' };
    if (local.state.state === 'completed' || local.state.state === 'failed') this.jobs.delete(job.taskId);
    return local.state;
  }

  /**
   * Stops the render and returns once it has stopped. Its task has ended without completing, so an
   * MP4 the render put in place before the abort took (it finished just after the task ended) goes.
   */
  async cancelVideo(job: VideoJob): Promise<void> {
    const local = this.jobs.get(job.taskId);
    if (!local) return;
    local.abort.abort();
    this.jobs.delete(job.taskId);
    if (await local.rendered) await rm(job.outputPath, { force: true });
  }

  /** Stops every render (server shutdown); the tasks resume at the next start. */
  async shutdown(): Promise<void> {
    for (const local of this.jobs.values()) local.abort.abort();
    this.jobs.clear();
    if (engine) await (await engine).shutdownVideoWorkers();
  }

  private notify(taskId: string): void {
    for (const listener of this.listeners) listener(taskId);
  }
}
