// WAL checkpoints off the request path. SQLite checkpoints automatically inside the commit that
// pushes the WAL past 1,000 pages, and with synchronous=NORMAL a checkpoint is where the fsyncs
// are: one paid request in every few hundred waited for two of them, on the main thread, with
// every other request behind it. A serving process turns the automatic checkpoint off and runs
// PASSIVE checkpoints from a worker thread on a connection of its own instead: they never block
// a writer, and their fsyncs block only the worker.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Logger } from '../logger.js';
import type { RawDb } from './database.js';

/** How often the worker checkpoints (the WAL grows by a few pages per paid request meanwhile). */
export const CHECKPOINT_INTERVAL_MS = 250;
/** A WAL past this many pages (~40 MB) is restarted even while writes go on without a pause. */
export const MAX_WAL_PAGES = 10_000;

// An inline CommonJS worker, so that bundling the CLI (rolldown) needs no second entry file;
// libsql is resolved here, where node_modules is known, and handed over as a path.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Libsql = require(workerData.libsql);
const db = new Libsql(workerData.path);
db.pragma('busy_timeout = 0');
const passive = db.prepare('pragma wal_checkpoint(PASSIVE)');
const restart = db.prepare('pragma wal_checkpoint(RESTART)');
const checkpoint = () => {
  try {
    const [{ log }] = passive.all();
    // Writes that never pause keep a PASSIVE checkpoint from ever catching up, and the WAL would
    // grow without end: past the limit, new writers wait (their lock wait backs off) for one
    // checkpoint that restarts the WAL from its start.
    if (log > workerData.maxWalPages) {
      db.pragma('busy_timeout = 2000');
      try {
        restart.all();
      } finally {
        db.pragma('busy_timeout = 0');
      }
    }
  } catch (error) {
    // BUSY: another connection is checkpointing; the next turn catches up.
    if (!/^SQLITE_BUSY|^SQLITE_LOCKED/.test(String(error && error.code))) parentPort.postMessage({ error: String(error && error.message) });
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.close();
});
`;

export interface Checkpointer {
  /** Checkpoints once more, stops the worker and gives the automatic checkpoint back to `raw`. */
  stop(): Promise<void>;
}

export function startCheckpointer(raw: RawDb, path: string, logger: Logger, intervalMs = CHECKPOINT_INTERVAL_MS): Checkpointer {
  const libsql = createRequire(import.meta.url).resolve('libsql');
  const worker = new Worker(WORKER_SOURCE, { eval: true, name: 'wal-checkpoint', workerData: { path, libsql, intervalMs, maxWalPages: MAX_WAL_PAGES } });
  let failed = false;
  // Without the worker, the commits checkpoint again themselves (SQLite's default).
  const fallBack = () => {
    if (failed) return;
    failed = true;
    raw.pragma('wal_autocheckpoint = 1000');
  };
  worker.on('message', (message: { error?: string }) => logger.warn({ err: message.error }, 'a WAL checkpoint failed'));
  worker.on('error', (error) => {
    logger.warn({ err: error }, 'the WAL checkpoint worker stopped; commits checkpoint again themselves');
    fallBack();
  });
  worker.unref();
  raw.pragma('wal_autocheckpoint = 0');
  return {
    stop: async () => {
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      worker.postMessage('stop');
      await exited;
      fallBack();
    },
  };
}
