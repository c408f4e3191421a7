// The video scheduler's work queue: steps of one task never overlap nor run from a stale row,
// at most `concurrency` run at once, and a slow one holds up only its own task.
import { describe, expect, it } from 'vitest';
import { StepQueue } from '../../electron/core/videos/step-queue.js';

class Gate {
  open!: () => void;
  readonly opened = new Promise<void>((resolve) => (this.open = resolve));
}

const row = (id: string) => ({ id });

describe('StepQueue', () => {
  it('a scan does not wait for the slow step of an earlier scan, and skips that task while it steps', async () => {
    const slow = new Gate();
    const stepped: string[] = [];
    const queue = new StepQueue<{ id: string }>(4, async (r) => {
      stepped.push(r.id);
      if (r.id === 'a') await slow.opened;
    });
    const first = await queue.scan(async () => [row('a')]);
    const second = await queue.scan(async () => [row('a'), row('b')]);
    await Promise.all(second);
    expect(stepped).toEqual(['a', 'b']);
    slow.open();
    await Promise.all(first);
    await queue.idle();
  });

  it('a task whose step ended while a scan was reading is not stepped again from the stale row', async () => {
    const step = new Gate();
    const stepped: string[] = [];
    const queue = new StepQueue<{ id: string }>(4, async (r) => {
      stepped.push(r.id);
      await step.opened;
    });
    const first = await queue.scan(async () => [row('a')]);
    const reading = new Gate();
    // The second scan read 'a' while its step was still running, and finishes reading after it ended.
    const second = queue.scan(async () => {
      await reading.opened;
      return [row('a')];
    });
    step.open();
    await Promise.all(first);
    reading.open();
    expect(await second).toEqual([]);
    expect(stepped).toEqual(['a']);
  });

  it('runs at most `concurrency` steps at once and queues the rest', async () => {
    let running = 0;
    let most = 0;
    const queue = new StepQueue<{ id: string }>(2, async () => {
      most = Math.max(most, ++running);
      await new Promise((r) => setTimeout(r, 5));
      running--;
    });
    const steps = await queue.scan(async () => ['a', 'b', 'c', 'd', 'e'].map(row));
    await Promise.all(steps);
    expect(steps).toHaveLength(5);
    expect(most).toBe(2);
  });
});
