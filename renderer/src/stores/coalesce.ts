// Reloads triggered by bursts of events (a video's progress, several billing changes) must not
// pile up requests: one load runs at a time, and calls arriving meanwhile cause exactly one rerun.
export function coalesce(load: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | null = null;
  let again = false;
  return () => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          await load();
        } while (again);
      } finally {
        running = null;
      }
    })();
    return running;
  };
}
