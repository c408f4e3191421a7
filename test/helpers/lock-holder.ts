// Another process holding SQLite's write lock on a file, taken with libsql directly (not through
// the code under test), for the tests of the locks the operating system holds.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Starts the holder and resolves once it has the lock; the caller kills it (SIGKILL is the point). */
export async function lockHolderProcess(path: string, children: ChildProcess[]): Promise<ChildProcess> {
  const script = `const L = require('libsql'); const db = new L(${JSON.stringify(path)}); db.exec('begin immediate'); process.stdout.write('held'); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`holder exited with ${code}`)));
  });
  return child;
}
