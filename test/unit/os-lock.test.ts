// Locks the operating system holds (os-lock.ts): what the secret store's read-modify-write runs
// under. The holders here are other processes taking SQLite's lock with libsql directly, so the
// test does not trust the code under test to say what "held" means.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isGatewayError } from '../../electron/core/errors.js';
import { withLock } from '../../electron/core/os-lock.js';
import { FileSecretStore } from '../../electron/core/secret-store.js';
import { tempDir } from '../helpers/gateway.js';
import { lockHolderProcess } from '../helpers/lock-holder.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});


const exited = (child: ChildProcess) => new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('withLock', () => {
  it('runs the function under the lock and gives it back, also when the function throws', () => {
    const path = join(tempDir('mgw-oslock-'), 'a.lock.db');
    expect(withLock(path, () => 'ran')).toBe('ran');
    expect(() => withLock(path, () => { throw new Error('boom'); })).toThrow('boom');
    // Given back: a second taker does not wait at all.
    expect(withLock(path, () => 'again', 0)).toBe('again');
  });

  it('is exclusive while a live process holds it: waits, then storage_unavailable', async () => {
    const path = join(tempDir('mgw-oslock-'), 'b.lock.db');
    await lockHolderProcess(path, children);
    const started = performance.now();
    const error = caught(() => withLock(path, () => 'never', 300));
    expect(isGatewayError(error) && error.code).toBe('storage_unavailable');
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
  });

  it('is free the moment its holder is killed with SIGKILL: nothing to break, no age to wait out', async () => {
    const path = join(tempDir('mgw-oslock-'), 'c.lock.db');
    const holder = await lockHolderProcess(path, children);
    expect(isGatewayError(caught(() => withLock(path, () => 'never', 0)))).toBe(true);
    holder.kill('SIGKILL');
    await exited(holder);
    expect(withLock(path, () => 'ran', 0)).toBe('ran');
  });
});

describe('the secret store', () => {
  it('is not blocked by a secrets.json.lock that an older version left, naming a live pid', () => {
    const dataDir = tempDir('mgw-oslock-');
    writeFileSync(join(dataDir, 'secrets.json.lock'), `${process.ppid} 0123456789abcdef`);
    const store = new FileSecretStore(dataDir);
    store.set('p', 'sk-1');
    expect(store.get('p')).toBe('sk-1');
  });

  it('waits for a writer in another process and goes on once that writer is gone', async () => {
    const dataDir = tempDir('mgw-oslock-');
    const holder = await lockHolderProcess(join(dataDir, 'secrets-lock.db'), children);
    const store = new FileSecretStore(dataDir);
    // 10 s is the store's limit; a holder killed before then lets the change through. The wait
    // is synchronous (the SecretStore interface is), so the kill comes from another process.
    const killer = spawn(process.execPath, ['-e', `setTimeout(() => process.kill(${holder.pid}, 'SIGKILL'), 300)`]);
    children.push(killer);
    const started = performance.now();
    store.set('p', 'sk-2');
    expect(performance.now() - started).toBeGreaterThanOrEqual(200);
    expect(store.get('p')).toBe('sk-2');
  });
});
