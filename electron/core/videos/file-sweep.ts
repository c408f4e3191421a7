// Files a killed process can leave behind: partial downloads and renders (`*.part`), the output
// of a task that ended (its removal comes after the end is committed) and the reference images
// of a creation whose transaction never committed (they are saved before it). The serving
// process sweeps them at start, before its scheduler runs, so no writer is in the middle of one.
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Store } from '../store/database.js';
import type { VideoFiles } from './reference-store.js';
import { ACTIVE_STATUSES } from './video-task-store.js';

const TASK_ID = /^video_[a-z0-9]+/;
/** Ids looked up per query (SQLite's bound-parameter limit is far above). */
const BATCH = 500;

/** The id of the task a file belongs to, '' when its name names none. */
const taskIdOf = (name: string): string => TASK_ID.exec(name)?.[0] ?? '';

/**
 * Removes what no task needs any more; returns how many files went. A files dir that other
 * instances share (team mode) may hold their partial files and the references of their
 * creations in flight: there only the outputs of ended tasks go.
 */
export async function sweepVideoFiles(store: Store, files: VideoFiles, shared = false): Promise<number> {
  const outputs = await readdir(files.outputsDir);
  const uploads = await readdir(files.uploadsDir);
  const ids = [...new Set([...outputs, ...uploads].map(taskIdOf).filter((id) => id !== ''))];
  const status = new Map<string, string>();
  for (let i = 0; i < ids.length; i += BATCH) {
    const rows = await store.db.selectFrom('video_tasks').select(['id', 'status']).where('id', 'in', ids.slice(i, i + BATCH)).execute();
    for (const row of rows) status.set(row.id, row.status);
  }
  const keepsOutput = (id: string) => status.get(id) === 'completed' || (ACTIVE_STATUSES as readonly string[]).includes(status.get(id) ?? '');
  const ended = (id: string) => status.has(id) && !keepsOutput(id);
  const stale = [
    ...outputs.filter((name) => (!shared && name.endsWith('.part')) || (name.endsWith('.mp4') && (shared ? ended : (id: string) => !keepsOutput(id))(taskIdOf(name)))).map((name) => join(files.outputsDir, name)),
    // A task keeps its reference images whatever its status (a restart may submit it again).
    ...(shared ? [] : uploads.filter((name) => !status.has(taskIdOf(name))).map((name) => files.referencePath(name))),
  ];
  await Promise.all(stale.map((path) => rm(path, { force: true })));
  return stale.length;
}
