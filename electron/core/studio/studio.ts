// The studio door's core: the handler map (one per contract method), input checking, the
// owner it acts as, push events, and media lookup. The IPC bridge (Electron) and the HTTP
// routes (headless) are thin wrappers around dispatch() and events.
import { join } from 'node:path';
import { STUDIO_METHODS, type StudioMethod } from '../../../shared/studio-contract.js';
import { REFUNDED_STATUSES } from '../access/access-gate.js';
import { parseUsd } from '../billing/money.js';
import { GatewayError, invalid } from '../errors.js';
import { firstProblem } from '../schema-check.js';
import { storageError } from '../store/storage-errors.js';
import type { Gateway } from '../gateway.js';
import { accountHandlers } from './handlers/account-handlers.js';
import { catalogHandlers } from './handlers/catalog-handlers.js';
import { imageHandlers } from './handlers/image-handlers.js';
import { providerHandlers } from './handlers/provider-handlers.js';
import { ownerVideo, videoHandlers } from './handlers/video-handlers.js';
import { ensureOwner, refreshOwnerAccess } from './owner.js';
import type { StudioContext, StudioHandlers } from './studio-context.js';
import { StudioEventBus } from './studio-events.js';
import { watchExternalChanges } from './external-changes.js';
import { STUDIO_INPUT_SCHEMAS } from './studio-schemas.js';

export interface StudioOptions {
  version: string;
  apiBaseUrl?: () => string | null;
  /** How often to look for other processes' commits while the studio listens (ms). */
  externalChangeMs?: number;
}

export interface MediaFile {
  path: string;
  bytes: number | null;
  /** Its Content-Type. */
  type: string;
}

const IMAGE_TYPES: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', webp: 'image/webp' };

export interface Studio {
  readonly handlers: StudioHandlers;
  readonly events: StudioEventBus;
  readonly context: StudioContext;
  /** Checks the method name and its input, runs the handler; failures are GatewayErrors. */
  dispatch(method: string, input: unknown): Promise<unknown>;
  /** The file behind a media path ("gallery/<file>" or "videos/<task>.mp4"), or null. */
  /** A gallery image or an owner's finished video; `bytes` is the size a video had when it finished. */
  mediaFile(path: string): Promise<MediaFile | null>;
  dispose(): void;
}

/** Calls that create or change paid work are written to the activity log like API requests. */
const LOGGED: ReadonlySet<StudioMethod> = new Set(['images.generate', 'images.edit', 'videos.create', 'videos.cancel']);

export function buildHandlers(ctx: StudioContext): StudioHandlers {
  return { ...catalogHandlers(ctx), ...imageHandlers(ctx), ...videoHandlers(ctx), ...accountHandlers(ctx), ...providerHandlers(ctx) };
}

export async function createStudio(gateway: Gateway, options: StudioOptions): Promise<Studio> {
  const owner = await ensureOwner(gateway);
  const events = new StudioEventBus();
  const context: StudioContext = { gateway, owner, version: options.version, apiBaseUrl: options.apiBaseUrl ?? (() => null), events };
  const handlers = buildHandlers(context);

  const unsubscribe = [
    gateway.scheduler.onTaskChange((taskId) => {
      // A read that fails (the database away) loses this one event, not the process: the next one carries the task whole.
      void ownerVideo(context, taskId).then(
        (video) => video && events.emit('videos.updated', { video }),
        (error: unknown) => gateway.logger.debug({ err: error, taskId }, 'could not read a changed video task for the studio'),
      );
    }),
    gateway.catalog.onChange(() => events.emit('catalog.changed', {})),
    gateway.billing.onChange((accountId) => events.emit('billing.changed', { account_id: accountId })),
    gateway.activity.onAdded((entry) => events.emit('activity.added', { entry })),
    // The CLI's price changes and top-ups: the catalog revalidates (and emits catalog.changed
    // itself when its revision moved); money may have moved on any account, the owner's included.
    watchExternalChanges({
      store: gateway.store,
      listened: () => events.size > 0,
      intervalMs: options.externalChangeMs,
      onChange: () => {
        void gateway.catalog.entries().catch(() => {});
        events.emit('billing.changed', { account_id: owner.accountId });
      },
    }),
  ];

  async function dispatch(method: string, input: unknown): Promise<unknown> {
    if (!(STUDIO_METHODS as readonly string[]).includes(method)) {
      throw new GatewayError('not_found', `No studio method ${method.slice(0, 64)}.`);
    }
    const name = method as StudioMethod;
    const body = input ?? {};
    const problem = await firstProblem(STUDIO_INPUT_SCHEMAS[name], body);
    if (problem) throw invalid(`${problem.param ?? 'input'}: ${problem.message}.`, problem.param);
    const started = performance.now();
    const handler = handlers[name] as (value: unknown) => Promise<unknown>;
    if (LOGGED.has(name)) await refreshOwnerAccess(gateway, owner).catch((thrown: unknown) => Promise.reject(storageError(thrown) ?? thrown));
    // Studio creations count against the owner's request windows like API requests do.
    const ticket = LOGGED.has(name) && name !== 'videos.cancel' ? await gateway.access.admit(owner) : null;
    let status = 200;
    let output: unknown;
    try {
      output = await handler(body);
      return output;
    } catch (thrown) {
      const error = storageError(thrown) ?? thrown;
      status = error instanceof GatewayError ? error.status : 500;
      if (ticket && REFUNDED_STATUSES.has(status)) await gateway.access.refund(ticket);
      throw error;
    } finally {
      if (LOGGED.has(name)) {
        gateway.activity.record({
          at: Date.now(),
          key_id: owner.keyId,
          method: 'STUDIO',
          endpoint: name,
          model: typeof (body as { model?: unknown }).model === 'string' ? (body as { model: string }).model : null,
          status,
          latency_ms: performance.now() - started,
          cost_nano: costOf(output),
        });
      }
    }
  }

  async function mediaFile(path: string): Promise<MediaFile | null> {
    const gallery = /^gallery\/(img_[a-z0-9]{16}\.(png|jpg|webp))$/.exec(path);
    if (gallery) {
      const file = await gateway.gallery.filePath(gallery[1]!);
      return file ? { path: file, bytes: null, type: IMAGE_TYPES[gallery[2]!]! } : null;
    }
    const video = /^videos\/(video_[a-z0-9]{20})\.mp4$/.exec(path);
    if (video) {
      const row = await gateway.videoTasks.get(video[1]!);
      if (!row || row.account_id !== owner.accountId || row.status !== 'completed' || !row.output_path) return null;
      return row.output_path.startsWith(join(gateway.filesDir, 'videos')) ? { path: row.output_path, bytes: row.output_bytes, type: 'video/mp4' } : null;
    }
    return null;
  }

  return { handlers, events, context, dispatch, mediaFile, dispose: () => unsubscribe.forEach((off) => off()) };
}

function costOf(output: unknown): number {
  const value = output as { item?: { cost_usd?: string }; video?: { cost_usd?: string } } | undefined;
  const text = value?.item?.cost_usd ?? value?.video?.cost_usd;
  return text ? (parseUsd(text) ?? 0) : 0;
}
