import { readFile } from 'node:fs/promises';
import type { ModelRecord } from '../../shared/api-types.js';
import { isJsonObject } from '../core/catalog/model-patch.js';
import type { Gateway } from '../core/gateway.js';
import { parse, stringOpt, UsageError } from './args.js';
import { printJson, printTable } from './output.js';

const USAGE = {
  list: 'mgw models list [--json]',
  put: "mgw models put <id> [--provider ID] [--upstream-model NAME] [--workflow FILE.json|builtin | --template FILE.json|builtin] --json '<model record fields>'",
  remove: 'mgw models remove <id>',
  discover: 'mgw models discover <provider-id>',
};

export async function modelsCommand(gateway: Gateway, sub: string, argv: string[]): Promise<void> {
  switch (sub) {
    case 'list': {
      const args = parse(argv, { json: { type: 'boolean' } }, { min: 0, max: 0, usage: USAGE.list });
      const entries = await gateway.catalog.entries();
      if (args.values.json) {
        return printJson(entries.map((e) => ({ provider: e.providerId, upstream_model: e.upstreamModel, workflow: e.workflow, source: e.source, record: e.record })));
      }
      printTable(
        entries.map(({ record, providerId, upstreamModel, workflow }) => ({
          id: record.id,
          type: record.model_type,
          tier: record.tier,
          pricing: describePricing(record),
          provider: `${providerId}:${upstreamModel}${workflow ? ' (workflow)' : ''}`,
        })),
        ['id', 'type', 'tier', 'pricing', 'provider'],
      );
      return;
    }
    case 'put': {
      const args = parse(
        argv,
        { provider: { type: 'string' }, 'upstream-model': { type: 'string' }, workflow: { type: 'string' }, template: { type: 'string' }, json: { type: 'string' } },
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
      const providerId = stringOpt(args, 'provider');
      if (providerId === undefined && !(await gateway.catalog.find(id))) {
        throw new UsageError(`--provider is required for a new model (usage: ${USAGE.put})`);
      }
      // An unknown id is the owner's typo, not an outage: a usage error, before anything is written.
      const known = providerId === undefined || gateway.providers.list().some((p) => p.id === providerId) || (await gateway.providerConfigs.row(providerId)) !== undefined;
      if (!known) throw new UsageError(`no provider ${providerId} (mgw providers list shows the configured ones)`);
      // A local engine's workflow and a cloud provider's input template are stored alike; which
      // one a provider takes is its kind's to say.
      const workflowPath = stringOpt(args, 'workflow');
      const templatePath = stringOpt(args, 'template');
      if (workflowPath !== undefined && templatePath !== undefined) throw new UsageError(`give --workflow or --template, not both (usage: ${USAGE.put})`);
      const workflow = await readWorkflow(workflowPath ?? templatePath, workflowPath !== undefined ? '--workflow' : '--template');
      const { entry, created } = await gateway.catalog.patch(id, patch, {
        providerId,
        upstreamModel: stringOpt(args, 'upstream-model'),
        ...(workflow !== undefined ? { workflow } : {}),
      });
      process.stdout.write(`${created ? 'Added' : 'Updated'} model ${entry.record.id} (${describePricing(entry.record)}).\n`);
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
