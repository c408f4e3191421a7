// A data dir path that leads to a file (the desktop app's MGW_DATA_DIR, say) is named as such,
// and one that cannot be written says so.
import { execFileSync } from 'node:child_process';
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../electron/core/store/database.js';
import { tempDir } from '../helpers/gateway.js';

describe('openStore on a path that is a file', () => {
  it.each([['is', ''], ['is inside', 'data']])('a data dir that %s a file is storage_unavailable naming the file, not EEXIST or ENOTDIR', async (_how, below) => {
    const file = join(tempDir('mgw-store-file-'), 'a-file');
    writeFileSync(file, 'in the way');
    const dataDir = below ? join(file, below) : file;
    const error = await openStore(dataDir).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'storage_unavailable', message: `Cannot create the data directory ${dataDir}: ${file} is a file, not a directory.` });
  });
});

/**
 * Makes `dir` unwritable for this process: chmod for a user, `chattr +i` for root (whom no mode
 * stops); returns the undo.
 */
function lockDir(dir: string): () => void {
  if (process.getuid?.() !== 0) {
    chmodSync(dir, 0o500);
    return () => chmodSync(dir, 0o700);
  }
  execFileSync('chattr', ['+i', dir]);
  return () => execFileSync('chattr', ['-i', dir]);
}

describe('openStore in a data dir that cannot be written', () => {
  it.each([['holding a database', true], ['still empty', false]])('a read-only data dir %s is storage_unavailable saying so, not "unable to open database file"', async (_how, withDatabase) => {
    const dataDir = tempDir('mgw-store-ro-');
    if (withDatabase) {
      await (await openStore(dataDir)).close();
      // What a clean stop leaves when SQLite removes its -wal and -shm files.
      for (const extra of ['-wal', '-shm']) rmSync(join(dataDir, `gateway.db${extra}`), { force: true });
    }
    const unlock = lockDir(dataDir);
    try {
      const error = await openStore(dataDir).catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: 'storage_unavailable',
        message: `Cannot open the database in ${dataDir}: the directory cannot be written (read-only?), and the database needs to create its gateway.db-wal and gateway.db-shm files there.`,
      });
    } finally {
      unlock();
    }
  });
});
