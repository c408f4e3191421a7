// A video task's prompt followed on ComfyUI's event stream. The engine sends a prompt's events
// only to the client id it was queued with, and a process that did not queue it (this gateway
// after a restart, or the team instance that took the task over from a dead one) can only hear
// them under that id. So a video prompt is queued under an id derived from its task's id, which
// every process working the task knows, on a connection of its own: sharing one id between
// processes would not do, since ComfyUI keeps one socket per id and a newcomer silences the other.
// One task is worked by one process at a time (the data dir lock, team leases), so its id is
// never wanted by two at once.
import type { Logger } from '../../logger.js';
import type { Workflow } from '../templates/placeholders.js';
import { isFinished, PromptProgress } from './comfyui-progress.js';
import { ComfySocket, type ComfyMessage, type SocketBackoff } from './comfyui-socket.js';

/** The client id a video task's prompts are queued with; readable in ComfyUI's queue as the gateway's. */
export function videoClientId(taskId: string): string {
  return `mgw-${taskId}`;
}

export interface FollowSetup {
  base: string;
  logger: Logger;
  backoff: SocketBackoff | undefined;
  taskId: string;
  /** The workflow the prompt runs (its samplers make the progress bar's shares). */
  workflow: Workflow | null;
  /** A percent or the end changed: the task is worth polling now. */
  changed: () => void;
}

export class VideoFollow {
  readonly progress: PromptProgress;
  readonly taskId: string;
  private readonly socket: ComfySocket;
  private readonly changed: () => void;
  private unwatch: (() => void) | null;

  constructor(setup: FollowSetup, promptId: string) {
    this.taskId = setup.taskId;
    this.changed = setup.changed;
    this.progress = new PromptProgress(setup.workflow);
    this.socket = new ComfySocket(setup.base, setup.logger, setup.backoff, videoClientId(setup.taskId));
    this.unwatch = this.socket.watch(promptId, this.hear);
  }

  get clientId(): string {
    return this.socket.clientId;
  }

  /** True once the stream is open (so queueing now misses no step), false after `timeoutMs` or a failed attempt. */
  ready(timeoutMs: number): Promise<boolean> {
    return this.socket.ready(timeoutMs);
  }

  /**
   * The engine queued the prompt under an id of its own (a ComfyUI that ignores the one sent):
   * heard under that one on the same connection, since a second one under this client id would
   * replace it. Watched before the old id is let go, which would close an unwatched socket.
   */
  retarget(promptId: string): void {
    const previous = this.unwatch;
    this.unwatch = this.socket.watch(promptId, this.hear);
    previous?.();
  }

  stop(): void {
    this.unwatch?.();
    this.unwatch = null;
    this.socket.close();
  }

  private readonly hear = (message: ComfyMessage): void => {
    const changed = this.progress.feed(message);
    // After this one the history holds the outcome, which the next poll reads: the stream is done.
    const finished = isFinished(message);
    if (finished) this.stop();
    if (changed || finished) this.changed();
  };
}
