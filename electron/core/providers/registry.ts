// Provider adapters by id. Built-in ones are registered at start; configured upstream ones are
// built from their database row on first use and rebuilt when the row changes, so a provider
// added from the CLI works on a running server at once. The row is re-read only when the
// database may have changed (see change-watch.ts).
import type { Logger } from '../logger.js';
import { ChangeWatch } from '../store/change-watch.js';
import type { ProviderRow } from '../store/schema.js';
import { PROVIDER_KIND_INFO } from '../../../shared/provider-kinds.js';
import { ENGINE_KINDS } from './engine-kinds.js';
import { FalProvider } from './fal/fal-provider.js';
import { OpenAIProvider } from './openai/openai-provider.js';
import { isImageProvider, isVideoProvider, type ImageProvider, type Provider, type VideoProvider } from './provider.js';
import type { ProviderConfigs } from './provider-configs.js';
import { DEFAULT_TIMEOUTS, UpstreamClient, type UpstreamTimeouts } from './upstream/upstream-client.js';
import { ProviderUnreached } from './upstream/upstream-errors.js';

export class ProviderRegistry {
  private readonly builtin = new Map<string, Provider>();
  private readonly configured = new Map<string, { row: ProviderRow; provider: Provider; generation: number; key: string | null }>();
  private readonly watch: ChangeWatch | null;
  private readonly videoListeners: ((taskId: string) => void)[] = [];
  readonly http: UpstreamClient;

  constructor(
    private readonly configs: ProviderConfigs | null,
    private readonly logger: Logger,
    timeouts: UpstreamTimeouts = DEFAULT_TIMEOUTS,
  ) {
    this.http = new UpstreamClient(logger, () => this.knownSecrets(), timeouts);
    this.watch = configs ? new ChangeWatch(configs.store) : null;
  }

  register(provider: Provider): void {
    this.builtin.set(provider.id, provider);
    this.listen(provider);
  }

  /**
   * Hears every provider that pushes video updates (the built-in engine, a local engine's event
   * stream): the ones registered, and configured ones as they are built.
   */
  onVideoUpdate(listener: (taskId: string) => void): void {
    this.videoListeners.push(listener);
    for (const provider of this.builtin.values()) if (isVideoProvider(provider)) provider.onVideoUpdate?.(listener);
    for (const { provider } of this.configured.values()) if (isVideoProvider(provider)) provider.onVideoUpdate?.(listener);
  }

  private listen(provider: Provider): void {
    if (!isVideoProvider(provider) || !provider.onVideoUpdate) return;
    for (const listener of this.videoListeners) provider.onVideoUpdate(listener);
  }

  async get(id: string): Promise<Provider> {
    const builtin = this.builtin.get(id);
    if (builtin) return builtin;
    const cached = this.configured.get(id);
    if (cached && this.configs && cached.generation === this.configs.generation && this.watch!.unchanged()) return cached.provider;
    this.watch?.mark();
    const generation = this.configs?.generation ?? 0;
    const row = this.configs ? await this.configs.row(id) : undefined;
    // A catalog entry pointing at a provider that is gone is the owner's configuration problem.
    if (!row) throw new ProviderUnreached('not configured', `The provider "${id}" behind this model is not configured.`);
    if (cached && cached.row.updated_at === row.updated_at) {
      cached.generation = generation;
      return cached.provider;
    }
    const { key, problem } = this.configs!.readKey(row);
    const provider = this.build(row, key, problem);
    this.listen(provider);
    this.configured.set(id, { row, provider, generation, key });
    // The adapter it replaces may hold an event stream open; calls in flight on it finish as they are.
    if (cached) void cached.provider.close?.().catch(() => undefined);
    return provider;
  }

  async image(id: string): Promise<ImageProvider> {
    const provider = await this.get(id);
    if (!isImageProvider(provider)) throw new ProviderUnreached('serves no images', `The provider "${id}" does not serve images.`);
    return provider;
  }

  async video(id: string): Promise<VideoProvider> {
    const provider = await this.get(id);
    if (!isVideoProvider(provider)) throw new ProviderUnreached('serves no videos', `The provider "${id}" does not serve videos.`);
    return provider;
  }

  /** Built-in providers (configured ones are built on demand). */
  list(): Provider[] {
    return [...this.builtin.values()];
  }

  async close(): Promise<void> {
    await Promise.all([...this.configured.values()].map(({ provider }) => provider.close?.().catch(() => undefined)));
    await this.http.close();
  }

  /**
   * The key is read once per adapter build: a change of provider config (even from the CLI)
   * bumps the row and rebuilds the adapter, and reading the secret file per request was the
   * largest avoidable cost on the upstream path.
   */
  private build(row: ProviderRow, key: string | null, problem: string | null): Provider {
    // An unusable key fails each call where it would be sent, as an unreachable upstream does
    // (a running video keeps polling until its timeout), but saying so; the detail, which names
    // the variable and never its value, is the owner's and goes to the log.
    const apiKey = problem
      ? () => {
          this.logger.warn({ provider: row.id, problem }, 'provider key is not usable');
          throw new ProviderUnreached('no usable API key', `The provider "${row.id}" behind this model has no usable API key; the gateway's owner must fix it (the Providers list says why).`);
        }
      : () => key;
    const engine = ENGINE_KINDS[row.kind];
    // Local engines get their kind's long default; the others keep the client's unless the owner set one.
    const timeoutMs = row.timeout_ms ?? (engine ? PROVIDER_KIND_INFO[row.kind].defaultTimeoutMs : undefined);
    const config = { id: row.id, baseUrl: row.base_url, apiKey, ...(timeoutMs !== undefined ? { timeoutMs } : {}) };
    if (engine) return engine.build(config, this.http, this.logger);
    if (row.kind === 'openai') return new OpenAIProvider(config, this.http);
    return new FalProvider(config, this.http);
  }

  /**
   * Every key upstream logging must redact: each configured provider's current key (the
   * connection test and discovery use it without building an adapter), plus the keys the built
   * adapters hold, which may be older ones still in flight after a change.
   */
  private knownSecrets(): string[] {
    if (!this.configs) return [];
    const keys = new Set(this.configs.allKeys());
    for (const { key } of this.configured.values()) if (key) keys.add(key);
    // A key sent as HTTP Basic (AUTOMATIC1111's USER:PASS) travels base64-encoded: an error body
    // echoing the Authorization header must not put that form in the log either.
    for (const key of [...keys]) keys.add(Buffer.from(key).toString('base64'));
    return [...keys];
  }
}
