// The video scheduler's work queue. Each task's step runs on its own, at most `concurrency` at
// once, and a scan of due tasks starts without waiting for the steps of earlier scans: one slow
// step (a large video downloading for minutes) holds up only its own task.

export class StepQueue<Row extends { id: string }> {
  private readonly waiting: { row: Row; done: () => void }[] = [];
  /** Tasks queued or stepping, with the end of their step. */
  private readonly claimed = new Map<string, Promise<void>>();
  /** Per scan under way: the tasks whose step ended meanwhile (the rows it read of them are stale). */
  private readonly scans = new Set<Set<string>>();
  private running = 0;

  constructor(
    private readonly concurrency: number,
    /** One task's step; it must not reject. */
    private readonly step: (row: Row) => Promise<void>,
  ) {}

  /**
   * Queues the rows `read` returns, but not a task already queued or stepping, nor one whose step
   * ended while they were read (a second step from a stale row could submit a task twice).
   * Returns the ends of the steps it queued.
   */
  async scan(read: () => Promise<Row[]>): Promise<Promise<void>[]> {
    const endedMeanwhile = new Set<string>();
    this.scans.add(endedMeanwhile);
    let rows: Row[];
    try {
      rows = await read();
    } finally {
      this.scans.delete(endedMeanwhile);
    }
    const steps = rows.filter((row) => !this.claimed.has(row.id) && !endedMeanwhile.has(row.id)).map((row) => this.claim(row));
    this.drain();
    return steps;
  }

  /** Resolves when every step queued so far has ended. */
  async idle(): Promise<void> {
    await Promise.all(this.claimed.values());
  }

  private claim(row: Row): Promise<void> {
    const ended = new Promise<void>((done) => this.waiting.push({ row, done }));
    this.claimed.set(row.id, ended);
    return ended;
  }

  private drain(): void {
    while (this.running < this.concurrency && this.waiting.length > 0) {
      const { row, done } = this.waiting.shift()!;
      this.running++;
      void this.step(row).finally(() => {
        this.running--;
        this.claimed.delete(row.id);
        for (const ended of this.scans) ended.add(row.id);
        done();
        this.drain();
      });
    }
  }
}
