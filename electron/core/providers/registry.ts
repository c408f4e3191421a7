import { GatewayError } from '../errors.js';
import { isImageProvider, isVideoProvider, type ImageProvider, type Provider, type VideoProvider } from './provider.js';

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

  image(id: string): ImageProvider {
    const provider = this.get(id);
    if (!isImageProvider(provider)) throw new GatewayError('upstream_unavailable', `The provider "${id}" does not serve images.`);
    return provider;
  }

  video(id: string): VideoProvider {
    const provider = this.get(id);
    if (!isVideoProvider(provider)) throw new GatewayError('upstream_unavailable', `The provider "${id}" does not serve videos.`);
    return provider;
  }

  list(): Provider[] {
    return [...this.providers.values()];
  }
}
