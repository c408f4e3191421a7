// Owner operations on upstream providers shared by the CLI and the studio: a connection test
// and model discovery (price book for the models whose prices are known).
import type { CatalogService } from '../catalog/catalog-service.js';
import type { Clock } from '../clock.js';
import { GatewayError, invalid } from '../errors.js';
import type { ProviderConfigs } from './provider-configs.js';
import { recordFromPriceBook } from './price-book.js';
import type { UpstreamClient } from './upstream/upstream-client.js';

export interface ConnectionCheck {
  ok: boolean;
  message: string;
  models: string[];
}

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

  /** openai: lists its models with the key; fal (no listing endpoint): checks the queue answers. */
  async check(id: string): Promise<ConnectionCheck> {
    const row = await this.configs.row(id);
    if (!row) throw new GatewayError('not_found', `No provider ${id}.`, 'id');
    const key = this.configs.apiKey(row);
    try {
      if (row.kind === 'openai') {
        const models = await this.listModels(row.base_url, key);
        return { ok: true, message: `Connected: ${models.length} models listed.`, models };
      }
      await this.http.json({ method: 'GET', url: `${row.base_url}/`, headers: key ? { authorization: `Key ${key}` } : {}, timeoutMs: 10_000 }).catch((error: unknown) => {
        // Any HTTP answer proves the queue is reachable; only unavailability is a failure.
        if (error instanceof GatewayError && error.code === 'upstream_unavailable') throw error;
      });
      return { ok: true, message: 'Connected: the queue answers.', models: [] };
    } catch (error) {
      return { ok: false, message: error instanceof GatewayError ? error.message : 'The provider could not be reached.', models: [] };
    }
  }

  async discover(id: string): Promise<DiscoveryResult> {
    const row = await this.configs.row(id);
    if (!row) throw new GatewayError('not_found', `No provider ${id}.`, 'id');
    if (row.kind !== 'openai') throw invalid(`Provider ${id} (${row.kind}) has no model listing; add its models with mgw models put.`, 'id');
    const upstream = await this.listModels(row.base_url, this.configs.apiKey(row));
    const result: DiscoveryResult = { added: [], skipped: [] };
    for (const model of upstream) {
      const catalogId = `${id}/${model}`;
      const record = recordFromPriceBook(model, catalogId, id, Math.floor(this.clock.now() / 1000));
      if (!record) {
        result.skipped.push(model);
        continue;
      }
      if (!(await this.catalog.find(catalogId))) {
        await this.catalog.put({ record, providerId: id, upstreamModel: model });
        result.added.push(catalogId);
      }
    }
    return result;
  }

  private async listModels(baseUrl: string, key: string | null): Promise<string[]> {
    const { body } = await this.http.json<{ data?: { id?: unknown }[] }>({
      method: 'GET',
      url: `${baseUrl}/models`,
      headers: key ? { authorization: `Bearer ${key}` } : {},
      timeoutMs: 15_000,
    });
    if (!Array.isArray(body.data)) throw new GatewayError('upstream_invalid_response', 'The provider\u2019s model list is malformed.');
    return body.data.map((m) => m.id).filter((m): m is string => typeof m === 'string');
  }
}
