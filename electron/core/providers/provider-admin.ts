// Owner operations on upstream providers shared by the CLI and the studio: a connection test
// and model discovery (price book for the models whose prices are known; the records themselves
// when the upstream is a gateway like this one, whose model list carries prices and capabilities).
import { randomUUID } from 'node:crypto';
import type { ModelRecord } from '../../../shared/api-types.js';
import type { CatalogService } from '../catalog/catalog-service.js';
import { hasUnsafeSegment } from '../catalog/model-path.js';
import { modelRecordProblem } from '../catalog/model-record-check.js';
import type { Clock } from '../clock.js';
import { GatewayError, invalid } from '../errors.js';
import type { ProviderConfigs } from './provider-configs.js';
import { recordFromPriceBook } from './price-book.js';
import { PROVIDER_KIND_INFO } from '../../../shared/provider-kinds.js';
import type { ProviderRow } from '../store/schema.js';
import type { EngineKind, ProviderTarget } from './engine-kind.js';
import { ENGINE_KINDS } from './engine-kinds.js';
import { engineImageRecord } from './engine-records.js';
import type { ProviderCheck } from './provider.js';
import type { UpstreamClient } from './upstream/upstream-client.js';
import { UpstreamStatusError } from './upstream/upstream-errors.js';

export type ConnectionCheck = ProviderCheck;

export interface DiscoveryResult {
  added: string[];
  skipped: string[];
}

export class ProviderAdmin {
  constructor(
    private readonly configs: ProviderConfigs,
    private readonly catalog: CatalogService,
    private readonly http: UpstreamClient,
    private readonly clock: Clock,
  ) {}

  /** openai: lists its models with the key; fal (no listing endpoint): asks the queue with the key. */
  async check(id: string): Promise<ConnectionCheck> {
    const row = await this.configs.row(id);
    if (!row) throw new GatewayError('not_found', `No provider ${id}.`, 'id');
    const { key, problem } = this.configs.readKey(row);
    if (problem) return { ok: false, message: problem, models: [], facts: [] };
    try {
      const engine = ENGINE_KINDS[row.kind];
      if (engine) return await engine.check(this.target(row, key));
      if (row.kind === 'openai') {
        const models = (await this.listModels(row.base_url, key)).map((m) => m.id);
        const keyCheck = await this.checkKey(row.base_url, key);
        if (keyCheck.refused) return { ok: false, message: keyCheck.refused, models: [], facts: [] };
        return { ok: true, message: `Connected: ${models.length} models listed; ${keyCheck.note}`, models, facts: [] };
      }
      return await this.checkQueue(row.base_url, key);
    } catch (error) {
      return { ok: false, message: error instanceof GatewayError ? error.message : 'The provider could not be reached.', models: [], facts: [] };
    }
  }

  async discover(id: string): Promise<DiscoveryResult> {
    const row = await this.configs.row(id);
    if (!row) throw new GatewayError('not_found', `No provider ${id}.`, 'id');
    const engine = ENGINE_KINDS[row.kind];
    if (engine) return this.discoverEngine(row, engine);
    if (row.kind !== 'openai') throw invalid(`Provider ${id} (${row.kind}) has no model listing; add its models with mgw models put.`, 'id');
    const upstream = await this.listModels(row.base_url, this.configs.apiKey(row));
    const result: DiscoveryResult = { added: [], skipped: [] };
    for (const listed of upstream) {
      // A listed name with a ".", ".." or empty segment is never adopted (nor joined into a path).
      if (hasUnsafeSegment(listed.id)) {
        result.skipped.push(listed.id);
        continue;
      }
      const catalogId = `${id}/${listed.id}`;
      const record = recordFromPriceBook(listed.id, catalogId, id, Math.floor(this.clock.now() / 1000)) ?? (await adoptListedRecord(listed.raw, catalogId, id));
      if (!record) {
        result.skipped.push(listed.id);
        continue;
      }
      if (!(await this.catalog.find(catalogId))) {
        await this.catalog.put({ record, providerId: id, upstreamModel: listed.id });
        result.added.push(catalogId);
      }
    }
    return result;
  }

