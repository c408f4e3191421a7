import { readFile } from 'node:fs/promises';
import type { ModelRecord } from '../../shared/api-types.js';
import { isJsonObject } from '../core/catalog/model-patch.js';
import type { Gateway } from '../core/gateway.js';
import type { CatalogEntry } from '../core/catalog/catalog-service.js';
import type { RoutePut } from '../core/catalog/model-routes.js';
import { parse, stringOpt, UsageError, type Parsed } from './args.js';
import { printJson, printTable } from './output.js';

const USAGE = {
  list: 'mgw models list [--json]',
  put: "mgw models put <id> [--provider ID] [--upstream-model NAME] | [--route PROVIDER[:UPSTREAM_MODEL] ...] [--workflow FILE.json|builtin | --template FILE.json|builtin] --json '<model record fields>'",
  remove: 'mgw models remove <id>',
  discover: 'mgw models discover <provider-id>',
};

export async function modelsCommand(gateway: Gateway, sub: string, argv: string[]): Promise<void> {
  switch (sub) {
    case 'list': {
      const args = parse(argv, { json: { type: 'boolean' } }, { min: 0, max: 0, usage: USAGE.list });
      const entries = await gateway.catalog.entries();
      if (args.values.json) {
        return printJson(
          entries.map((e) => ({
            // The first route's, as before routes (scripts read them); `routes` has them all, in order.
            provider: e.routes[0]!.providerId,
            upstream_model: e.routes[0]!.upstreamModel,
            workflow: e.routes[0]!.workflow,
            routes: e.routes.map((r) => ({ provider: r.providerId, upstream_model: r.upstreamModel, workflow: r.workflow })),
            source: e.source,
            record: e.record,
          })),
        );
      }
      printTable(
        entries.map(({ record, routes }) => ({
          id: record.id,
          type: record.model_type,
          tier: record.tier,
          pricing: describePricing(record),
          routes: routes.map((r) => `${r.providerId}:${r.upstreamModel}${r.workflow ? ' (workflow)' : ''}`).join(' > '),
        })),
        ['id', 'type', 'tier', 'pricing', 'routes'],
      );
      return;
    }
    case 'put': {
      const args = parse(
        argv,
        {
          provider: { type: 'string' },
          'upstream-model': { type: 'string' },
          route: { type: 'string', multiple: true },
          workflow: { type: 'string', multiple: true },
          template: { type: 'string', multiple: true },
          json: { type: 'string' },
        },
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
      if (!isJsonObject(patch)) throw new UsageError('--json must be a JSON object of model record fields');
      const existing = await gateway.catalog.find(id);
      const routes = await routesOf(args, existing, id);
      const providerId = stringOpt(args, 'provider');
      if (routes) {
        if (providerId !== undefined || stringOpt(args, 'upstream-model') !== undefined) throw new UsageError(`give --route, or --provider and --upstream-model, not both (usage: ${USAGE.put})`);
      } else if (providerId === undefined && !existing) {
        throw new UsageError(`--provider (or --route) is required for a new model (usage: ${USAGE.put})`);
      }
      for (const route of routes ?? (providerId !== undefined ? [{ providerId }] : [])) await checkProviderKnown(gateway, route.providerId);
      const { entry, created } = await gateway.catalog.patch(
        id,
        patch,
        routes ? { routes } : { providerId, upstreamModel: stringOpt(args, 'upstream-model'), ...(await oneRouteWorkflow(args)) },
      );
      const served = entry.routes.length > 1 ? `; routes ${entry.routes.map((r) => r.providerId).join(' > ')}` : '';
      process.stdout.write(`${created ? 'Added' : 'Updated'} model ${entry.record.id} (${describePricing(entry.record)}${served}).\n`);
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

/** An unknown id is the owner's typo, not an outage: a usage error, before anything is written. */
async function checkProviderKnown(gateway: Gateway, providerId: string): Promise<void> {
  const known = gateway.providers.list().some((p) => p.id === providerId) || (await gateway.providerConfigs.row(providerId)) !== undefined;
  if (!known) throw new UsageError(`no provider ${providerId} (mgw providers list shows the configured ones)`);
}

/** The one-route form's --workflow or --template (a local engine's workflow and a cloud provider's template are stored alike). */
async function oneRouteWorkflow(args: Parsed): Promise<{ workflow?: unknown }> {
  const given = args.order.filter((o) => o.name === 'workflow' || o.name === 'template');
  if (given.length > 1) throw new UsageError(`give one --workflow or --template (usage: ${USAGE.put})`);
  const flag = given[0];
  if (!flag) return {};
  return { workflow: await readWorkflow(flag.value, `--${flag.name}`) };
}

/**
 * --route PROVIDER[:UPSTREAM_MODEL], once per route in the order they are tried; a --workflow or
 * --template belongs to the --route it follows. A route without an upstream model keeps the one
 * the model has on that provider, else takes the model's id. Null when no --route is given.
 */
async function routesOf(args: Parsed, existing: CatalogEntry | undefined, id: string): Promise<RoutePut[] | null> {
  const flags = args.order.filter((o) => o.name === 'route' || o.name === 'workflow' || o.name === 'template');
  if (!flags.some((o) => o.name === 'route')) return null;
  const routes: RoutePut[] = [];
  for (const flag of flags) {
    const value = flag.value ?? '';
    if (flag.name === 'route') {
      const at = value.indexOf(':');
      const providerId = at === -1 ? value : value.slice(0, at);
      const upstream = at === -1 ? '' : value.slice(at + 1);
      if (providerId === '' || (at !== -1 && upstream === '')) throw new UsageError(`--route takes PROVIDER or PROVIDER:UPSTREAM_MODEL, got ${JSON.stringify(value)} (usage: ${USAGE.put})`);
      const upstreamModel = upstream || (existing?.routes.find((r) => r.providerId === providerId)?.upstreamModel ?? id);
      routes.push({ providerId, upstreamModel });
      continue;
    }
    const route = routes.at(-1);
    if (!route) throw new UsageError(`--${flag.name} goes after the --route it belongs to (usage: ${USAGE.put})`);
    if (route.workflow !== undefined) throw new UsageError(`give one --workflow or --template per --route (usage: ${USAGE.put})`);
    route.workflow = await readWorkflow(value, `--${flag.name}`);
  }
  return routes;
}

/**
 * --workflow (a ComfyUI workflow exported in API format, "Export (API)") or --template (a cloud
 * provider's input template); `builtin` goes back to the kind's built-in one. A file that cannot
 * be read or is not JSON is a usage error.
 */
async function readWorkflow(path: string | undefined, flag: string): Promise<unknown> {
  if (path === undefined) return undefined;
  if (path === 'builtin') return null;
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(`${flag} ${path} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new UsageError(`${flag} ${path} is not valid JSON: ${(error as Error).message}`);
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
