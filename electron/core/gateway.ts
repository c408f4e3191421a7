// Composition root: builds every core service over one store. The HTTP server, the CLI and the
// Electron shell all start from here; none of them holds business logic of its own.
import { AccessGate } from './access/access-gate.js';
import { KeyService } from './access/key-service.js';
import { resolveLimits, type LimitOverrides } from './access/limits.js';
import { UsageLedger } from './access/usage-ledger.js';
import { ActivityLog } from './activity/activity-log.js';
import { BillingService } from './billing/billing-service.js';
import { CatalogService } from './catalog/catalog-service.js';
import { systemClock, type Clock } from './clock.js';
import { GalleryStore } from './gallery/gallery-store.js';
import { ImageService } from './images/image-service.js';
import { silentLogger, type Logger } from './logger.js';
import { LOCAL_IMAGE_MODELS, LOCAL_PROVIDER_ID, LOCAL_VIDEO_MODELS } from './providers/local/local-models.js';
import { LocalProvider } from './providers/local/local-provider.js';
import { ProviderAdmin } from './providers/provider-admin.js';
import { ProviderConfigs } from './providers/provider-configs.js';
import { ProviderRegistry } from './providers/registry.js';
import { Failover } from './routing/failover.js';
import type { BreakerSettings } from './routing/breaker-settings.js';
import { RouteHealth } from './routing/route-health.js';
import type { UpstreamTimeouts } from './providers/upstream/upstream-client.js';
import { FileSecretStore, type SecretStore } from './secret-store.js';
import { DataDirLock } from './store/data-dir-lock.js';
import type { Store } from './store/database.js';
import { openDatabase } from './store/open-database.js';
import { SharedWindows } from './access/shared-windows.js';
import { checkSecretKey, DatabaseSecretStore } from './secrets/sealed-secrets.js';
import { TeamInstance } from './team/team-instance.js';
import { DEFAULT_LEASE_SECONDS } from './config.js';
import { VideoFiles } from './videos/reference-store.js';
import { VideoScheduler, type SchedulerOptions } from './videos/video-scheduler.js';
import { VideoService } from './videos/video-service.js';
import { VideoTaskStore } from './videos/video-task-store.js';

export interface GatewayOptions {
  dataDir: string;
  /** Team mode: the PostgreSQL several instances share (docs/team.md); absent, SQLite in the data dir. */
  databaseUrl?: string | null;
  /** Where video outputs, references and gallery images live (default: the data dir); in team mode, a directory every instance shares. */
  filesDir?: string;
  clock?: Clock;
  logger?: Logger;
  scheduler?: SchedulerOptions;
  /** Where provider keys are kept (Electron passes safeStorage; headless uses a 0600 file). */
  secrets?: SecretStore;
  /** Connect and whole-call timeouts of upstream requests. */
  upstreamTimeouts?: UpstreamTimeouts;
  /** Request windows, daily tokens and the billing period (defaults: the contract's table). */
  limits?: LimitOverrides;
  /** How long a serving start waits for the data dir's previous holder to end (default 5 s). */
  claimWaitMs?: number;
  /** Team mode: how long video task leases and the heartbeat last (default 20 s). */
  leaseSeconds?: number;
  /** When a failing provider's routes are skipped (default: 3 failures in a row, for 30 s). */
  circuitBreaker?: BreakerSettings;
}

export interface Gateway {
  readonly dataDir: string;
  readonly store: Store;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly catalog: CatalogService;
  readonly billing: BillingService;
  readonly keys: KeyService;
  readonly access: AccessGate;
  readonly providers: ProviderRegistry;
  readonly providerConfigs: ProviderConfigs;
  readonly providerAdmin: ProviderAdmin;
  readonly images: ImageService;
  readonly videos: VideoService;
  readonly videoTasks: VideoTaskStore;
  readonly scheduler: VideoScheduler;
  readonly gallery: GalleryStore;
  readonly activity: ActivityLog;
  readonly health: RouteHealth;
  /** Taken by startBackgroundWork: one serving process per data dir. */
  readonly dataDirLock: DataDirLock;
  /** Team mode: this instance's heartbeat and leases; null on SQLite. */
  readonly team: TeamInstance | null;
  readonly filesDir: string;
  close(): Promise<void>;
}