  /** One image model per checkpoint the engine offers; ones already in the catalog are left as they are. */
  private async discoverEngine(row: ProviderRow, engine: EngineKind): Promise<DiscoveryResult> {
    const offered = await engine.discover(this.target(row, this.configs.apiKey(row)));
    const result: DiscoveryResult = { added: [], skipped: [] };
    for (const model of offered) {
      const catalogId = `${row.id}/${model.name}`;
      if (hasUnsafeSegment(model.name) || hasUnsafeSegment(catalogId)) {
        result.skipped.push(model.upstreamModel);
        continue;
      }
      if (await this.catalog.find(catalogId)) continue;
      const record = engineImageRecord(model, catalogId, row.id, Math.floor(this.clock.now() / 1000));
      await this.catalog.put({ record, providerId: row.id, upstreamModel: model.upstreamModel });
      result.added.push(catalogId);
    }
    return result;
  }

  private target(row: ProviderRow, apiKey: string | null): ProviderTarget {
    return { id: row.id, baseUrl: row.base_url, apiKey, timeoutMs: row.timeout_ms ?? PROVIDER_KIND_INFO[row.kind].defaultTimeoutMs, http: this.http };
  }

  /**
   * Listing models proves little about the key: many OpenAI-compatible servers (another gateway
   * like this one too) list them to anyone. Listing video tasks needs the key and costs nothing,
   * so it is asked too; a server without that endpoint leaves the key unverified.
   */
  private async checkKey(baseUrl: string, key: string | null): Promise<{ refused?: string; note: string }> {
    try {
      await this.http.json({ method: 'GET', url: `${baseUrl}/videos?limit=1`, headers: key ? { authorization: `Bearer ${key}` } : {}, timeoutMs: 15_000 });
      return { note: 'the key was accepted.' };
    } catch (error) {
      if (error instanceof UpstreamStatusError && (error.upstreamStatus === 401 || error.upstreamStatus === 403)) return { refused: error.message, note: '' };
      return { note: 'the key could not be checked (the upstream has no video task listing).' };
    }
  }

  /**
   * A fal queue lists no models, and its root proves nothing about the key. The status of a
   * request that does not exist, at the documented {base}/{app}/requests/{id}/status, costs
   * nothing and needs the key: a 401 or 403 is a wrong key; any other answer (404 for the
   * unknown request) is a queue that took it.
   */
  private async checkQueue(baseUrl: string, key: string | null): Promise<ConnectionCheck> {
    const url = `${baseUrl}/fal-ai/flux/requests/${randomUUID()}/status`;
    try {
      await this.http.json({ method: 'GET', url, headers: key ? { authorization: `Key ${key}` } : {}, timeoutMs: 10_000 });
    } catch (error) {
      // A refused key (401/403) maps to upstream_unavailable, as does a queue that is down.
      if (error instanceof GatewayError && error.code === 'upstream_unavailable') throw error;
    }
    return { ok: true, message: 'Connected: the queue answers; the key was accepted.', models: [], facts: [] };
  }

  private async listModels(baseUrl: string, key: string | null): Promise<{ id: string; raw: Record<string, unknown> }[]> {
    const { body } = await this.http.json<{ data?: unknown[] }>({
      method: 'GET',
      url: `${baseUrl}/models`,
      headers: key ? { authorization: `Bearer ${key}` } : {},
      timeoutMs: 15_000,
    });
    if (!Array.isArray(body.data)) throw new GatewayError('upstream_invalid_response', 'The provider\u2019s model list is malformed.');
    return body.data
      .filter((m): m is Record<string, unknown> => typeof m === 'object' && m !== null && typeof (m as { id?: unknown }).id === 'string')
      .map((raw) => ({ id: raw.id as string, raw }));
  }
}

/**
 * A listed model that is already a whole catalog record (another gateway like this one lists
 * them so) is taken as it is, under this provider's id. Its partner flags are dropped: this
 * gateway downloads the video and serves it itself. Anything short of a valid record: null.
 */
async function adoptListedRecord(raw: Record<string, unknown>, catalogId: string, providerId: string): Promise<ModelRecord | null> {
  if (typeof raw.capabilities !== 'object' || raw.capabilities === null || typeof raw.pricing !== 'object') return null;
  const { partner_video: _partner, partner_routes: _routes, ...capabilities } = raw.capabilities as Record<string, unknown>;
  const record = { ...raw, id: catalogId, owned_by: providerId, capabilities };
  return (await modelRecordProblem(record)) ? null : (record as unknown as ModelRecord);
}
