// What bounds one synchronous image call: the provider's timeout and the client leaving. Both
// abort the call, and the deadline remembers which came first, since each is answered in its own
// words (not finished within the timeout; the request cancelled), not as the abort's error.
export type EndedBy = 'timeout' | 'left';

export interface CallDeadline {
  /** Aborts the call when either end comes. */
  readonly signal: AbortSignal;
  /** Which end came first, or null while the call runs. */
  readonly ended: EndedBy | null;
  /** Stops the timer and the watch on the client; call it once the call is over. */
  clear(): void;
}

export function callDeadline(timeoutMs: number, client: AbortSignal | undefined): CallDeadline {
  const controller = new AbortController();
  let ended: EndedBy | null = null;
  const end = (why: EndedBy) => {
    ended ??= why;
    controller.abort();
  };
  const timer = setTimeout(() => end('timeout'), timeoutMs);
  const leave = () => end('left');
  if (client?.aborted) leave();
  else client?.addEventListener('abort', leave, { once: true });
  return {
    signal: controller.signal,
    get ended() {
      return ended;
    },
    clear() {
      clearTimeout(timer);
      client?.removeEventListener('abort', leave);
    },
  };
}
