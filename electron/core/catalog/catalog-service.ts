// The live catalog. Records live in the database, so an owner's change from the CLI (another
// process) or from the studio shows in the next GET /v1/models. Reads are served from a cache:
// changes made through this process invalidate it directly; changes by other processes are
// detected through SQLite's data_version (read at most once per REVALIDATE_MS, see
// change-watch.ts) and the catalog revision a trigger bumps on every change.
import type { ModelList, ModelRecord } from '../../../shared/api-types.js';
import type { Clock } from '../clock.js';
import { GatewayError, invalid } from '../errors.js';
import { silentLogger, type Logger } from '../logger.js';
import { LOCAL_PROVIDER_ID } from '../providers/local/local-models.js';
import { ChangeWatch } from '../store/change-watch.js';
import type { Store } from '../store/database.js';
import { mergeRecordPatch, type JsonObject } from './model-patch.js';
import { assertModelRecord } from './model-record-check.js';
import type { Workflow } from '../providers/templates/placeholders.js';
import type { ModelRoutesTable } from '../store/schema.js';
import type { RouteTarget } from '../providers/route-limits.js';
import { checkRoutes, routeParam, type ModelRoute, type RoutePut } from './model-routes.js';
import { withoutPartnerFields } from './partner-fields.js';
import type { Insertable } from 'kysely';

export interface CatalogEntry {
  record: ModelRecord;
  /** Tried in this order; never empty. */
  routes: ModelRoute[];
  source: 'builtin' | 'owner';
}

/** What put() takes: the routes as given (checked against the record and their providers), or the one-route form. */
export type CatalogPut = { record: ModelRecord; source?: CatalogEntry['source'] } & ({ routes: RoutePut[] } | RoutePut);

/** How patch() changes a model's routes: all of them, or the one-route form; neither keeps them. */
export interface RoutesTarget {
  routes?: RoutePut[];
  providerId?: string;
  upstreamModel?: string;
  workflow?: unknown;
}

export const REVALIDATE_MS = 1;

interface Snapshot {
  revision: string;
  entries: Map<string, CatalogEntry>;
  list: ModelList;
  body: Buffer;
}

type Listener = () => void;

