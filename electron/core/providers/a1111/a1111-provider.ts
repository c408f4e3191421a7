// AUTOMATIC1111 / Forge behind the gateway (images only): POST /sdapi/v1/txt2img or img2img
// with the checkpoint chosen per request, bounded by the provider's timeout; progress read from
// GET /sdapi/v1/progress while it runs; POST /sdapi/v1/interrupt when the client leaves or the
// timeout ends it, so the GPU does not go on for no one.
//
// The engine runs one generation at a time for everyone (api.py: `with self.queue_lock`), and
// its progress and interrupt are global, not per request. So this adapter sends one generation
// at a time per engine: the progress it reads is its own job's, and an interrupt stops its own
// job, never another client's job that happened to be running while this one waited in the
// engine's queue. (Work started from the engine's own UI is outside the gateway's reach.)
import { setTimeout as sleep } from 'node:timers/promises';
import { GatewayError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { PROVIDER_KIND_INFO } from '../../../../shared/provider-kinds.js';
import type { ImageEditJob, ImageJob, ImageOutcome, ImageProvider } from '../provider.js';
import type { UpstreamClient, UpstreamProviderConfig } from '../upstream/upstream-client.js';
import { UpstreamAdapter } from '../upstream/upstream-adapter.js';
import { UpstreamStatusError } from '../upstream/upstream-errors.js';
import { fromUpstream } from './a1111-errors.js';
import { img2imgBody, imageOfAnswer, isObject, substitutions, txt2imgBody, type Txt2ImgBody } from './a1111-mapping.js';

export interface A1111ProviderConfig extends UpstreamProviderConfig {
  /** Pause between progress reads while a generation runs (default 500 ms). */
  progressPollMs?: number;
}

/** The Basic authorization of a USER:PASS key (the engine's --api-auth), or none. */
export function basicAuth(key: string | null): Record<string, string> {
  return key ? { authorization: `Basic ${Buffer.from(key, 'utf8').toString('base64')}` } : {};
}

/** Past the provider's timeout, so that the adapter's own timer (which says which ended it) always fires first. */
const DEADLINE_MARGIN_MS = 5_000;

export class A1111Provider extends UpstreamAdapter<A1111ProviderConfig> implements ImageProvider {
  readonly kind = 'a1111';

  constructor(
    config: A1111ProviderConfig,
    http: UpstreamClient,
    private readonly logger: Logger,
  ) {
    super(config, http);
  }

  async generateImage(job: ImageJob): Promise<ImageOutcome> {
    return this.run(job, '/sdapi/v1/txt2img', () => Promise.resolve(txt2imgBody(job)));
  }

  async editImage(job: ImageEditJob): Promise<ImageOutcome> {
    return this.run(job, '/sdapi/v1/img2img', () => img2imgBody(job));
  }

  private async run(job: ImageJob, path: string, makeBody: () => Promise<Txt2ImgBody>): Promise<ImageOutcome> {
    const body = await makeBody();
    return inLine(this.base, job.signal, async () => {
      const timeoutMs = this.timeoutFor(job, PROVIDER_KIND_INFO.a1111.defaultTimeoutMs);
      const controller = new AbortController();
      let ended: 'timeout' | 'left' | null = null;
      const timer = setTimeout(() => {
        ended ??= 'timeout';
        controller.abort();
      }, timeoutMs);
      const leave = () => {
        ended ??= 'left';
        controller.abort();
      };
      if (job.signal?.aborted) leave();
      else job.signal?.addEventListener('abort', leave, { once: true });
      // Not awaited: it ends by itself once the signal is aborted (a read in flight then finishes unheard).
      if (job.onProgress) void this.watchProgress(job.onProgress, controller.signal);
      try {
        // Through the shared client, its own deadline just past the provider's timeout: the engine
        // answers only when the image is done, and the timer above says which end came first.
        const { body: answer } = await this.http.json<unknown>({
          method: 'POST',
          url: `${this.base}${path}`,
          headers: basicAuth(this.config.apiKey()),
          json: body,
          timeoutMs: timeoutMs + DEADLINE_MARGIN_MS,
          signal: controller.signal,
        });
        const image = await imageOfAnswer(answer);
        const swapped = substitutions(image.info, body);
        if (swapped.length > 0) this.logger.warn({ provider: this.id, used: swapped }, 'a1111 used other settings than asked (unknown to the engine?)');
        if (image.seed !== null) this.logger.debug({ provider: this.id, seed: image.seed }, 'a1111 image generated');
        controller.abort(); // no progress read may land after the 100
        job.onProgress?.(100);
        return { bytes: image.bytes, ...(image.b64 ? { b64: image.b64 } : {}), usage: this.estimateImageUsage(job) };
      } catch (error) {
        // The engine's own answer (a refusal, or a broken 2xx) stands even if the end came meanwhile;
        // the shared client gives an aborted call as upstream_unavailable, which is then this end.
        if (!ended || !endedByUs(error)) throw fromUpstream(error, body);
        // The call was ended here: the engine would go on rendering for no one.
        await this.interrupt();
        if (ended === 'left') throw new GatewayError('upstream_unavailable', 'The image request was cancelled.');
        throw new GatewayError('upstream_unavailable', `The AUTOMATIC1111/Forge engine did not finish the image within the provider\u2019s timeout (${Math.round(timeoutMs / 1000)} s).`);
      } finally {
        clearTimeout(timer);
        job.signal?.removeEventListener('abort', leave);
        controller.abort(); // stops the progress reads
      }
    });
  }

  /** POST /sdapi/v1/interrupt: the engine stops its current job at the next step. */
  private async interrupt(): Promise<void> {
    try {
      await this.http.json({ method: 'POST', url: `${this.base}/sdapi/v1/interrupt`, headers: basicAuth(this.config.apiKey()), timeoutMs: 10_000 });
    } catch (error) {
      this.logger.warn({ provider: this.id, err: error instanceof Error ? error.message : String(error) }, 'a1111 interrupt failed');
    }
  }

  /**
   * Reads the engine's progress until `signal` ends, reporting it (0-99, never backwards) as it
   * grows. Progress is 0-1 of the engine's whole job (api.py progressapi); an idle engine
   * (job_count 0: this job still loading its checkpoint) says nothing. A failed read is skipped.
   */
  private async watchProgress(report: (percent: number) => void, signal: AbortSignal): Promise<void> {
    const url = `${this.base}/sdapi/v1/progress?skip_current_image=true`;
    let last = -1;
    while (!signal.aborted) {
      try {
        await sleep(this.config.progressPollMs ?? 500, undefined, { signal });
        // Without the signal: a read cut short would be logged as a failed upstream call.
        const { body } = await this.http.json<unknown>({ method: 'GET', url, headers: basicAuth(this.config.apiKey()), timeoutMs: 10_000 });
        const percent = progressPercent(body);
        if (percent !== null && percent > last && !signal.aborted) {
          last = percent;
          report(percent);
        }
      } catch {
        // Aborted (the run ended) or a read that failed: the next one may do.
      }
    }
  }
}

/** Whether a failed generation call is one this adapter ended (an abort), not an answer of the engine. */
function endedByUs(error: unknown): boolean {
  return !(error instanceof GatewayError) || (error.code === 'upstream_unavailable' && !(error instanceof UpstreamStatusError));
}

/** The percent of a /sdapi/v1/progress answer, or null when it says nothing about a running job. */
export function progressPercent(body: unknown): number | null {
  if (!isObject(body) || typeof body.progress !== 'number' || !Number.isFinite(body.progress)) return null;
  const state = isObject(body.state) ? body.state : {};
  if (state.job_count === 0) return null;
  return Math.max(0, Math.min(99, Math.floor(body.progress * 100)));
}

/** The generation each engine (by base URL) is running or waiting for, for inLine(). */
const lines = new Map<string, Promise<void>>();

/**
 * Runs `work` after every earlier generation at the same engine has ended. A caller that leaves
 * while waiting is dropped from the line without reaching the engine.
 */
async function inLine<T>(engine: string, signal: AbortSignal | undefined, work: () => Promise<T>): Promise<T> {
  const before = lines.get(engine) ?? Promise.resolve();
  let done!: () => void;
  const mine = new Promise<void>((resolve) => (done = resolve));
  const tail = before.then(() => mine);
  lines.set(engine, tail);
  try {
    await waitUnlessAborted(before, signal);
    return await work();
  } finally {
    done();
    if (lines.get(engine) === tail) lines.delete(engine);
  }
}

async function waitUnlessAborted(turn: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return turn;
  const cancelled = () => new GatewayError('upstream_unavailable', 'The image request was cancelled.');
  if (signal.aborted) throw cancelled();
  let onAbort!: () => void;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(cancelled());
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([turn, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
