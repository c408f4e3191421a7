// Group commit for the charges of synchronous requests. Each image request must have its charge
// written before its answer goes out; under concurrency several finish in the same turn of the
// event loop, and one transaction for all of them costs about what one costs alone (the commit,
// its locks and WAL frames dominate). Each caller still waits for the commit holding its charge.
// Sequential requests see one setImmediate of delay.

interface Pending<T, R> {
  item: T;
  resolve(result: R): void;
  reject(error: unknown): void;
}

export class ChargeBatch<T, R> {
  private pending: Pending<T, R>[] = [];

  constructor(
    /** Runs `write(item)` for each item inside one transaction; throws when the transaction fails. */
    private readonly commit: (write: () => R[]) => Promise<R[]>,
    private readonly write: (item: T) => R,
  ) {}

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (this.pending.length === 1) setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    try {
      const results = await this.commit(() => batch.map((p) => this.write(p.item)));
      batch.forEach((p, i) => p.resolve(results[i]!));
    } catch (error) {
      if (batch.length === 1) return batch[0]!.reject(error);
      // One bad charge must not fail the others: each goes again in its own transaction.
      for (const p of batch) {
        await this.commit(() => [this.write(p.item)]).then(([result]) => p.resolve(result!), p.reject);
      }
    }
  }
}
