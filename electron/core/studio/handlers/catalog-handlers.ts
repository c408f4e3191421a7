import { defaultWorkflowRecord, parseWorkflowText } from '../../catalog/workflow-model.js';
import { mergeRecordPatch, type JsonObject } from '../../catalog/model-patch.js';
import { GatewayError, invalid, namingField } from '../../errors.js';
import type { CatalogEntry } from '../../catalog/catalog-service.js';
import type { CatalogModel } from '../../../../shared/studio-contract.js';
import type { StudioContext, StudioHandlers } from '../studio-context.js';

function catalogModel(entry: CatalogEntry): CatalogModel {
  return {
    record: entry.record,
    provider: entry.routes[0]!.providerId,
    routes: entry.routes.map((r) => ({ provider: r.providerId, upstream_model: r.upstreamModel, workflow: r.workflow !== null })),
  };
}

export function catalogHandlers(ctx: StudioContext): Pick<StudioHandlers, 'system.info' | 'catalog.list' | 'catalog.putWorkflow' | 'catalog.remove' | 'catalog.setRoutes'> {
  const { catalog, providerConfigs, clock } = ctx.gateway;
  return {
    'system.info': async () => ({
      version: ctx.version,
      api_base_url: ctx.apiBaseUrl(),
      data_dir: ctx.gateway.dataDir,
      owner_key_id: ctx.owner.keyId,
    }),
    'catalog.list': async () => ({
      models: (await ctx.gateway.catalog.entries()).map(catalogModel),
    }),
    'catalog.putWorkflow': async (input) => {
      if (!(await providerConfigs.row(input.provider))) throw new GatewayError('not_found', `No provider ${input.provider}.`, 'provider');
      const workflow = parseWorkflowText(input.workflow);
      const existing = await catalog.find(input.id);
      // A new model starts from the default record for its output; the given fields go on top.
      const base = existing ? {} : (defaultWorkflowRecord(input.id, input.provider, workflow, input.output, Math.floor(clock.now() / 1000)) as unknown as JsonObject);
      const patch = mergeRecordPatch(base, (input.record ?? {}) as JsonObject) as JsonObject;
      const { entry, created } = await catalog.patch(input.id, patch, { providerId: input.provider, upstreamModel: input.id, workflow });
      return { model: catalogModel(entry), created };
    },
    // catalog.changed follows from the catalog's own change event. The core names the model
    // "model" (the CLI's word); the studio's field is id.
    'catalog.remove': async ({ id }) => {
      await namingField(ctx.gateway.catalog.remove(id), 'model', 'id');
      return { removed: true };
    },
    'catalog.setRoutes': async ({ id, routes }) => {
      if (!(await catalog.find(id))) throw new GatewayError('not_found', `No model ${id} in the catalog.`, 'id');
      for (const [i, route] of routes.entries()) {
        const known = ctx.gateway.providers.list().some((p) => p.id === route.provider) || (await providerConfigs.row(route.provider)) !== undefined;
        if (!known) throw invalid(`No provider ${route.provider} (the Providers view lists the configured ones).`, `routes[${i}].provider`);
      }
      const { entry } = await catalog.patch(id, {}, { routes: routes.map((r) => ({ providerId: r.provider, upstreamModel: r.upstream_model })) });
      return { model: catalogModel(entry) };
    },
  };
}
