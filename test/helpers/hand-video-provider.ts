// A remote video provider whose calls stop where a test says (its submission, its poll answer, the
// download of a finished video) until the test lets them go: races forced by hand, not by timing.
import { writeFileSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import { GatewayError } from '../../electron/core/errors.js';
import type { VideoJob, VideoPoll, VideoProvider } from '../../electron/core/providers/provider.js';
import { tinyMp4 } from '../emulators/mp4.js';

/** A point a provider call stops at: `reached` once it is there, and it goes on at open(). */
export class Gate {
  private reach!: () => void;
  private release!: () => void;
  readonly reached = new Promise<void>((resolve) => (this.reach = resolve));
  private readonly opened = new Promise<void>((resolve) => (this.release = resolve));
  async pass(): Promise<void> {
    this.reach();
    await this.opened;
  }
  open(): void {
    this.release();
  }
}

/**
 * A remote provider whose calls stop where the test says. A finished video is downloaded as the
 * OpenAI adapter does: to `<output>.part`, then renamed into place.
 */
export class HandProvider implements VideoProvider {
  readonly kind = 'stub';
  readonly submitTimeoutMs = 1_000;
  readonly submitted: string[] = [];
  readonly cancelled: string[] = [];
  /** What a poll finds upstream ('lost': the upstream does not know the job, as after a restart of the built-in engine). */
  upstream: 'running' | 'completed' | 'lost' = 'running';
  /** Submissions are refused. */
  refuse = false;
  /** Gates for the next submissions, in order. */
  readonly submitGates: Gate[] = [];
  /** Where the next poll stops: after its answer is known (before the gateway writes it), or mid-download. */
  answerGate: Gate | null = null;
  downloadGate: Gate | null = null;
  private submissions = 0;

  constructor(readonly id: string) {}

  async submitVideo(job: VideoJob): Promise<string> {
    await this.submitGates.shift()?.pass();
    if (this.refuse) throw new GatewayError('upstream_unavailable', 'The video provider is temporarily unavailable.');
    this.submitted.push(job.taskId);
    return `up-${job.taskId}-${++this.submissions}`;
  }

  async pollVideo(job: VideoJob): Promise<VideoPoll> {
    if (this.upstream === 'lost') return { state: 'unknown' };
    let answer: VideoPoll = { state: 'in_progress', progress: 42 };
    if (this.upstream === 'completed') {
      const part = `${job.outputPath}.part`;
      writeFileSync(part, tinyMp4({ width: 1280, height: 720, durationMs: job.seconds * 1000 }));
      const gate = this.downloadGate;
      this.downloadGate = null;
      await gate?.pass();
      await rename(part, job.outputPath);
      answer = { state: 'completed', output: { kind: 'file', path: job.outputPath } };
    }
    const gate = this.answerGate;
    this.answerGate = null;
    await gate?.pass();
    return answer;
  }

  /** How the next cancels go, in order (then 'ok'): 'down' is a 503, 'gone' a 404 (nothing to cancel). */
  readonly cancelAnswers: ('ok' | 'down' | 'gone')[] = [];
  /** Every cancel asked for, answered or not. */
  readonly cancelTries: string[] = [];

  async cancelVideo(_job: VideoJob, upstreamId: string): Promise<void> {
    this.cancelTries.push(upstreamId);
    const answer = this.cancelAnswers.shift() ?? 'ok';
    if (answer === 'down') throw new GatewayError('upstream_unavailable', 'The video provider is temporarily unavailable.');
    if (answer === 'gone') throw new GatewayError('upstream_bad_request', 'The upstream provider rejected the request.');
    this.cancelled.push(upstreamId);
  }
}
