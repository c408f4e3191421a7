import type { Gateway } from '../core/gateway.js';
import { isProviderKind, PROVIDER_KINDS } from '../../shared/provider-kinds.js';
import { readHealth } from '../core/routing/route-health.js';
import { describeHealthState } from '../../shared/provider-health.js';
import { parse, secondsArg, stringOpt, UsageError } from './args.js';
import { printJson, printTable } from './output.js';

const USAGE = {
  add: `mgw providers add --kind ${PROVIDER_KINDS.join('|')} --id ID [--base-url URL] [--api-key KEY | --api-key-env VAR] [--timeout SECONDS]`,
  update: 'mgw providers update --id ID [--base-url URL] [--api-key KEY | --api-key-env VAR] [--timeout SECONDS|default]',
  list: 'mgw providers list [--json]',
  remove: 'mgw providers remove <id>',
  test: 'mgw providers test <id>',
};

const WHERE_AND_KEY = { 'base-url': { type: 'string' }, 'api-key': { type: 'string' }, 'api-key-env': { type: 'string' }, timeout: { type: 'string' } } as const;

/** --base-url, --api-key and --api-key-env, as given (add and update take the same three). */
function whereAndKey(args: ReturnType<typeof parse>): { baseUrl?: string; apiKey?: string; apiKeyEnv?: string } {
  const given: { baseUrl?: string; apiKey?: string; apiKeyEnv?: string } = {};
  const baseUrl = stringOpt(args, 'base-url');
  const apiKey = stringOpt(args, 'api-key');
  const apiKeyEnv = stringOpt(args, 'api-key-env');
  if (baseUrl !== undefined) given.baseUrl = baseUrl;
  if (apiKey !== undefined) given.apiKey = apiKey;
  if (apiKeyEnv !== undefined) given.apiKeyEnv = apiKeyEnv;
  return given;
}

export async function providersCommand(gateway: Gateway, sub: string, argv: string[]): Promise<number | void> {
  switch (sub) {
    case 'add': {
      const args = parse(argv, { kind: { type: 'string' }, id: { type: 'string' }, ...WHERE_AND_KEY }, { min: 0, max: 0, usage: USAGE.add });
      const kind = stringOpt(args, 'kind');
      const id = stringOpt(args, 'id');
      if (!isProviderKind(kind)) throw new UsageError(`--kind must be ${PROVIDER_KINDS.join(', ')} (usage: ${USAGE.add})`);
      if (!id) throw new UsageError(`--id is required (usage: ${USAGE.add})`);
      const timeoutSeconds = secondsArg(stringOpt(args, 'timeout'), '--timeout');
      const info = await gateway.providerConfigs.add({ id, kind, ...whereAndKey(args), ...(timeoutSeconds !== undefined ? { timeoutSeconds } : {}) });
      process.stdout.write(`Provider ${info.id} (${info.kind}) at ${info.base_url}; key: ${info.key_source}.\n`);
      return;
    }
    case 'update': {
      const args = parse(argv, { id: { type: 'string' }, ...WHERE_AND_KEY }, { min: 0, max: 0, usage: USAGE.update });
      const id = stringOpt(args, 'id');
      if (!id) throw new UsageError(`--id is required (usage: ${USAGE.update})`);
      const timeout = stringOpt(args, 'timeout');
      const timeoutSeconds = timeout === 'default' ? null : secondsArg(timeout, '--timeout');
      const info = await gateway.providerConfigs.update({ id, ...whereAndKey(args), ...(timeoutSeconds !== undefined ? { timeoutSeconds } : {}) });
      process.stdout.write(`Provider ${info.id} (${info.kind}) at ${info.base_url}; key: ${info.key_source}.\n`);
      return;
    }
    case 'list': {
      const args = parse(argv, { json: { type: 'boolean' } }, { min: 0, max: 0, usage: USAGE.list });
      const providers = await gateway.providerConfigs.list();
      // What the serving process last recorded of each (this process routes nothing).
      const health = new Map((await readHealth(gateway.store, gateway.clock.now())).map((h) => [h.provider, h]));
      if (args.values.json) return printJson(providers.map((p) => ({ ...p, health: health.get(p.id) ?? null })));
      printTable(
        providers.map((p) => ({
          id: p.id,
          kind: p.kind,
          base_url: p.base_url,
          key: p.key_problem ? `${p.key_source} (unusable)` : p.key_source,
          timeout: p.timeout_seconds === null ? 'default' : `${p.timeout_seconds}s`,
          state: describeHealthState(health.get(p.id)),
          latency: health.get(p.id)?.latency_ms != null ? `${health.get(p.id)!.latency_ms} ms` : '-',
        })),
        ['id', 'kind', 'base_url', 'key', 'timeout', 'state', 'latency'],
      );
      for (const p of providers) if (p.key_problem) process.stdout.write(`${p.id}: ${p.key_problem}\n`);
      for (const p of providers) {
        const h = health.get(p.id);
        if (!h?.last_error) continue;
        const since = h.state === 'healthy' ? ' (it has served since)' : '';
        process.stdout.write(`${p.id}: last error ${new Date(h.last_error_at ?? 0).toISOString()}${since}: ${h.last_error}\n`);
      }
      return;
    }
    case 'remove': {
      const args = parse(argv, {}, { min: 1, max: 1, usage: USAGE.remove });
      await gateway.providerConfigs.remove(args.positionals[0] ?? '');
      process.stdout.write(`Removed provider ${args.positionals[0]}.\n`);
      return;
    }
    case 'test': {
      const args = parse(argv, {}, { min: 1, max: 1, usage: USAGE.test });
      const check = await gateway.providerAdmin.check(args.positionals[0] ?? '');
      process.stdout.write(`${check.ok ? 'ok' : 'failed'}: ${check.message}\n`);
      for (const fact of check.facts) process.stdout.write(`  ${fact.label}: ${fact.value}\n`);
      // Scripts and CI rely on the status; main() returns it (bin/mgw.js exits with it).
      return check.ok ? 0 : 1;
    }
    default:
      throw new UsageError(`unknown providers command "${sub}" (usage: mgw providers add|update|list|remove|test)`);
  }
}
