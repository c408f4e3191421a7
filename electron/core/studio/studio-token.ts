// The owner token guards the studio API in headless mode: random per data dir, kept in a file
// only the owner can read, compared in constant time.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import type { Store } from '../store/database.js';

export const STUDIO_TOKEN_FILE = 'studio-token';

export function loadStudioToken(dataDir: string): string {
  const path = join(dataDir, STUDIO_TOKEN_FILE);
  if (existsSync(path)) {
    const token = readFileSync(path, 'utf8').trim();
    if (/^[A-Za-z0-9_-]{32,}$/.test(token)) return token;
  }
  const token = randomBytes(32).toString('base64url');
  writeFileSync(path, `${token}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return token;
}

const SHARED_TOKEN_KEY = 'studio_owner_token';

/** Team mode: one owner token for every instance, kept in the database they share (made by the first). */
export async function sharedStudioToken(store: Store): Promise<string> {
  await store.db
    .insertInto('meta')
    .values({ key: SHARED_TOKEN_KEY, value: randomBytes(32).toString('base64url') })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const row = await store.db.selectFrom('meta').select('value').where('key', '=', SHARED_TOKEN_KEY).executeTakeFirstOrThrow();
  return row.value;
}

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

export function tokenMatches(expected: string, given: string | undefined | null): boolean {
  if (!given) return false;
  return timingSafeEqual(digest(expected), digest(given));
}

/**
 * The studio's session cookie, derived from the owner token but never the token itself: browsers
 * send a localhost cookie to every port, so the cookie must not give away the secret of the
 * token file. Its name carries a fingerprint of the token, so two gateways on one machine (two
 * data dirs) keep their own sessions.
 */
export function studioCookie(ownerToken: string): { name: string; value: string } {
  return {
    name: `mgw_studio_${digest(ownerToken).toString('hex').slice(0, 12)}`,
    value: createHmac('sha256', ownerToken).update('mgw studio session cookie').digest('base64url'),
  };
}
