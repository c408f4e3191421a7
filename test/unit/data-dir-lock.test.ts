// One serving process per data dir, claimed with a lock the operating system holds: refused while
// its holder lives (in this process or another), waited for while its holder is on its way out,
// free the moment its holder dies however it dies, and never blocked by an older version's
// server.lock file.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, startBackgroundWork } from '../../electron/core/gateway.js';
import { CLAIM_FILE, DataDirInUse } from '../../electron/core/store/data-dir-lock.js';
import { tempDir } from '../helpers/gateway.js';
import { lockHolderProcess } from '../helpers/lock-holder.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});


describe('data dir claim', () => {
  it('a second serving gateway is refused, naming the holder, until the first closes', async () => {
    const dataDir = tempDir('mgw-lock-');
    const first = await createGateway({ dataDir });
    await startBackgroundWork(first, 'the desktop app');
    const second = await createGateway({ dataDir, claimWaitMs: 300 });
    try {
      const started = performance.now();
      const refused = await startBackgroundWork(second).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(DataDirInUse);
      expect((refused as Error).message).toBe(
        `The data dir ${dataDir} is already served by the desktop app (pid ${process.pid}). Stop it first, or give this one another data dir (--data-dir or MGW_DATA_DIR).`,
      );
      // It waited for the holder to go before refusing.
      expect(performance.now() - started).toBeGreaterThanOrEqual(250);
      // A gateway that only opens the database (the CLI's commands) needs no claim.
      const key = await second.keys.create({ access: 'free', label: 'while served' });
      expect((await first.keys.list()).map((k) => k.id)).toContain(key.key.id);
      await first.close();
      await startBackgroundWork(second);
    } finally {
      await first.close().catch(() => undefined);
      await second.close();
    }
    // Given back at close: a third takes it without waiting.
    const third = await createGateway({ dataDir, claimWaitMs: 0 });
    await startBackgroundWork(third);
    await third.close();
  });

  it('is refused while another process holds it, and taken the moment that process is killed', async () => {
    const dataDir = tempDir('mgw-lock-');
    const holder = await lockHolderProcess(join(dataDir, CLAIM_FILE), children);
    const gateway = await createGateway({ dataDir, claimWaitMs: 5_000 });
    try {
      // A start while the holder is still on its way out waits for it, then starts.
      const starting = startBackgroundWork(gateway);
      let settled = false;
      void starting.finally(() => (settled = true));
      // Refused twice while the holder lives, and still waiting rather than failed.
      while (gateway.dataDirLock.refusedAttempts < 2) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(settled, 'the start must wait while the holder lives').toBe(false);
      holder.kill('SIGKILL');
      await starting;
    } finally {
      await gateway.close();
    }
  });

  it('a server.lock left by an older version, naming a live unrelated pid, blocks nothing', async () => {
    const dataDir = tempDir('mgw-lock-');
    const unrelated = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    children.push(unrelated);
    writeFileSync(join(dataDir, 'server.lock'), `${unrelated.pid} 0123456789abcdef mgw serve`);
    const gateway = await createGateway({ dataDir, claimWaitMs: 0 });
    try {
      await startBackgroundWork(gateway);
      expect(existsSync(join(dataDir, CLAIM_FILE))).toBe(true);
    } finally {
      await gateway.close();
    }
  });
});
