// WAL checkpoints off the request path. SQLite checkpoints automatically inside the commit that
// pushes the WAL past 1,000 pages, and with synchronous=NORMAL a checkpoint is where the fsyncs
// are: one paid request in every few hundred waited for two of them, on the main thread, with
// every other request behind it. A serving process turns the automatic checkpoint off and runs
// PASSIVE checkpoints from a small child process on a connection of its own instead: they never
// block a writer, and their fsyncs block only the child.
//
// A child process, not a worker thread: a libsql connection in a worker that is still running
// when the process exits aborts the whole process (its finalizer panics; seen in ~1 exit in 10),
// and a child cannot take the gateway down with it. The child ends with its parent, however the
// parent ends (the IPC channel closes).
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import type { Logger } from '../logger.js';
import type { RawDb } from './raw-db.js';

/** How often the child checkpoints (the WAL grows by a few pages per paid request meanwhile). */
export const CHECKPOINT_INTERVAL_MS = 250;
/** How long after a serving start the child is spawned. */
export const CHECKPOINTER_DELAY_MS = 1_000;
/** A WAL past this many pages (~40 MB) is restarted even while writes go on without a pause. */
export const MAX_WAL_PAGES = 10_000;

// Inline CommonJS, so that bundling the CLI needs no second entry file; libsql is resolved by the
// parent, where node_modules is known, and handed over as a path.
const CHILD_SOURCE = `
const [libsqlPath, dbPath, intervalMs, maxWalPages] = process.argv.slice(1);
const Libsql = require(libsqlPath);
const db = new Libsql(dbPath);
db.pragma('busy_timeout = 0');
const passive = db.prepare('pragma wal_checkpoint(PASSIVE)');
const restart = db.prepare('pragma wal_checkpoint(RESTART)');
const checkpoint = () => {
  try {
    const [{ log }] = passive.all();
    // Writes that never pause keep a PASSIVE checkpoint from ever catching up, and the WAL would
    // grow without end: past the limit, new writers wait (their lock wait backs off) for one
    // checkpoint that restarts the WAL from its start.
    if (log > Number(maxWalPages)) {
      db.pragma('busy_timeout = 2000');
      try { restart.all(); } finally { db.pragma('busy_timeout = 0'); }
    }
  } catch (error) {
    // BUSY: another connection is checkpointing; the next turn catches up.
    if (!/^SQLITE_BUSY|^SQLITE_LOCKED/.test(String(error && error.code))) process.send({ error: String(error && error.message) });
  }
};
const timer = setInterval(checkpoint, Number(intervalMs));
const end = () => { clearInterval(timer); checkpoint(); db.close(); process.exit(0); };
process.on('message', end);
process.on('disconnect', end);
`;

export interface Checkpointer {
  /** Checkpoints once more, stops the child and gives the automatic checkpoint back to `raw`. */
  stop(): Promise<void>;
}

export function startCheckpointer(raw: RawDb, path: string, logger: Logger, intervalMs = CHECKPOINT_INTERVAL_MS): Checkpointer {
  const libsql = createRequire(import.meta.url).resolve('libsql');
  // ELECTRON_RUN_AS_NODE: in the desktop app process.execPath is Electron, which then runs as Node.
  const child: ChildProcess = spawn(process.execPath, ['-e', CHILD_SOURCE, libsql, path, String(intervalMs), String(MAX_WAL_PAGES)], {
    env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    windowsHide: true,
  });
  let stopped = false;
  // Without the child, the commits checkpoint again themselves (SQLite's default).
  const fallBack = () => raw.pragma('wal_autocheckpoint = 1000');
  child.on('message', (message: { error?: string }) => logger.warn({ err: message.error }, 'a WAL checkpoint failed'));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('error', (error) => logger.warn({ err: error }, 'the WAL checkpoint process could not start; commits checkpoint themselves'));
  child.once('exit', (code) => {
    if (!stopped) logger.warn({ code }, 'the WAL checkpoint process stopped; commits checkpoint themselves');
    fallBack();
  });
  // Neither the child nor its channel keeps this process alive.
  child.unref();
  child.channel?.unref();
  raw.pragma('wal_autocheckpoint = 0');
  return {
    stop: async () => {
      if (stopped) return;
      stopped = true;
      if (child.connected) child.send('stop');
      else child.kill();
      await exited;
    },
  };
}