export async function createGateway(options: GatewayOptions): Promise<Gateway> {
  const clock = options.clock ?? systemClock;
  const dataDirLock = new DataDirLock(options.dataDir, options.claimWaitMs);
  const logger = options.logger ?? silentLogger;
  const secretKey = process.env.MGW_SECRET_KEY || null;
  // Before anything opens: a team instance with a key too short to seal with does not start.
  if (options.databaseUrl && !options.secrets) checkSecretKey(secretKey);
  const store = await openDatabase(options.dataDir, options.databaseUrl);
  const team = store.dialect === 'postgres' ? new TeamInstance(store, logger, (options.leaseSeconds ?? DEFAULT_LEASE_SECONDS) * 1000) : null;
  const filesDir = options.filesDir ?? options.dataDir;
  const catalog = new CatalogService(store, clock, logger);
  const limits = resolveLimits(options.limits);
  const billing = new BillingService(store, clock, limits.billingPeriodDays * 86_400_000, team ? { instanceId: team.id, logger } : null);
  const usage = new UsageLedger(store, logger);
  const access = new AccessGate(limits, usage, clock, team ? new SharedWindows(store) : null);
  const keys = new KeyService(store, billing, clock);
  const secrets = options.secrets ?? (team ? new DatabaseSecretStore(store, secretKey) : new FileSecretStore(options.dataDir));
  const providerConfigs = new ProviderConfigs(store, secrets, clock);
  await providerConfigs.init();
  const providers = new ProviderRegistry(providerConfigs, logger, options.upstreamTimeouts);
  const local = new LocalProvider(logger);
  providers.register(local);
  const providerAdmin = new ProviderAdmin(providerConfigs, catalog, providers.http, clock);
  const health = new RouteHealth(store, clock, logger, options.circuitBreaker);
  await health.load();
  const failover = new Failover(health, clock);
  const images = new ImageService(catalog, providers, billing, access, failover);
  const files = new VideoFiles(filesDir);
  await files.init();
  const videoTasks = new VideoTaskStore(
    store,
    billing,
    files,
    clock,
    (row, charged) => access.record({ principal: row.key_id, model: row.model, requests: 0, inputTokens: 0, outputTokens: 0, spendNano: charged }),
    team ? { owner: team.id, until: () => team.leaseUntil() } : null,
  );
  const scheduler = new VideoScheduler(videoTasks, providers, files, clock, logger, options.scheduler);
  const videos = new VideoService(store, catalog, providers, billing, videoTasks, files, scheduler, clock, logger, access, failover);
  const gallery = new GalleryStore(store, clock, filesDir);
  const activity = new ActivityLog(store, logger);

  await catalog.seed(
    [...LOCAL_IMAGE_MODELS, ...LOCAL_VIDEO_MODELS].map((record) => ({ record, providerId: LOCAL_PROVIDER_ID, upstreamModel: record.id })),
  );

  return {
    dataDir: options.dataDir,
    store,
    clock,
    logger,
    catalog,
    billing,
    keys,
    access,
    providers,
    providerConfigs,
    providerAdmin,
    images,
    videos,
    videoTasks,
    scheduler,
    gallery,
    activity,
    health,
    dataDirLock,
    team,
    filesDir,
    async close() {
      await scheduler.stop();
      await team?.stop();
      await activity.close();
      await health.close();
      await usage.close();
      await local.shutdown();
      await providers.close();
      await store.close();
      dataDirLock.unclaim();
    },
  };
}

/**
 * Server start only (the CLI opens the same database without taking over its work): image holds
 * belong to synchronous requests, so any left active are from a crash; video tasks resume, and
 * files their interrupted steps left are removed.
 */
export async function startBackgroundWork(gateway: Gateway, holder = 'mgw serve'): Promise<void> {
  await gateway.dataDirLock.claim(holder);
  gateway.store.checkpointInBackground(gateway.logger);
  // In team mode the other instances' image holds are theirs: the heartbeat releases only the dead ones'.
  if (gateway.team) await gateway.team.start(gateway.billing);
  else {
    const released = await gateway.billing.releaseOrphans('image');
    if (released > 0) gateway.logger.warn({ released }, 'released image holds left by an interrupted run');
  }
  const swept = await gateway.videos.sweepFiles();
  if (swept > 0) gateway.logger.warn({ swept }, 'removed video files left by an interrupted run');
  gateway.scheduler.start();
}
