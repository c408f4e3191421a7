// One serving process per data dir: the claim is refused while its holder lives, given back at
// close, and taken over from a holder that died without giving it back (a crash, SIGKILL).
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createGateway, startBackgroundWork } from '../../electron/core/gateway.js';
import { DataDirInUse } from '../../electron/core/store/data-dir-lock.js';
import { tempDir } from '../helpers/gateway.js';

describe('data dir lock', () => {
  it('a second serving gateway on the data dir is refused until the first closes', async () => {
    const dataDir = tempDir('mgw-lock-');
    const first = await createGateway({ dataDir });
    await startBackgroundWork(first, 'the desktop app');
    const second = await createGateway({ dataDir });
    try {
      const refused = await startBackgroundWork(second).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(DataDirInUse);
      expect((refused as Error).message).toContain(`is already served by the desktop app (pid ${process.pid})`);
      // A gateway that only opens the database (the CLI's commands) needs no claim.
      expect((await second.keys.list()).length).toBeGreaterThanOrEqual(0);
      await first.close();
      expect(existsSync(join(dataDir, 'server.lock'))).toBe(false);
      await startBackgroundWork(second);
      expect(existsSync(join(dataDir, 'server.lock'))).toBe(true);
    } finally {
      await first.close().catch(() => undefined);
      await second.close();
    }
    expect(existsSync(join(dataDir, 'server.lock'))).toBe(false);
  });

  it('a claim left by a process that died is taken over', async () => {
    const dataDir = tempDir('mgw-lock-');
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const deadPid = Number(dead.stdout);
    expect(deadPid).toBeGreaterThan(0);
    writeFileSync(join(dataDir, 'server.lock'), `${deadPid} 0123456789abcdef mgw serve`);
    const gateway = await createGateway({ dataDir });
    try {
      await startBackgroundWork(gateway);
    } finally {
      await gateway.close();
    }
  });
});
