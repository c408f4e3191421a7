import { GatewayError } from '../../errors.js';
import type { StudioContext, StudioHandlers } from '../studio-context.js';

/**
 * Removes every catalog model served only by `providerId` (returns their ids), and the routes to
 * it of models other providers serve too.
 */
async function removeModelsOf(ctx: StudioContext, providerId: string): Promise<string[]> {
  const removed: string[] = [];
  for (const entry of await ctx.gateway.catalog.entries()) {
    const others = entry.routes.filter((r) => r.providerId !== providerId);
    if (others.length === entry.routes.length) continue;
    try {
      if (others.length > 0) {
        await ctx.gateway.catalog.put({ record: entry.record, routes: others, source: entry.source });
        continue;
      }
      await ctx.gateway.catalog.remove(entry.record.id);
      removed.push(entry.record.id);
    } catch (error) {
      // Removed meanwhile (the CLI, another window): the goal is reached all the same.
      if (!(error instanceof GatewayError && error.code === 'not_found')) throw error;
    }
  }
  return removed;
}

export function providerHandlers(
  ctx: StudioContext,
): Pick<StudioHandlers, 'providers.list' | 'providers.add' | 'providers.update' | 'providers.remove' | 'providers.test' | 'providers.discover'> {
  const { gateway } = ctx;
  return {
    'providers.list': async () => ({ providers: await gateway.providerConfigs.list(), health: gateway.health.report() }),
    'providers.add': async (input) => ({
      provider: await gateway.providerConfigs.add({
        id: input.id,
        kind: input.kind,
        ...(input.base_url ? { baseUrl: input.base_url } : {}),
        ...(input.api_key ? { apiKey: input.api_key } : {}),
        ...(input.api_key_env ? { apiKeyEnv: input.api_key_env } : {}),
        ...(input.timeout_seconds !== undefined ? { timeoutSeconds: input.timeout_seconds } : {}),
      }),
    }),
    // Given fields pass as they are (an empty base URL is refused by the core, not taken as "keep").
    'providers.update': async (input) => ({
      provider: await gateway.providerConfigs.update({
        id: input.id,
        ...(input.base_url !== undefined ? { baseUrl: input.base_url } : {}),
        ...(input.api_key !== undefined ? { apiKey: input.api_key } : {}),
        ...(input.api_key_env !== undefined ? { apiKeyEnv: input.api_key_env } : {}),
        ...(input.timeout_seconds !== undefined ? { timeoutSeconds: input.timeout_seconds } : {}),
      }),
    }),
    'providers.remove': async (input) => {
      if (!(await gateway.providerConfigs.row(input.id))) throw new GatewayError('not_found', `No provider ${input.id}.`, 'id');
      const removedModels = input.remove_models ? await removeModelsOf(ctx, input.id) : [];
      await gateway.providerConfigs.remove(input.id);
      return { removed: true, removed_models: removedModels };
    },
    'providers.test': async (input) => gateway.providerAdmin.check(input.id),
    'providers.discover': async (input) => gateway.providerAdmin.discover(input.id),
  };
}
