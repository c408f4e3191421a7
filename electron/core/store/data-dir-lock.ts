// One serving process per data dir. Two would both run the video scheduler over the same tasks
// (a local render twice into one output file, an upstream task submitted and paid twice) and
// release each other's work at start. `mgw serve` and the desktop app share a data dir, so the
// second to start is refused, saying who holds it. The CLI's other commands open the same
// database freely: they take no lock.
import { join } from 'node:path';
import { holdFileLock } from '../file-lock.js';

export class DataDirInUse extends Error {}

export class DataDirLock {
  private release: (() => void) | null = null;

  constructor(private readonly dataDir: string) {}

  /** Claims the data dir for this process, as `holder` (e.g. "mgw serve"); throws DataDirInUse. */
  claim(holder: string): void {
    if (this.release) return;
    const result = holdFileLock(join(this.dataDir, 'server.lock'), holder);
    if ('release' in result) {
      this.release = result.release;
      return;
    }
    const [pid, , ...note] = result.heldBy.split(' ');
    throw new DataDirInUse(
      `The data dir ${this.dataDir} is already served by ${note.join(' ') || 'another process'} (pid ${pid || '?'}). ` +
        'Stop it first, or give this one another data dir (--data-dir or MGW_DATA_DIR).',
    );
  }

  /** Gives the claim back (at close); nothing when none was taken. */
  unclaim(): void {
    this.release?.();
    this.release = null;
  }
}
