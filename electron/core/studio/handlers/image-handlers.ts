import type { ImageResult } from '../../../../shared/api-types.js';
import type { StudioFile } from '../../../../shared/studio-contract.js';
import { parseUsd } from '../../billing/money.js';
import { invalid } from '../../errors.js';
import type { GalleryFile } from '../../gallery/gallery-store.js';
import type { KeepImage } from '../../images/image-service.js';
import { sniffImage } from '../../images/image-sniff.js';
import type { ReferenceImage } from '../../providers/provider.js';
import type { StudioContext, StudioHandlers } from '../studio-context.js';

/** A studio upload, checked by content like the HTTP multipart path. */
export function referenceFromFile(file: StudioFile, field: string): ReferenceImage {
  const bytes = Buffer.from(file.base64, 'base64');
  const sniffed = sniffImage(bytes);
  if (!sniffed) throw invalid(`The file "${file.name}" is not a PNG, JPEG or WebP image.`, field);
  return { field, filename: file.name, mime: sniffed.mime, bytes };
}

export function imageHandlers(ctx: StudioContext): Pick<StudioHandlers, 'images.generate' | 'images.edit' | 'gallery.list' | 'gallery.delete'> {
  const { gateway, owner, events } = ctx;
  /** Forwards an engine's step reports as `images.progress` events, only when they move. */
  const progress = (progressId: string | undefined): { onProgress?: (percent: number) => void } => {
    if (!progressId) return {};
    let last = -1;
    return {
      onProgress: (percent) => {
        const rounded = Math.max(0, Math.min(100, Math.round(percent)));
        if (rounded === last) return;
        last = rounded;
        events.emit('images.progress', { progress_id: progressId, percent: rounded });
      },
    };
  };
  /**
   * Runs a billed image request whose file is written to the gallery before the charge (a disk
   * that cannot take it releases the hold: nothing charged), then records its row.
   */
  const saved = async (kind: 'generation' | 'edit', model: string, prompt: string, run: (keep: KeepImage) => Promise<ImageResult>) => {
    let written: GalleryFile | null = null;
    const result = await run(async (bytes) => {
      written = await gateway.gallery.writeFile(bytes);
    });
    return { item: await gateway.gallery.record(owner.accountId, kind, model, prompt, written!, parseUsd(result.usage.cost_usd) ?? 0) };
  };
  return {
    'images.generate': async ({ progress_id: progressId, ...input }) =>
      saved('generation', input.model, input.prompt, (keep) => gateway.images.generate(owner, { ...input, ...progress(progressId) }, keep)),
    'images.edit': async (input) => {
      const images = input.images.map((file) => referenceFromFile(file, 'image'));
      const request = { model: input.model, prompt: input.prompt, ...(input.size ? { size: input.size } : {}), images, ...progress(input.progress_id) };
      return saved('edit', input.model, input.prompt, (keep) => gateway.images.edit(owner, request, keep));
    },
    'gallery.list': async (input) => ({ items: await gateway.gallery.list(owner.accountId, input.limit ?? 60) }),
    'gallery.delete': async (input) => {
      await gateway.gallery.remove(owner.accountId, input.id);
      return { deleted: true };
    },
  };
}
