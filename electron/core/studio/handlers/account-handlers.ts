import { formatUsd, parseUsd } from '../../billing/money.js';
import { keyUsage } from '../../access/key-usage.js';
import { invalid, namingField } from '../../errors.js';
import { USD_FORMAT_PROBLEM, usdAmountProblem } from '../../../../shared/usd-amount.js';
import type { StudioContext, StudioHandlers } from '../studio-context.js';

const usd = (text: string, param: string): number => {
  const nano = parseUsd(text);
  if (nano === null) throw invalid(`${param} ${usdAmountProblem(text) ?? USD_FORMAT_PROBLEM}.`, param);
  return nano;
};

export function accountHandlers(
  ctx: StudioContext,
): Pick<
  StudioHandlers,
  'billing.summary' | 'billing.topUp' | 'keys.list' | 'keys.create' | 'keys.revoke' | 'keys.topUp' | 'keys.update' | 'keys.usage' | 'activity.list'
> {
  const { gateway, owner } = ctx;
  return {
    'billing.summary': async () => {
      const [balance, holds, ledger, spend] = await Promise.all([
        gateway.billing.view(owner.accountId),
        gateway.billing.activeHolds(owner.accountId),
        gateway.billing.ledgerFor(owner.accountId, 200),
        gateway.billing.spendByDay(owner.accountId, 30),
      ]);
      return {
        balance,
        holds: holds.map((h) => ({ id: h.id, amount_usd: formatUsd(h.amount_nano), purpose: h.purpose, ref: h.ref, created_at: Math.floor(h.created_at / 1000) })),
        ledger: ledger.map((r) => ({
          id: r.id,
          kind: r.kind,
          amount_usd: formatUsd(r.amount_nano),
          balance_delta_usd: formatUsd(r.balance_delta_nano),
          allowance_delta_usd: formatUsd(r.allowance_delta_nano),
          ref: r.ref,
          created_at: Math.floor(r.created_at / 1000),
        })),
        spend_by_day: spend.map((p) => ({ day: p.day, spend_usd: formatUsd(p.nano) })),
      };
    },
    // The billing core names a top-up's amount "amount" (zero, or past the most an account
    // holds); the studio's field is usd.
    'billing.topUp': async (input) => ({
      balance: await namingField(gateway.billing.topUp(owner.accountId, usd(input.usd, 'usd'), 'top-up via studio'), 'amount', 'usd'),
    }),
    'keys.list': async () => {
      const keys = await gateway.keys.list();
      return { keys: await Promise.all(keys.map(async (key) => ({ ...key, balance: await gateway.billing.view(key.account_id) }))) };
    },
    'keys.create': async (input) => {
      const created = await gateway.keys.create({
        access: input.access,
        ...(input.balance_usd !== undefined ? { balanceNano: usd(input.balance_usd, 'balance_usd') } : {}),
        ...(input.allowance_usd !== undefined ? { allowanceNano: usd(input.allowance_usd, 'allowance_usd') } : {}),
        ...(input.label !== undefined ? { label: input.label } : {}),
      });
      return { key: created.key, token: created.token };
    },
    'keys.revoke': async (input) => ({ key: await gateway.keys.revoke(input.id) }),
    'keys.topUp': async (input) => {
      const account = await gateway.keys.accountToFund(input.id);
      return { balance: await namingField(gateway.billing.topUp(account, usd(input.usd, 'usd'), 'top-up via studio'), 'amount', 'usd') };
    },
    'keys.update': async (input) => {
      const key = await gateway.keys.update(input.id, {
        ...(input.access !== undefined ? { access: input.access } : {}),
        ...(input.allowance_usd !== undefined ? { allowanceNano: usd(input.allowance_usd, 'allowance_usd') } : {}),
      });
      return { key, balance: await gateway.billing.view(key.account_id) };
    },
    'keys.usage': async (input) => ({ usage: await keyUsage(gateway, input.id) }),
    'activity.list': async (input) => ({ entries: await gateway.activity.recent(input.limit ?? 100) }),
  };
}
