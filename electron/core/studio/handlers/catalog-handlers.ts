import { namingField } from '../../errors.js';
import type { StudioContext, StudioHandlers } from '../studio-context.js';

export function catalogHandlers(ctx: StudioContext): Pick<StudioHandlers, 'system.info' | 'catalog.list' | 'catalog.remove'> {
  return {
    'system.info': async () => ({
      version: ctx.version,
      api_base_url: ctx.apiBaseUrl(),
      data_dir: ctx.gateway.dataDir,
      owner_key_id: ctx.owner.keyId,
    }),
    'catalog.list': async () => ({
      models: (await ctx.gateway.catalog.entries()).map((entry) => ({ record: entry.record, provider: entry.providerId })),
    }),
    // catalog.changed follows from the catalog's own change event. The core names the model
    // "model" (the CLI's word); the studio's field is id.
    'catalog.remove': async ({ id }) => {
      await namingField(ctx.gateway.catalog.remove(id), 'model', 'id');
      return { removed: true };
    },
  };
}
