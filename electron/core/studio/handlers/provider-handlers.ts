import type { StudioContext, StudioHandlers } from '../studio-context.js';

export function providerHandlers(
  ctx: StudioContext,
): Pick<StudioHandlers, 'providers.list' | 'providers.add' | 'providers.remove' | 'providers.test' | 'providers.discover'> {
  const { gateway } = ctx;
  return {
    'providers.list': async () => ({ providers: await gateway.providerConfigs.list() }),
    'providers.add': async (input) => ({
      provider: await gateway.providerConfigs.add({
        id: input.id,
        kind: input.kind,
        ...(input.base_url ? { baseUrl: input.base_url } : {}),
        ...(input.api_key ? { apiKey: input.api_key } : {}),
        ...(input.api_key_env ? { apiKeyEnv: input.api_key_env } : {}),
      }),
    }),
    'providers.remove': async (input) => {
      await gateway.providerConfigs.remove(input.id);
      return { removed: true };
    },
    'providers.test': async (input) => gateway.providerAdmin.check(input.id),
    'providers.discover': async (input) => gateway.providerAdmin.discover(input.id),
  };
}
