// Waiting for a queued prompt to end. The event stream says when (and how far along it is), but
// /history is the source of truth: it is read at the start, whenever an event says the prompt
// ended, whenever the stream opens or drops, and on a timer (quick while the stream is not
// open, slow as a safety net while it is). A prompt neither queued, running nor in the history
// is one the engine lost (it restarted): the wait ends with `lost` instead of running out.
import { unavailable } from '../upstream/upstream-errors.js';
import type { ComfyEngine } from './comfyui-engine.js';
import { endOf, isFinished } from './comfyui-progress.js';
import type { ComfyMessage, ComfySocket } from './comfyui-socket.js';

export interface WaitPolls {
  /** Between history reads while the event stream is open (a safety net only). */
  openMs: number;
  /** Between history reads while it is not. */
  closedMs: number;
}

export const DEFAULT_WAIT_POLLS: WaitPolls = { openMs: 5_000, closedMs: 1_000 };

export interface WaitOptions {
  engine: ComfyEngine;
  socket: ComfySocket;
  promptId: string;
  /** Epoch ms after which the wait fails as timed out. */
  deadline: number;
  signal?: AbortSignal;
  onMessage?: (message: ComfyMessage) => void;
  polls?: WaitPolls;
}

export type WaitEnd = { state: 'ended'; entry: unknown } | { state: 'lost' };

export async function waitForEnd(options: WaitOptions): Promise<WaitEnd> {
  const { engine, socket, promptId, deadline, signal } = options;
  const polls = options.polls ?? DEFAULT_WAIT_POLLS;
  let poked = false;
  let wake: (() => void) | null = null;
  const poke = () => {
    poked = true;
    wake?.();
  };
  const stopWatch = socket.watch(promptId, (message) => {
    options.onMessage?.(message);
    if (endOf(message) || isFinished(message)) poke();
  });
  const stopState = socket.onState(poke);
  signal?.addEventListener('abort', poke);
  try {
    for (;;) {
      signal?.throwIfAborted();
      poked = false;
      const entry = await engine.history(promptId);
      if (entry !== null) return { state: 'ended', entry };
      // Queue first, then history again: a prompt leaves the queue only as its entry is written.
      if ((await engine.place(promptId)) === 'absent') {
        const late = await engine.history(promptId);
        return late !== null ? { state: 'ended', entry: late } : { state: 'lost' };
      }
      const left = deadline - Date.now();
      if (left <= 0) throw unavailable('timed out');
      if (poked) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(left, socket.open ? polls.openMs : polls.closedMs));
        function done() {
          clearTimeout(timer);
          wake = null;
          resolve();
        }
        wake = done;
      });
    }
  } finally {
    stopWatch();
    stopState();
    signal?.removeEventListener('abort', poke);
  }
}

