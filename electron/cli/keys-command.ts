import type { AccessType } from '../../shared/api-types.js';
import { ACCESS_TYPES } from '../core/access/key-service.js';
import { keyUsage } from '../core/access/key-usage.js';
import type { Gateway } from '../core/gateway.js';
import { parse, stringOpt, usdArg, UsageError } from './args.js';
import { printJson, printTable } from './output.js';

const USAGE = {
  create: 'mgw keys create --access free|pro|balance [--balance-usd N] [--allowance-usd N] [--label TEXT] [--json]',
  list: 'mgw keys list [--json]',
  revoke: 'mgw keys revoke <key-id>',
  update: 'mgw keys update <key-id> [--access free|pro|balance] [--allowance-usd N]',
  usage: 'mgw keys usage <key-id> [--json]',
};

export async function keysCommand(gateway: Gateway, sub: string, argv: string[]): Promise<void> {
  switch (sub) {
    case 'create': {
      const args = parse(
        argv,
        {
          access: { type: 'string' },
          'balance-usd': { type: 'string' },
          'allowance-usd': { type: 'string' },
          label: { type: 'string' },
          json: { type: 'boolean' },
        },
        { min: 0, max: 0, usage: USAGE.create },
      );
      const access = stringOpt(args, 'access');
      if (!access || !ACCESS_TYPES.includes(access as AccessType)) {
        throw new UsageError(`--access must be one of ${ACCESS_TYPES.join(', ')} (usage: ${USAGE.create})`);
      }
      const balanceNano = usdArg(stringOpt(args, 'balance-usd'), '--balance-usd');
      const allowanceNano = usdArg(stringOpt(args, 'allowance-usd'), '--allowance-usd');
      const label = stringOpt(args, 'label');
      const created = await gateway.keys.create({
        access: access as AccessType,
        ...(balanceNano !== undefined ? { balanceNano } : {}),
        ...(allowanceNano !== undefined ? { allowanceNano } : {}),
        ...(label !== undefined ? { label } : {}),
      });
      if (args.values.json) {
        printJson({ ...created.key, token: created.token, balance: await gateway.billing.view(created.key.account_id) });
      } else {
        process.stdout.write(
          `Created ${created.key.access} key ${created.key.id}${created.key.label ? ` (${created.key.label})` : ''}.\n` +
            `Token (shown only now, store it safely):\n${created.token}\n`,
        );
      }
      return;
    }
    case 'list': {
      const args = parse(argv, { json: { type: 'boolean' } }, { min: 0, max: 0, usage: USAGE.list });
      const keys = await gateway.keys.list();
      if (args.values.json) return printJson(keys);
      printTable(
        keys.map((k) => ({
          id: k.id,
          access: k.access,
          label: k.label,
          token: k.token_hint,
          created: k.created_at,
          status: k.revoked_at ? `revoked ${k.revoked_at}` : 'active',
        })),
        ['id', 'access', 'label', 'token', 'created', 'status'],
      );
      return;
    }
    case 'revoke': {
      const args = parse(argv, {}, { min: 1, max: 1, usage: USAGE.revoke });
      const key = await gateway.keys.revoke(args.positionals[0] ?? '');
      process.stdout.write(`Revoked ${key.id}.\n`);
      return;
    }
    case 'update': {
      const args = parse(argv, { access: { type: 'string' }, 'allowance-usd': { type: 'string' } }, { min: 1, max: 1, usage: USAGE.update });
      const access = stringOpt(args, 'access');
      if (access !== undefined && !ACCESS_TYPES.includes(access as AccessType)) {
        throw new UsageError(`--access must be one of ${ACCESS_TYPES.join(', ')} (usage: ${USAGE.update})`);
      }
      const allowanceNano = usdArg(stringOpt(args, 'allowance-usd'), '--allowance-usd');
      if (access === undefined && allowanceNano === undefined) throw new UsageError(`nothing to change (usage: ${USAGE.update})`);
      const key = await gateway.keys.update(args.positionals[0] ?? '', {
        ...(access !== undefined ? { access: access as AccessType } : {}),
        ...(allowanceNano !== undefined ? { allowanceNano } : {}),
      });
      process.stdout.write(`Updated ${key.id}: ${key.access} access.\n`);
      return;
    }
    case 'usage': {
      const args = parse(argv, { json: { type: 'boolean' } }, { min: 1, max: 1, usage: USAGE.usage });
      const usage = await keyUsage(gateway, args.positionals[0] ?? '');
      if (args.values.json) return printJson(usage);
      const quota = usage.daily_token_quota === null ? '' : ` of ${usage.daily_token_quota}`;
      process.stdout.write(
        `${usage.key_id}: ${usage.totals.requests} requests, ${usage.totals.input_tokens} input + ${usage.totals.output_tokens} output tokens, $${usage.totals.spend_usd} spent; ${usage.tokens_today}${quota} tokens today (UTC)\n`,
      );
      printTable(
        usage.by_day.map((r) => ({
          day: r.day,
          model: r.model,
          requests: String(r.requests),
          input_tokens: String(r.input_tokens),
          output_tokens: String(r.output_tokens),
          spend_usd: r.spend_usd,
        })),
        ['day', 'model', 'requests', 'input_tokens', 'output_tokens', 'spend_usd'],
      );
      return;
    }
    default:
      throw new UsageError(`unknown keys command "${sub}" (usage: mgw keys create|list|revoke|update|usage)`);
  }
}
