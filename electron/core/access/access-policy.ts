// Who may use which model, and who pays. The contract's access table:
//   anonymous and free: turbo models that are not usage_based_only, paid by nobody (bounded by
//   request windows and daily tokens instead);
//   pro: every model, paid from the period allowance, then the topped-up balance;
//   balance: every model, paid from the balance.
import type { ModelRecord } from '../../../shared/api-types.js';
import { GatewayError } from '../errors.js';
import type { Principal } from './principal.js';

/** Throws 402 insufficient_balance, naming the access the model needs, when the caller lacks it. */
export function assertModelAccess(principal: Principal, record: ModelRecord): void {
  if (paysWithMoney(principal)) return;
  if (record.tier !== 'turbo') {
    throw new GatewayError(
      'insufficient_balance',
      `The model ${record.id} is a ${record.tier}-tier model: it needs a Pro subscription or a topped-up balance.`,
    );
  }
  if (record.usage_based_only) {
    throw new GatewayError(
      'insufficient_balance',
      `The model ${record.id} is available only through paid usage (Pro allowance or topped-up balance).`,
    );
  }
}

/** Whether requests of this principal move money (free access is bounded by quotas instead). */
export const paysWithMoney = (principal: Principal): boolean => principal.access === 'pro' || principal.access === 'balance';
