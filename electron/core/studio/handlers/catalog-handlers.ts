import { defaultWorkflowRecord, parseWorkflowText } from '../../catalog/workflow-model.js';
import { mergeRecordPatch, type JsonObject } from '../../catalog/model-patch.js';
import { GatewayError, namingField } from '../../errors.js';
import type { StudioContext, StudioHandlers } from '../studio-context.js';

export function catalogHandlers(ctx: StudioContext): Pick<StudioHandlers, 'system.info' | 'catalog.list' | 'catalog.putWorkflow' | 'catalog.remove'> {
  const { catalog, providerConfigs, clock } = ctx.gateway;
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
    'catalog.putWorkflow': async (input) => {
      if (!(await providerConfigs.row(input.provider))) throw new GatewayError('not_found', `No provider ${input.provider}.`, 'provider');
      const workflow = parseWorkflowText(input.workflow);
      const existing = await catalog.find(input.id);
      // A new model starts from the default record for its output; the given fields go on top.
      const base = existing ? {} : (defaultWorkflowRecord(input.id, input.provider, workflow, input.output, Math.floor(clock.now() / 1000)) as unknown as JsonObject);
      const patch = mergeRecordPatch(base, (input.record ?? {}) as JsonObject) as JsonObject;
      const { entry, created } = await catalog.patch(input.id, patch, { providerId: input.provider, upstreamModel: input.id, workflow });
      return { model: { record: entry.record, provider: entry.providerId }, created };
    },
    // catalog.changed follows from the catalog's own change event. The core names the model
    // "model" (the CLI's word); the studio's field is id.
    'catalog.remove': async ({ id }) => {
      await namingField(ctx.gateway.catalog.remove(id), 'model', 'id');
      return { removed: true };
    },
  };
}
