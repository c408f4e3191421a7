import type { ModelRecord } from '../../shared/api-types.js';
import type { Gateway } from '../core/gateway.js';
import { parse, stringOpt, UsageError } from './args.js';
import { printJson, printTable } from './output.js';

const USAGE = {
  list: 'mgw models list [--json]',
  put: "mgw models put <id> [--provider ID] [--upstream-model NAME] --json '<model record fields>'",
  remove: 'mgw models remove <id>',
  discover: 'mgw models discover <provider-id>',
};

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Fields merge into the existing record; `pricing` and `capabilities` merge one level deeper. */
function mergeRecord(base: Json, patch: Json): Json {
  const merged: Json = { ...base, ...patch };
  for (const key of ['pricing', 'capabilities', 'modalities', 'context_window']) {
    if (isObject(base[key]) && isObject(patch[key])) merged[key] = { ...base[key], ...patch[key] };
  }
  return merged;
}

/** partner_video / partner_routes describe the old provider and upstream model: a moved record gets them anew. */
function movedFrom(record: Json, moved: boolean): Json {
  if (!moved || !isObject(record.capabilities)) return record;
  const { partner_video: _video, partner_routes: _routes, ...capabilities } = record.capabilities;
  return { ...record, capabilities };
}

export async function modelsCommand(gateway: Gateway, sub: string, argv: string[]): Promise<void> {
  switch (sub) {
    case 'list': {
      const args = parse(argv, { json: { type: 'boolean' } }, { min: 0, max: 0, usage: USAGE.list });
      const entries = await gateway.catalog.entries();
      if (args.values.json) {
        return printJson(entries.map((e) => ({ provider: e.providerId, upstream_model: e.upstreamModel, source: e.source, record: e.record })));
      }
      printTable(
        entries.map(({ record, providerId, upstreamModel }) => ({
          id: record.id,
          type: record.model_type,
          tier: record.tier,
          pricing: describePricing(record),
          provider: `${providerId}:${upstreamModel}`,
        })),
        ['id', 'type', 'tier', 'pricing', 'provider'],
      );
      return;
    }
    case 'put': {
      const args = parse(
        argv,
        { provider: { type: 'string' }, 'upstream-model': { type: 'string' }, json: { type: 'string' } },
        { min: 1, max: 1, usage: USAGE.put },
      );
      const id = args.positionals[0] ?? '';
      const jsonText = stringOpt(args, 'json');
      if (jsonText === undefined) throw new UsageError(`--json is required (usage: ${USAGE.put})`);
      let patch: unknown;
      try {
        patch = JSON.parse(jsonText);
      } catch (error) {
        throw new UsageError(`--json is not valid JSON: ${(error as Error).message}`);
      }
      if (!isObject(patch)) throw new UsageError('--json must be a JSON object of model record fields');
      const existing = await gateway.catalog.find(id);
      const providerId = stringOpt(args, 'provider') ?? existing?.providerId;
      if (!providerId) throw new UsageError(`--provider is required for a new model (usage: ${USAGE.put})`);
      // An unknown id is the owner's typo, not an outage: a usage error, before anything is written.
      const known = gateway.providers.list().some((p) => p.id === providerId) || (await gateway.providerConfigs.row(providerId)) !== undefined;
      if (!known) throw new UsageError(`no provider ${providerId} (mgw providers list shows the configured ones)`);
      const upstreamModel = stringOpt(args, 'upstream-model') ?? existing?.upstreamModel ?? id;
      const base: Json = existing
        ? movedFrom(existing.record as unknown as Json, existing.providerId !== providerId || existing.upstreamModel !== upstreamModel)
        : { object: 'model', created: Math.floor(gateway.clock.now() / 1000), owned_by: providerId };
      const record = mergeRecord(base, { ...patch, id });
      const entry = await gateway.catalog.put({ record: record as unknown as ModelRecord, providerId, upstreamModel });
      process.stdout.write(`${existing ? 'Updated' : 'Added'} model ${entry.record.id} (${describePricing(entry.record)}).\n`);
      return;
    }
    case 'remove': {
      const args = parse(argv, {}, { min: 1, max: 1, usage: USAGE.remove });
      await gateway.catalog.remove(args.positionals[0] ?? '');
      process.stdout.write(`Removed model ${args.positionals[0]}.\n`);
      return;
    }
    case 'discover': {
      const args = parse(argv, {}, { min: 1, max: 1, usage: USAGE.discover });
      const result = await gateway.providerAdmin.discover(args.positionals[0] ?? '');
      process.stdout.write(`Added: ${result.added.join(', ') || 'none'}.
`);
      if (result.skipped.length > 0) {
        process.stdout.write(`Not added (no known price, or not a valid name or record; use mgw models put): ${result.skipped.join(', ')}.
`);
      }
      return;
    }
    default:
      throw new UsageError(`unknown models command "${sub}" (usage: mgw models list|put|remove|discover)`);
  }
}

function describePricing(record: ModelRecord): string {
  const p = record.pricing;
  if (record.pricing_mode === 'token') {
    const minimum = p.minimum_request_price_usd !== undefined ? `, min ${p.minimum_request_price_usd}` : '';
    return `in ${p.input ?? 0} / out ${p.output ?? 0} ${p.currency} per ${p.unit}${minimum}`;
  }
  return `${p.price ?? 0} ${p.currency} per ${p.unit}`;
}
