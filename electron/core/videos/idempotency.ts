// Idempotency-Key for POST /videos, scoped to the caller's account and kept 24 hours. The lookup
// runs inside the creation transaction, so concurrent retries serialize on SQLite's write lock
// and exactly one of them creates the task and its hold.
import { createHash } from 'node:crypto';
import type { Db } from '../store/database.js';
import { invalid } from '../errors.js';
import type { VideoCreateRequest } from './video-request.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export function checkIdempotencyKey(key: string | undefined): string | null {
  if (key === undefined) return null;
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw invalid('Idempotency-Key must be 1 to 255 visible ASCII characters.', 'Idempotency-Key');
  }
  return key;
}

/** A fingerprint of the logical request: same fields and same reference bytes -> same hash. */
export function requestFingerprint(request: VideoCreateRequest): string {
  const hash = createHash('sha256');
  hash.update(
    JSON.stringify([
      request.model,
      request.prompt,
      request.seconds,
      request.size,
      request.requestType,
      request.clientRequestId,
    ]),
  );
  for (const image of request.references) hash.update(createHash('sha256').update(image.bytes).digest());
  return hash.digest('hex');
}

/** The task an earlier request with this key created, or null. A different request -> 400. */
export async function findIdempotent(trx: Db, accountId: string, key: string, fingerprint: string, now: number): Promise<string | null> {
  // Every expired key of the caller goes, not only this one: keys never used again would
  // otherwise stay in the database for good (the primary key leads with account_id).
  await trx.deleteFrom('idempotency_keys').where('account_id', '=', accountId).where('created_at', '<', now - IDEMPOTENCY_TTL_MS).execute();
  const row = await trx
    .selectFrom('idempotency_keys')
    .select(['request_hash', 'task_id'])
    .where('account_id', '=', accountId)
    .where('key', '=', key)
    .executeTakeFirst();
  if (!row) return null;
  if (row.request_hash !== fingerprint) {
    throw invalid('This Idempotency-Key was used for a different request; use a new key for a new task.', 'Idempotency-Key');
  }
  return row.task_id;
}

export async function rememberIdempotent(trx: Db, accountId: string, key: string, fingerprint: string, taskId: string, now: number): Promise<void> {
  await trx
    .insertInto('idempotency_keys')
    .values({ account_id: accountId, key, request_hash: fingerprint, task_id: taskId, created_at: now })
    .execute();
}
