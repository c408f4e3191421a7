import { GatewayError } from '../errors.js';
import type { Provider } from './provider.js';

/** Provider adapters by id; catalog entries name the provider that serves them. */
export class ProviderRegistry {
  private readonly providers = new Map<string, Provider>();

  register(provider: Provider): void {
    this.providers.set(provider.id, provider);
  }

  get(id: string): Provider {
    const provider = this.providers.get(id);
    // A catalog entry pointing at a provider that is gone is the owner's configuration problem.
    if (!provider) throw new GatewayError('upstream_unavailable', `The provider "${id}" behind this model is not configured.`);
    return provider;
  }

  list(): Provider[] {
    return [...this.providers.values()];
  }
}
