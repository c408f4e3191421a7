// Reference images and outputs of video tasks live in the data dir, named by task id only (ids
// are generated, never taken from a client), so a restart can resume every task.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ReferenceImage } from '../providers/provider.js';

type ReferenceMime = ReferenceImage['mime'];
const EXTENSION = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' } as const satisfies Record<ReferenceMime, string>;

/** The type of a stored reference, read back from the extension it was saved under (by content). */
export function referenceMime(path: string): ReferenceMime {
  const extension = path.slice(path.lastIndexOf('.') + 1);
  const found = (Object.keys(EXTENSION) as ReferenceMime[]).find((mime) => EXTENSION[mime] === extension);
  return found ?? 'image/jpeg';
}

export class VideoFiles {
  readonly uploadsDir: string;
  readonly outputsDir: string;

  constructor(dataDir: string) {
    this.uploadsDir = join(dataDir, 'uploads');
    this.outputsDir = join(dataDir, 'videos');
  }

  async init(): Promise<void> {
    await mkdir(this.uploadsDir, { recursive: true, mode: 0o700 });
    await mkdir(this.outputsDir, { recursive: true, mode: 0o700 });
  }

  outputPath(taskId: string): string {
    return join(this.outputsDir, `${taskId}.mp4`);
  }

  referencePath(fileName: string): string {
    return join(this.uploadsDir, fileName);
  }

  /** Saves the images and returns their file names (what the task row keeps). */
  async saveReferences(taskId: string, images: ReferenceImage[]): Promise<string[]> {
    const names = images.map((image, i) => `${taskId}-${i}.${EXTENSION[image.mime]}`);
    await Promise.all(images.map((image, i) => writeFile(this.referencePath(names[i]!), image.bytes)));
    return names;
  }

  /**
   * Removes a task's output (an ended task that did not complete has none). Best effort: the
   * task's end is already committed, and a file that cannot be removed only takes disk space.
   */
  async removeOutput(taskId: string): Promise<void> {
    await rm(this.outputPath(taskId), { force: true }).catch(() => undefined);
  }

  async removeReferences(names: string[]): Promise<void> {
    await Promise.all(names.map((name) => rm(this.referencePath(name), { force: true })));
  }
}
