import type { BalanceView } from '../../shared/api-types.js';
import type { Gateway } from '../core/gateway.js';
import { parse, usdArg, UsageError } from './args.js';
import { printJson } from './output.js';

const USAGE = {
  topUp: 'mgw balance top-up <key-id> <usd>',
  show: 'mgw balance show <key-id> [--json]',
};

function printBalance(keyId: string, view: BalanceView): void {
  process.stdout.write(
    `${keyId} (${view.access})\n` +
      `  balance_usd              ${view.balance_usd}\n` +
      `  allowance_remaining_usd  ${view.allowance_remaining_usd}\n` +
      `  holds_usd                ${view.holds_usd}\n` +
      `  available_usd            ${view.available_usd}\n`,
  );
}

export async function balanceCommand(gateway: Gateway, sub: string, argv: string[]): Promise<void> {
  switch (sub) {
    case 'top-up': {
      const args = parse(argv, {}, { min: 2, max: 2, usage: USAGE.topUp });
      const [keyId = '', amountText] = args.positionals;
      const amount = usdArg(amountText, '<usd>') ?? 0;
      if (amount <= 0) throw new UsageError(`<usd> must be greater than zero (usage: ${USAGE.topUp})`);
      const view = await gateway.billing.topUp(await gateway.keys.accountToFund(keyId), amount, `top-up via CLI`);
      printBalance(keyId, view);
      return;
    }
    case 'show': {
      const args = parse(argv, { json: { type: 'boolean' } }, { min: 1, max: 1, usage: USAGE.show });
      const keyId = args.positionals[0] ?? '';
      const view = await gateway.billing.view(await gateway.keys.accountOf(keyId));
      if (args.values.json) return printJson({ key_id: keyId, ...view });
      printBalance(keyId, view);
      return;
    }
    default:
      throw new UsageError(`unknown balance command "${sub}" (usage: mgw balance top-up|show)`);
  }
}