export class CatalogService {
  private snapshot: Snapshot | null = null;
  private readonly watch: ChangeWatch;
  private readonly listeners = new Set<Listener>();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly logger: Logger = silentLogger,
  ) {
    this.watch = new ChangeWatch(store, REVALIDATE_MS);
  }

  /** The serialized `{object: "list", data}` body, ready to send. */
  async listBody(): Promise<Buffer> {
    return (await this.current()).body;
  }

  /** The body when the cache is known to be fresh without touching the database; else null. */
  freshBody(): Buffer | null {
    return this.fresh() ? this.snapshot!.body : null;
  }

  async list(): Promise<ModelRecord[]> {
    return (await this.current()).list.data;
  }

  /** One model as GET /v1/models lists it; a not_found GatewayError when it is not listed. */
  async listed(id: string): Promise<ModelRecord> {
    const record = (await this.find(id))?.record;
    if (!record) throw new GatewayError('not_found', `The model ${JSON.stringify(id.slice(0, 200))} does not exist. GET /v1/models lists the available models.`, 'id');
    return record;
  }

  async entries(): Promise<CatalogEntry[]> {
    return [...(await this.current()).entries.values()];
  }

  async find(id: string): Promise<CatalogEntry | undefined> {
    return (await this.current()).entries.get(id);
  }

  /** Adds or replaces a model (validated against the record schema, its routes against their providers). */
  async put(entry: CatalogPut): Promise<CatalogEntry> {
    const record = await assertModelRecord(entry.record);
    const given = 'routes' in entry ? entry.routes : [{ providerId: entry.providerId, upstreamModel: entry.upstreamModel, workflow: entry.workflow }];
    const checked = await checkRoutes(record, given, (id) => this.routeTarget(id), routeParam(!('routes' in entry)));
    const source = entry.source ?? 'owner';
    const now = this.clock.now();
    // The configured providers among the routes (engines registered in code have no row).
    const routeProviders = [...new Set(checked.routes.map((route) => route.providerId))];
    const stored = (await this.store.db.selectFrom('providers').select('id').where('id', 'in', routeProviders).execute()).map((row) => row.id);
    await this.store.tx(async (trx) => {
      // A provider's removal (which checks no route names it) takes this lock too: in team mode
      // a route cannot be put on a provider going away (SQLite's one writer does this alone).
      await this.store.lock(trx, 'providers');
      const still = stored.length === 0 ? [] : await trx.selectFrom('providers').select('id').where('id', 'in', stored).execute();
      const removed = stored.find((id) => !still.some((row) => row.id === id));
      if (removed) throw invalid(`The provider ${removed} was removed while this model was being put; add it again first.`, 'provider');
      const row = { record_json: JSON.stringify(checked.record), source, updated_at: now };
      await trx.insertInto('models').values({ id: record.id, ...row }).onConflict((oc) => oc.column('id').doUpdateSet(row)).execute();
      await trx.deleteFrom('model_routes').where('model_id', '=', record.id).execute();
      await trx.insertInto('model_routes').values(checked.routes.map((route, position) => routeRow(record.id, position, route))).execute();
    });
    this.invalidate();
    return { record: checked.record, routes: checked.routes, source };
  }

  /**
   * Edits model `id` with a merge patch of record fields (model-patch.ts), or makes it from the
   * patch when the id is new (then `providerId` is needed; `object`, `created` and `owned_by` are
   * filled in). The upstream model defaults to the stored one, else the id. The result is checked
   * as a whole record: a refused patch changes nothing.
   */
  async patch(id: string, patch: JsonObject, target: RoutesTarget = {}): Promise<{ entry: CatalogEntry; created: boolean }> {
    const existing = await this.find(id);
    const routes = nextRoutes(id, existing, target);
    const primary = existing?.routes[0];
    const moved = primary !== undefined && (primary.providerId !== routes[0]!.providerId || primary.upstreamModel !== routes[0]!.upstreamModel);
    const base = existing
      ? moved ? withoutPartnerFields(existing.record) : existing.record
      : { id, object: 'model', created: Math.floor(this.clock.now() / 1000), owned_by: routes[0]!.providerId };
    // The argument names the model: an id inside the patch does not rename it.
    const record = { ...(mergeRecordPatch(base, patch) as JsonObject), id } as unknown as ModelRecord;
    // Errors name the fields the caller gave: routes[i].upstream_model for routes, upstream_model for the one-route form.
    const entry = await this.put(target.routes || routes.length > 1 ? { record, routes } : { record, ...routes[0]! });
    return { entry, created: existing === undefined };
  }

  /** A configured provider's kind and base URL (`local` for the built-in engine); undefined when unknown. */
  private async routeTarget(providerId: string): Promise<RouteTarget | undefined> {
    if (providerId === LOCAL_PROVIDER_ID) return { kind: 'local', baseUrl: null };
    const row = await this.store.db.selectFrom('providers').select(['kind', 'base_url']).where('id', '=', providerId).executeTakeFirst();
    return row ? { kind: row.kind, baseUrl: row.base_url } : undefined;
  }

  async remove(id: string): Promise<void> {
    const result = await this.store.db.deleteFrom('models').where('id', '=', id).executeTakeFirst();
    if (Number(result.numDeletedRows) === 0) throw new GatewayError('not_found', `No model ${id} in the catalog.`, 'model');
    this.invalidate();
  }

  /**
   * Seeds built-in records once per data dir: later owner edits (prices, removal) are kept.
   * A `seeded:<id>` marker remembers that a record was seeded even after the owner removes it.
   */
  async seed(entries: { record: ModelRecord; providerId: string; upstreamModel: string }[]): Promise<void> {
    await this.store.tx(async (trx) => {
      // Instances of a team starting together seed once between them.
      await this.store.lock(trx, 'catalog_seed');
      for (const entry of entries) {
        const marker = `seeded:${entry.record.id}`;
        const seen = await trx.selectFrom('meta').select('key').where('key', '=', marker).executeTakeFirst();
        if (seen) continue;
        const inserted = await trx
          .insertInto('models')
          // Built-in records are typed in code; checking them would load the schema checker at start.
          .values({ id: entry.record.id, record_json: JSON.stringify(entry.record), source: 'builtin', updated_at: this.clock.now() })
          .onConflict((oc) => oc.column('id').doNothing())
          .executeTakeFirst();
        if (Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0) {
          await trx.insertInto('model_routes').values(routeRow(entry.record.id, 0, { providerId: entry.providerId, upstreamModel: entry.upstreamModel, workflow: null })).execute();
        }
        await trx.insertInto('meta').values({ key: marker, value: String(this.clock.now()) }).execute();
      }
    });
    this.invalidate();
  }

  /** Called when the catalog changed; the studio pushes catalog events from here. */
  onChange(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private invalidate(): void {
    this.watch.reset();
    this.snapshot = null;
    for (const listener of this.listeners) listener();
  }

  /** Synchronous part of the freshness check. */
  private fresh(): boolean {
    return this.snapshot !== null && this.watch.unchanged();
  }

  private async current(): Promise<Snapshot> {
    if (this.fresh()) return this.snapshot!;
    // Marked before reading: a commit landing in between shows as a change next time.
    this.watch.mark();
    let revision: string;
    try {
      revision = await this.revision();
    } catch (error) {
      // The database away (team mode's server down, a lock held too long): the catalog as last
      // read serves until it is back, and the next request looks again.
      if (!this.snapshot) throw error;
      this.watch.reset();
      return this.snapshot;
    }
    if (this.snapshot && this.snapshot.revision === revision) return this.snapshot;
    const changed = this.snapshot !== null;
    this.snapshot = await this.load(revision);
    if (changed) for (const listener of this.listeners) listener();
    return this.snapshot;
  }

  private async revision(): Promise<string> {
    const row = await this.store.db.selectFrom('meta').select('value').where('key', '=', 'catalog_revision').executeTakeFirst();
    return row?.value ?? '0';
  }

  private async load(revision: string): Promise<Snapshot> {
    const rows = await this.store.db.selectFrom('models').selectAll().orderBy('source').orderBy('id').execute();
    const routeRows = await this.store.db.selectFrom('model_routes').selectAll().orderBy('model_id').orderBy('position').execute();
    const routes = new Map<string, ModelRoute[]>();
    for (const row of routeRows) {
      let workflow: Workflow | null;
      try {
        workflow = row.workflow_json === null ? null : (JSON.parse(row.workflow_json) as Workflow);
      } catch {
        // A route damaged outside the gateway is left out; the model's other routes still serve.
        this.logger.warn({ model: row.model_id, position: row.position }, 'a model route whose stored workflow is not JSON is left out');
        continue;
      }
      const list = routes.get(row.model_id) ?? [];
      list.push({ providerId: row.provider_id, upstreamModel: row.upstream_model, workflow });
      routes.set(row.model_id, list);
    }
    const entries = new Map<string, CatalogEntry>();
    for (const row of rows) {
      let record: ModelRecord;
      try {
        record = JSON.parse(row.record_json) as ModelRecord;
      } catch {
        // A row damaged outside the gateway: that model is left out, not the whole catalog.
        this.logger.warn({ model: row.id }, 'a catalog model whose stored record is not JSON is left out');
        continue;
      }
      const modelRoutes = routes.get(row.id);
      if (!modelRoutes) {
        this.logger.warn({ model: row.id }, 'a catalog model without a usable route is left out');
        continue;
      }
      entries.set(row.id, { record, routes: modelRoutes, source: row.source });
    }
    const list: ModelList = { object: 'list', data: [...entries.values()].map((e) => e.record) };
    return { revision, entries, list, body: Buffer.from(JSON.stringify(list)) };
  }
}

