// The built-in anonymous principal (when the owner turns allowAnonymous on): one account that
// never holds money, with callers told apart by their client address for limits, quotas and
// task ownership.
import type { Gateway } from '../gateway.js';
import type { Principal } from './principal.js';

const META = 'anonymous_account_id';

export async function ensureAnonymousAccount(gateway: Gateway): Promise<string> {
  const existing = await gateway.store.db.selectFrom('meta').select('value').where('key', '=', META).executeTakeFirst();
  if (existing) return existing.value;
  await gateway.store.tx(async (trx) => {
    await gateway.store.lock(trx, META);
    const again = await trx.selectFrom('meta').select('value').where('key', '=', META).executeTakeFirst();
    if (again) return;
    const accountId = await gateway.billing.createAccount(trx, 'free', 0, 0);
    await trx.insertInto('meta').values({ key: META, value: accountId }).execute();
  });
  return ensureAnonymousAccount(gateway);
}

export const anonymousPrincipal = (accountId: string, address: string): Principal => ({
  keyId: `anon:${address}`,
  accountId,
  access: 'anonymous',
});
