// The studio's persisted gallery: image results saved as PNG files in <data dir>/gallery, with
// a row each. File names are generated ids only, never client input.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { GalleryItem } from '../../../shared/studio-contract.js';
import { formatUsd } from '../billing/money.js';
import type { Clock } from '../clock.js';
import { GatewayError } from '../errors.js';
import { newId } from '../ids.js';
import { sniffImage } from '../images/image-sniff.js';
import type { Store } from '../store/database.js';
import { storageError } from '../store/storage-errors.js';
import type { GalleryRow } from '../store/schema.js';

export const GALLERY_ID = /^img_[a-z0-9]{16}$/;

/** An image file written to the gallery, not yet recorded. */
export interface GalleryFile {
  id: string;
  file: string;
  width: number;
  height: number;
}

export class GalleryStore {
  readonly dir: string;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    dataDir: string,
  ) {
    this.dir = join(dataDir, 'gallery');
  }

  /**
   * Writes the image file (before the charge: see ImageService's KeepImage), then record() adds
   * its row once the cost is known. A file that cannot be written whole is removed.
   */
  async writeFile(bytes: Buffer): Promise<GalleryFile> {
    const size = sniffImage(bytes);
    if (!size) throw new GatewayError('upstream_invalid_response', 'The provider returned data that is not an image.');
    const id = newId('img', 16);
    const file = `${id}.${size.mime === 'image/png' ? 'png' : size.mime === 'image/jpeg' ? 'jpg' : 'webp'}`;
    const path = join(this.dir, file);
    try {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      await writeFile(path, bytes);
    } catch (error) {
      await rm(path, { force: true }).catch(() => undefined);
      throw storageError(error) ?? new GatewayError('storage_unavailable', "The gateway's storage is unavailable: the gallery cannot be written.");
    }
    return { id, file, width: size.width, height: size.height };
  }

  /** The row of a written file; when it cannot be written, the file goes too. */
  async record(accountId: string, kind: GalleryItem['kind'], model: string, prompt: string, written: GalleryFile, costNano: number): Promise<GalleryItem> {
    const { id, file, width, height } = written;
    const row: GalleryRow = { id, account_id: accountId, kind, model, prompt, width, height, cost_nano: costNano, file, created_at: this.clock.now() };
    try {
      await this.store.db.insertInto('gallery').values(row).execute();
    } catch (error) {
      await rm(join(this.dir, file), { force: true }).catch(() => undefined);
      throw error;
    }
    return toItem(row);
  }

  async list(accountId: string, limit: number): Promise<GalleryItem[]> {
    const rows = await this.store.db
      .selectFrom('gallery')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map(toItem);
  }

  async remove(accountId: string, id: string): Promise<void> {
    const row = await this.store.db.selectFrom('gallery').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
    if (!row) throw new GatewayError('not_found', `No gallery item ${id}.`, 'id');
    await this.store.db.deleteFrom('gallery').where('id', '=', id).execute();
    await rm(join(this.dir, row.file), { force: true });
  }

  /** The file behind a media path "gallery/<file>", or null. */
  async filePath(file: string): Promise<string | null> {
    const row = await this.store.db.selectFrom('gallery').select('file').where('file', '=', file).executeTakeFirst();
    return row ? join(this.dir, row.file) : null;
  }
}

function toItem(row: GalleryRow): GalleryItem {
  return {
    id: row.id,
    kind: row.kind,
    model: row.model,
    prompt: row.prompt,
    width: row.width,
    height: row.height,
    cost_usd: formatUsd(row.cost_nano),
    created_at: Math.floor(row.created_at / 1000),
    media: `gallery/${row.file}`,
  };
}
