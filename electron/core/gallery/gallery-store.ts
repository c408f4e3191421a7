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
import type { GalleryRow } from '../store/schema.js';

export const GALLERY_ID = /^img_[a-z0-9]{16}$/;

export class GalleryStore {
  readonly dir: string;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    dataDir: string,
  ) {
    this.dir = join(dataDir, 'gallery');
  }

  async save(accountId: string, kind: GalleryItem['kind'], model: string, prompt: string, bytes: Buffer, costNano: number): Promise<GalleryItem> {
    const size = sniffImage(bytes);
    if (!size) throw new GatewayError('upstream_invalid_response', 'The provider returned data that is not an image.');
    const id = newId('img', 16);
    const file = `${id}.${size.mime === 'image/png' ? 'png' : size.mime === 'image/jpeg' ? 'jpg' : 'webp'}`;
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await writeFile(join(this.dir, file), bytes);
    const row: GalleryRow = {
      id,
      account_id: accountId,
      kind,
      model,
      prompt,
      width: size.width,
      height: size.height,
      cost_nano: costNano,
      file,
      created_at: this.clock.now(),
    };
    await this.store.db.insertInto('gallery').values(row).execute();
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
