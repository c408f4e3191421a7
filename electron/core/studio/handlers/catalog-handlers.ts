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
    // catalog.changed follows from the catalog's own change event.
    'catalog.remove': async ({ id }) => {
      await ctx.gateway.catalog.remove(id);
      return { removed: true };
    },
  };
}
