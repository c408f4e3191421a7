// One Runway task and its lifecycle, moved on by its reads (no timers: each GET /v1/tasks/{id}
// answers the next of its steps, then its end), so a test sees exactly the states it scripted.
// From the SDK's src/resources/tasks.ts: PENDING, THROTTLED, RUNNING (progress 0..1), SUCCEEDED
// (output: URLs that "expire within 24-48 hours; fetch the task again to get fresh URLs"),
// FAILED (failure, failureCode), CANCELLED; DELETE cancels a pending, throttled or running task
// and deletes any other ("aborted and deleted tasks will not be able to be fetched again").
// Guesses: a cancelled task still reads CANCELLED (the SDK's Cancelled type is "a cancelled or
// deleted task"); deleting an ended task makes it a 404.
import { randomUUID } from 'node:crypto';
import type { RunwayEndpoint } from './runway-schemas.js';

export type RunwayStatus = 'PENDING' | 'THROTTLED' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED';

/** A state a task reports before it ends. */
export type RunwayStep = { status: 'PENDING' | 'THROTTLED' } | { status: 'RUNNING'; progress: number };

/** How a task ends. */
export type RunwayEnd = { status: 'SUCCEEDED' } | { status: 'FAILED'; failureCode?: string; failure?: string };

/** Settings snapshotted by each new task; mutable on the emulator (`behaviour`). */
export interface RunwayBehaviour {
  /** The states each read answers before the end (default PENDING, RUNNING 0.5). */
  steps: RunwayStep[];
  end: RunwayEnd;
  /** New tasks stop at their last step until released (RunwayEmulator.release). */
  hold: boolean;
  /** What a video output is: a playable H.264 MP4, or a WebM header (not an MP4). */
  videoContainer: 'mp4' | 'webm';
}

export class RunwayTask {
  readonly id = randomUUID();
  readonly createdMs = Date.now();
  readonly createdAt = new Date(this.createdMs).toISOString();
  readonly steps: RunwayStep[];
  readonly end: RunwayEnd;
  held: boolean;
  cancelled = false;
  reads = 0;
  /** When it was last read (ms), for the poll-rate check. */
  lastReadAt: number | null = null;
  /** Output tokens issued so far (each read of a finished task issues a fresh one); expired ones are gone. */
  readonly tokens = new Set<string>();

  constructor(
    readonly endpoint: RunwayEndpoint,
    readonly body: Record<string, unknown>,
    behaviour: RunwayBehaviour,
  ) {
    this.steps = behaviour.steps.map((step) => ({ ...step }));
    this.end = { ...behaviour.end };
    this.held = behaviour.hold;
  }

  get kind(): 'image' | 'video' {
    return this.endpoint === 'text_to_image' ? 'image' : 'video';
  }

  /** What it reports now, without reading it. */
  get state(): RunwayStep | RunwayEnd | { status: 'CANCELLED' } {
    if (this.cancelled) return { status: 'CANCELLED' };
    if (this.reads < this.steps.length) return this.steps[this.reads]!;
    if (this.held) return this.steps.at(-1) ?? { status: 'PENDING' };
    return this.end;
  }

  get ended(): boolean {
    const status = this.state.status;
    return status === 'SUCCEEDED' || status === 'FAILED' || status === 'CANCELLED';
  }

  /** One read: the state it answers, then the lifecycle moves on by one step. */
  read(now: number): RunwayStep | RunwayEnd | { status: 'CANCELLED' } {
    const state = this.state;
    this.lastReadAt = now;
    if (this.reads < this.steps.length) this.reads += 1;
    return state;
  }

  /** The output size, from the ratio it was asked for ("1280:720"). */
  size(): { width: number; height: number } {
    const [width = 1280, height = 720] = String(this.body.ratio ?? '1280:720').split(':').map(Number);
    return { width: width || 1280, height: height || 720 };
  }

  seconds(): number {
    return typeof this.body.duration === 'number' ? this.body.duration : 5;
  }
}
