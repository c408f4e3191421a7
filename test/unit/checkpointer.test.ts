// A serving gateway checkpoints its WAL from a child process (store/checkpointer.ts): its own
// commits never checkpoint (so never fsync), and the WAL still stops growing, because the
// child's checkpoints let the next write start it over.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createGateway, startBackgroundWork } from '../../electron/core/gateway.js';
import { tempDir } from '../helpers/gateway.js';

/**
 * What SQLite's wal-index (the -shm file) says, read as bytes (wal.c's WalIndexHdr and
 * WalCkptInfo, native byte order): the last frame in the WAL and how many are copied back.
 */
function walIndex(dataDir: string): { mxFrame: number; nBackfill: number } {
  const shm = readFileSync(join(dataDir, 'gateway.db-shm'));
  return { mxFrame: shm.readUInt32LE(16), nBackfill: shm.readUInt32LE(96) };
}

/** Resolves once `check` holds, polling; fails after `ms`. */
async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('WAL checkpoints in the background', () => {
  it('commits do not checkpoint while serving, and the WAL stops growing all the same', async () => {
    const dataDir = tempDir('mgw-ckpt-');
    const gateway = await createGateway({ dataDir });
    const { key } = await gateway.keys.create({ access: 'balance', balanceNano: 1_000_000_000_000 });
    const account = (await gateway.keys.accountOf(key.id))!;
    const autocheckpoint = () => (gateway.store.raw.pragma('wal_autocheckpoint') as { wal_autocheckpoint: number }[])[0]!.wal_autocheckpoint;
    expect(autocheckpoint()).toBe(1000);
    await startBackgroundWork(gateway, 'test');
    try {
      // The child starts a moment after the start; until then SQLite's own checkpoints stay on.
      expect(autocheckpoint()).toBe(1000);
      await until(() => autocheckpoint() === 0, 10_000, 'the checkpoint process to start');
      const walBytes = () => statSync(join(dataDir, 'gateway.db-wal')).size;
      const sizes: number[] = [];
      const frames: number[] = [];
      for (let round = 0; round < 6; round++) {
        // Each round writes ~1,000 WAL pages: without checkpoints the file would grow each time.
        for (let i = 0; i < 300; i++) await gateway.billing.topUp(account, 1);
        sizes.push(walBytes());
        const written = walIndex(dataDir);
        frames.push(written.mxFrame);
        expect(written.mxFrame, 'the commits checkpointed themselves').toBeGreaterThan(written.nBackfill);
        // Only the child checkpoints: every frame is copied back without this process's help.
        await until(() => {
          const now = walIndex(dataDir);
          return now.nBackfill === now.mxFrame;
        }, 10_000, 'the child to checkpoint the WAL');
      }
      // A write after a complete checkpoint starts the WAL over (unless the child is checkpointing
      // at that very moment: then it goes on appending, and the next round starts it over). So
      // the WAL's frames stay within a few rounds' worth instead of adding up over six rounds.
      expect(Math.max(...frames.slice(1))).toBeLessThanOrEqual(3 * frames[0]!);
      expect(Math.max(...sizes)).toBeLessThanOrEqual(3 * sizes[0]!);
      expect((await gateway.billing.getAccount(account)).balance_nano).toBe(1_000_000_000_000 + 1_800);
    } finally {
      await gateway.close();
    }
  });
});
