// The secret store's lock file: released after use (even on a throw), a lock left by a process
// that died or one far past any holder's time is broken, and a live one is waited for, then
// reported as storage unavailable.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isGatewayError } from '../../electron/core/errors.js';
import { withFileLock } from '../../electron/core/file-lock.js';
import { tempDir } from '../helpers/gateway.js';

let dir: string;
let lock: string;
beforeEach(() => {
  dir = tempDir('mgw-lock-');
  lock = join(dir, 'secrets.json.lock');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The pid of a process that has exited. */
function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
}

describe('withFileLock', () => {
  it('holds the lock while the function runs and removes it after, also when it throws', () => {
    expect(withFileLock(lock, () => existsSync(lock))).toBe(true);
    expect(existsSync(lock)).toBe(false);
    expect(() => withFileLock(lock, () => { throw new Error('boom'); })).toThrow('boom');
    expect(existsSync(lock)).toBe(false);
  });

  it('breaks a lock whose owner process is gone', () => {
    writeFileSync(lock, `${deadPid()} abcdef`);
    expect(withFileLock(lock, () => 'ran', { timeoutMs: 2_000 })).toBe('ran');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('breaks a lock older than staleMs even when its pid is alive (a reused pid)', () => {
    writeFileSync(lock, `${process.pid} old-holder`);
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);
    expect(withFileLock(lock, () => 'ran', { timeoutMs: 2_000, staleMs: 30_000 })).toBe('ran');
  });

  it('waits for a live lock and then gives up with storage_unavailable, leaving it in place', () => {
    writeFileSync(lock, `${process.pid} live-holder`);
    const started = Date.now();
    let caught: unknown;
    try {
      withFileLock(lock, () => 'never', { timeoutMs: 300 });
    } catch (error) {
      caught = error;
    }
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(isGatewayError(caught) && caught.code).toBe('storage_unavailable');
    expect(existsSync(lock)).toBe(true);
  });
});
