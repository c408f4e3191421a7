// Composition root: builds every core service over one store. The HTTP server, the CLI and the
// Electron shell all start from here; none of them holds business logic of its own.
import { KeyService } from './access/key-service.js';
import { BillingService } from './billing/billing-service.js';
import { CatalogService } from './catalog/catalog-service.js';
import { systemClock, type Clock } from './clock.js';
import { ImageService } from './images/image-service.js';
import { silentLogger, type Logger } from './logger.js';
import { LOCAL_IMAGE_MODELS, LOCAL_PROVIDER_ID } from './providers/local/local-models.js';
import { LocalProvider } from './providers/local/local-provider.js';
import { ProviderRegistry } from './providers/registry.js';
import { openStore, type Store } from './store/database.js';

export interface GatewayOptions {
  dataDir: string;
  clock?: Clock;
  logger?: Logger;
}

export interface Gateway {
  readonly dataDir: string;
  readonly store: Store;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly catalog: CatalogService;
  readonly billing: BillingService;
  readonly keys: KeyService;
  readonly providers: ProviderRegistry;
  readonly images: ImageService;
  close(): Promise<void>;
}

export async function createGateway(options: GatewayOptions): Promise<Gateway> {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const store = await openStore(options.dataDir);
  const catalog = new CatalogService(store, clock);
  const billing = new BillingService(store, clock);
  const keys = new KeyService(store, billing, clock);
  const providers = new ProviderRegistry();
  providers.register(new LocalProvider(logger));
  const images = new ImageService(catalog, providers, billing);

  await catalog.seed(LOCAL_IMAGE_MODELS.map((record) => ({ record, providerId: LOCAL_PROVIDER_ID, upstreamModel: record.id })));

  return {
    dataDir: options.dataDir,
    store,
    clock,
    logger,
    catalog,
    billing,
    keys,
    providers,
    images,
    close: () => store.close(),
  };
}

/** Server start only: image holds belong to synchronous requests, so any left active are from a crash. */
export async function recoverAfterCrash(gateway: Gateway): Promise<void> {
  const released = await gateway.billing.releaseOrphans('image');
  if (released > 0) gateway.logger.warn({ released }, 'released image holds left by an interrupted run');
}
