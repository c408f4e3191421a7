// The owner of this gateway, as the studio acts: a key and account of its own (created once per
// data dir, with a starter credit), so studio requests are billed the same way as API requests.
// The owner's secret is the studio token (studio-token.ts), not this key's API token.
import type { Principal } from '../access/principal.js';
import type { Gateway } from '../gateway.js';

export const OWNER_KEY_META = 'owner_key_id';
/** A small starter credit so the studio works out of the box; visible in the ledger. */
export const OWNER_STARTER_CREDIT_NANO = 10 * 1_000_000_000;

export async function ensureOwner(gateway: Gateway): Promise<Principal> {
  const existing = await gateway.store.db.selectFrom('meta').select('value').where('key', '=', OWNER_KEY_META).executeTakeFirst();
  if (existing) {
    const key = await gateway.keys.get(existing.value);
    return { keyId: key.id, accountId: key.account_id, access: key.access };
  }
  // One owner however many processes start at once (a team's instances): the check, the key and
  // its record commit together, one process at a time.
  await gateway.store.tx(async (trx) => {
    await gateway.store.lock(trx, OWNER_KEY_META);
    if (await trx.selectFrom('meta').select('value').where('key', '=', OWNER_KEY_META).executeTakeFirst()) return;
    const key = await gateway.keys.createIn(trx, { access: 'balance', balanceNano: OWNER_STARTER_CREDIT_NANO, label: 'studio (owner)' });
    await trx.insertInto('meta').values({ key: OWNER_KEY_META, value: key.id }).execute();
  });
  return ensureOwner(gateway);
}

/**
 * Brings the owner's access up to date: `mgw keys update` may change it while the studio runs,
 * and the access decides which models it may use and how it pays, as it does for /v1 keys.
 */
export async function refreshOwnerAccess(gateway: Gateway, owner: Principal): Promise<void> {
  owner.access = (await gateway.keys.get(owner.keyId)).access;
}
