// The live catalog. Records live in the database, so an owner's change from the CLI (another
// process) or from the studio shows in the next GET /v1/models. Reads are served from a cache:
// changes made through this process invalidate it directly; changes by other processes are
// detected through SQLite's data_version (read at most once per REVALIDATE_MS, see
// change-watch.ts) and the catalog revision a trigger bumps on every change.
import type { ModelList, ModelRecord } from '../../../shared/api-types.js';
import type { Clock } from '../clock.js';
import { hasControlChar } from '../control-chars.js';
import { GatewayError, invalid } from '../errors.js';
import { silentLogger, type Logger } from '../logger.js';
import { LOCAL_PROVIDER_ID } from '../providers/local/local-models.js';
import { ChangeWatch } from '../store/change-watch.js';
import type { Store } from '../store/database.js';
import { hasUnsafeSegment, UNSAFE_SEGMENT } from './model-path.js';
import { mergeRecordPatch, type JsonObject } from './model-patch.js';
import { assertModelRecord } from './model-record-check.js';
import { ENGINE_KINDS } from '../providers/engine-kinds.js';
import type { Workflow } from '../providers/templates/placeholders.js';
import { isProviderKind } from '../../../shared/provider-kinds.js';
import { withoutPartnerFields, withPartnerFields } from './partner-fields.js';

export interface CatalogEntry {
  record: ModelRecord;
  providerId: string;
  upstreamModel: string;
  /** The owner's workflow or request template for the model's provider (null: the kind's built-in one). */
  workflow: Workflow | null;
  source: 'builtin' | 'owner';
}

/** What put() takes: the workflow as given (checked against the provider's kind), or none. */
export interface CatalogPut {
  record: ModelRecord;
  providerId: string;
  upstreamModel: string;
  workflow?: unknown;
  source?: CatalogEntry['source'];
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

  /** Adds or replaces a model (validated against the record schema). */
  async put(entry: CatalogPut): Promise<CatalogEntry> {
    const checked = await assertModelRecord(entry.record);
    if (hasUnsafeSegment(entry.upstreamModel)) {
      throw invalid(`The upstream model ${JSON.stringify(entry.upstreamModel)} ${UNSAFE_SEGMENT}.`, 'upstream_model');
    }
    if (hasControlChar(entry.upstreamModel)) {
      throw invalid(`The upstream model ${JSON.stringify(entry.upstreamModel)} contains a line break or control character.`, 'upstream_model');
    }
    const kind = await this.providerKind(entry.providerId);
    const record = withPartnerFields(checked, kind, entry.upstreamModel);
    const workflow = checkedWorkflow(entry.workflow, kind, entry.providerId, record);
    const workflowJson = workflow === null ? null : JSON.stringify(workflow);
    await this.store.db
      .insertInto('models')
      .values({
        id: record.id,
        provider_id: entry.providerId,
        upstream_model: entry.upstreamModel,
        record_json: JSON.stringify(record),
        workflow_json: workflowJson,
        source: entry.source ?? 'owner',
        updated_at: this.clock.now(),
      })
      .onConflict((oc) =>
        oc.column('id').doUpdateSet({
          provider_id: entry.providerId,
          upstream_model: entry.upstreamModel,
          record_json: JSON.stringify(record),
          workflow_json: workflowJson,
          source: entry.source ?? 'owner',
          updated_at: this.clock.now(),
        }),
      )
      .execute();
    this.invalidate();
    return { record, providerId: entry.providerId, upstreamModel: entry.upstreamModel, workflow, source: entry.source ?? 'owner' };
  }

  /**
   * Edits model `id` with a merge patch of record fields (model-patch.ts), or makes it from the
   * patch when the id is new (then `providerId` is needed; `object`, `created` and `owned_by` are
   * filled in). The upstream model defaults to the stored one, else the id. The result is checked
   * as a whole record: a refused patch changes nothing.
   */
  async patch(
    id: string,
    patch: JsonObject,
    target: { providerId?: string; upstreamModel?: string; workflow?: unknown } = {},
  ): Promise<{ entry: CatalogEntry; created: boolean }> {
    const existing = await this.find(id);
    const providerId = target.providerId ?? existing?.providerId;
    if (providerId === undefined) throw invalid(`No model ${id} in the catalog: a new model needs a provider.`, 'provider');
    const upstreamModel = target.upstreamModel ?? existing?.upstreamModel ?? id;
    const moved = existing !== undefined && (existing.providerId !== providerId || existing.upstreamModel !== upstreamModel);
    const base = existing
      ? moved ? withoutPartnerFields(existing.record) : existing.record
      : { id, object: 'model', created: Math.floor(this.clock.now() / 1000), owned_by: providerId };
    // The argument names the model: an id inside the patch does not rename it.
    const record = { ...(mergeRecordPatch(base, patch) as JsonObject), id } as unknown as ModelRecord;
    // A workflow belongs to its provider: one moved elsewhere keeps it only when given again.
    const workflow = target.workflow !== undefined ? target.workflow : existing && existing.providerId === providerId ? existing.workflow : null;
    return { entry: await this.put({ record, providerId, upstreamModel, workflow }), created: existing === undefined };
  }

  /** The kind of a configured provider (`local` for the built-in engine); undefined when unknown. */
  private async providerKind(providerId: string): Promise<string | undefined> {
    if (providerId === LOCAL_PROVIDER_ID) return 'local';
    const row = await this.store.db.selectFrom('providers').select('kind').where('id', '=', providerId).executeTakeFirst();
    return row?.kind;
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
  async seed(entries: Omit<CatalogEntry, 'source' | 'workflow'>[]): Promise<void> {
    await this.store.tx(async (trx) => {
      for (const entry of entries) {
        const marker = `seeded:${entry.record.id}`;
        const seen = await trx.selectFrom('meta').select('key').where('key', '=', marker).executeTakeFirst();
        if (seen) continue;
        await trx
          .insertInto('models')
          .values({
            id: entry.record.id,
            provider_id: entry.providerId,
            upstream_model: entry.upstreamModel,
            // Built-in records are typed in code; checking them would load the schema checker at start.
            record_json: JSON.stringify(entry.record),
            workflow_json: null,
            source: 'builtin',
            updated_at: this.clock.now(),
          })
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
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
    const revision = await this.revision();
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
      let workflow: Workflow | null = null;
      try {
        workflow = row.workflow_json === null ? null : (JSON.parse(row.workflow_json) as Workflow);
      } catch {
        this.logger.warn({ model: row.id }, 'a catalog model whose stored workflow is not JSON is left out');
        continue;
      }
      entries.set(row.id, {
        record,
        providerId: row.provider_id,
        upstreamModel: row.upstream_model,
        workflow,
        source: row.source,
      });
    }
    const list: ModelList = { object: 'list', data: [...entries.values()].map((e) => e.record) };
    return { revision, entries, list, body: Buffer.from(JSON.stringify(list)) };
  }
}

/**
 * The workflow as the provider's kind accepts it (null: none given). A provider that runs no
 * workflows refuses one: it would be stored and silently never used.
 */
function checkedWorkflow(workflow: unknown, kind: string | undefined, providerId: string, record: ModelRecord): Workflow | null {
  if (workflow === undefined || workflow === null) return null;
  const engine = isProviderKind(kind) ? ENGINE_KINDS[kind] : undefined;
  if (!engine?.checkWorkflow) throw invalid(`Provider ${providerId} (${kind ?? 'unknown'}) takes no workflow or template; leave --workflow out.`, 'workflow');
  return engine.checkWorkflow(workflow, record);
}
