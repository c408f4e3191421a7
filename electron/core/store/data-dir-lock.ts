// One serving process per data dir. Two would both run the video scheduler over the same tasks
// (a local render twice into one output file, an upstream task submitted and paid twice) and
// release each other's work at start. `mgw serve` and the desktop app share a data dir, so the
// second to start is refused, saying who holds it. The CLI's other commands open the same
// database freely: they take no claim.
//
// The claim is a lock the operating system holds (os-lock.ts) on <data dir>/server-claim.db:
// it ends with its process however that ends, so a restart after a crash is never refused by a
// claim nobody holds. A start while the previous holder is still shutting down waits for it.
import { join } from 'node:path';
import { tryClaim, type ClaimHolder, type HeldClaim } from '../os-lock.js';

export const CLAIM_FILE = 'server-claim.db';
/** How long a start waits for a holder that may be on its way out. */
export const CLAIM_WAIT_MS = 5_000;
const RETRY_MS = 50;

export class DataDirInUse extends Error {}

export class DataDirLock {
  private held: HeldClaim | null = null;
  /** Attempts refused because another process held the claim (what a start waited through). */
  refusedAttempts = 0;

  constructor(
    private readonly dataDir: string,
    private readonly waitMs = CLAIM_WAIT_MS,
  ) {}

  /** Claims the data dir for this process, as `holder` (e.g. "mgw serve"); throws DataDirInUse. */
  async claim(holder: string): Promise<void> {
    if (this.held) return;
    const path = join(this.dataDir, CLAIM_FILE);
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      const result = tryClaim(path, holder);
      if ('release' in result) {
        this.held = result;
        return;
      }
      this.refusedAttempts++;
      if (Date.now() >= deadline) throw new DataDirInUse(inUse(this.dataDir, result.heldBy));
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  }

  /** Gives the claim back (at close); nothing when none was taken. */
  unclaim(): void {
    this.held?.release();
    this.held = null;
  }
}

function inUse(dataDir: string, holder: ClaimHolder | null): string {
  return (
    `The data dir ${dataDir} is already served by ${holder?.note || 'another process'} (pid ${holder?.pid ?? '?'}). ` +
    'Stop it first, or give this one another data dir (--data-dir or MGW_DATA_DIR).'
  );
}
