// Running sums per key (an account's in-memory holds, a caller's tokens in flight): a key whose
// sum falls to zero is dropped, so the map holds only keys with something in flight.
export class Tally {
  private readonly sums = new Map<string, number>();

  get(key: string): number {
    return this.sums.get(key) ?? 0;
  }

  add(key: string, amount: number): void {
    const sum = this.get(key) + amount;
    if (sum === 0) this.sums.delete(key);
    else this.sums.set(key, sum);
  }
}