/**
 * The routes a patch leaves: the ones given (each keeping its stored workflow when given again
 * without one), the one-route form's, or the existing ones. A workflow belongs to its provider:
 * a route moved to another provider keeps it only when given again.
 */
function nextRoutes(id: string, existing: CatalogEntry | undefined, target: RoutesTarget): RoutePut[] {
  const stored = (providerId: string, upstreamModel: string) =>
    existing?.routes.find((r) => r.providerId === providerId && r.upstreamModel === upstreamModel) ?? existing?.routes.find((r) => r.providerId === providerId);
  if (target.routes) {
    return target.routes.map((route) => ({ ...route, workflow: route.workflow !== undefined ? route.workflow : (stored(route.providerId, route.upstreamModel)?.workflow ?? null) }));
  }
  const one = target.providerId !== undefined || target.upstreamModel !== undefined || target.workflow !== undefined;
  if (existing && !one) return existing.routes;
  if (existing && existing.routes.length > 1 && target.providerId === undefined) {
    throw invalid(`${id} has ${existing.routes.length} routes: give them all again (mgw models put --route) to change one.`, 'routes');
  }
  const providerId = target.providerId ?? existing?.routes[0]?.providerId;
  if (providerId === undefined) throw invalid(`No model ${id} in the catalog: a new model needs a provider.`, 'provider');
  const upstreamModel = target.upstreamModel ?? existing?.routes[0]?.upstreamModel ?? id;
  const workflow = target.workflow !== undefined ? target.workflow : (stored(providerId, upstreamModel)?.workflow ?? null);
  return [{ providerId, upstreamModel, workflow }];
}

function routeRow(modelId: string, position: number, route: ModelRoute): Insertable<ModelRoutesTable> {
  return {
    model_id: modelId,
    position,
    provider_id: route.providerId,
    upstream_model: route.upstreamModel,
    workflow_json: route.workflow === null ? null : JSON.stringify(route.workflow),
  };
}
