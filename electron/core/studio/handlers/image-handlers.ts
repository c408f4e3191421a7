import type { StudioFile } from '../../../../shared/studio-contract.js';
import { parseUsd } from '../../billing/money.js';
import { invalid } from '../../errors.js';
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
  const { gateway, owner } = ctx;
  const save = async (kind: 'generation' | 'edit', model: string, prompt: string, result: { data: [{ b64_json: string }]; usage: { cost_usd: string } }) => ({
    item: await gateway.gallery.save(owner.accountId, kind, model, prompt, Buffer.from(result.data[0].b64_json, 'base64'), parseUsd(result.usage.cost_usd) ?? 0),
  });
  return {
    'images.generate': async (input) => save('generation', input.model, input.prompt, await gateway.images.generate(owner, input)),
    'images.edit': async (input) => {
      const images = input.images.map((file) => referenceFromFile(file, 'image'));
      const result = await gateway.images.edit(owner, { model: input.model, prompt: input.prompt, ...(input.size ? { size: input.size } : {}), images });
      return save('edit', input.model, input.prompt, result);
    },
    'gallery.list': async (input) => ({ items: await gateway.gallery.list(owner.accountId, input.limit ?? 60) }),
    'gallery.delete': async (input) => {
      await gateway.gallery.remove(owner.accountId, input.id);
      return { deleted: true };
    },
  };
}
