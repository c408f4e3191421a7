// Team mode's provider keys (docs/team.md): every instance reads them from the shared database, so
// they live in its `secrets` table, sealed with AES-256-GCM under a key derived (HKDF-SHA256) from
// MGW_SECRET_KEY, which every instance is given. The database alone never holds a usable key.
// A sealed value is `v1.<iv>.<tag>.<ciphertext>` (base64url); the secret's name is the GCM
// additional data, so a sealed value moved to another name does not open.
// Reads are synchronous (log redaction, adapter builds), from a cache load() fills; writes go
// through setIn/deleteIn inside the caller's transaction. Never logged, never returned by any API:
// no message here carries a value, sealed or not.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { GatewayError } from '../errors.js';
import { UnreadableSecretError, type SecretStore } from '../secret-store.js';
import type { Db, Store } from '../store/database.js';

const VERSION = 'v1';
/** Fixed: changing either makes every sealed key unreadable. */
const HKDF_SALT = 'mgw-team-secrets';
const HKDF_INFO = 'mgw provider keys, AES-256-GCM, v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const B64URL = /^[A-Za-z0-9_-]*$/;

const SHARE_ONE_KEY = 'every instance must be given the same MGW_SECRET_KEY';

/** The AES-256 key of an MGW_SECRET_KEY. */
export function sealingKey(secretKey: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(secretKey, 'utf8'), HKDF_SALT, HKDF_INFO, 32));
}

/** `value` sealed under `key` for the secret `name`: v1.<iv>.<tag>.<ciphertext>. */
export function seal(key: Buffer, name: string, value: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(name, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
}

/** The value sealed for `name`; UnreadableSecretError when it does not open under `key`. */
export function unseal(key: Buffer, name: string, sealed: string): string {
  const parts = sealed.split('.');
  const [version, iv, tag, ciphertext] = parts;
  if (parts.length !== 4 || version !== VERSION || !parts.every((part) => B64URL.test(part))) {
    throw new UnreadableSecretError(`it is not a sealed value this gateway reads (expected ${VERSION}.<iv>.<tag>.<ciphertext>)`);
  }
  const ivBytes = Buffer.from(iv!, 'base64url');
  const tagBytes = Buffer.from(tag!, 'base64url');
  if (ivBytes.length !== IV_BYTES || tagBytes.length !== TAG_BYTES) {
    throw new UnreadableSecretError(`it is not a sealed value this gateway reads (expected ${VERSION}.<iv>.<tag>.<ciphertext>)`);
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, ivBytes, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(name, 'utf8'));
    decipher.setAuthTag(tagBytes);
    return Buffer.concat([decipher.update(Buffer.from(ciphertext!, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new UnreadableSecretError(`it does not decrypt under this instance's MGW_SECRET_KEY (it was sealed under another one, or altered in the database): ${SHARE_ONE_KEY}`);
  }
}

/** What the cache holds of one row: its sealed text, and what opening it gave. */
interface Cached {
  sealed: string;
  opened: { value: string } | { unreadable: string };
}

/**
 * The SecretStore of team mode. `get` is synchronous and reads the cache: call load() once before
 * use and whenever the `secrets` table may have changed (ChangeWatch on the store). The
 * interface's `set` and `delete` throw: a team write is part of a transaction (setIn, deleteIn).
 */
/** What MGW_SECRET_KEY must at least be long. */
export const MIN_SECRET_KEY_LENGTH = 16;

/** A short MGW_SECRET_KEY could be guessed: refused at start, before anything is sealed with it. */
export function checkSecretKey(secretKey: string | null): void {
  if (secretKey && secretKey.length < MIN_SECRET_KEY_LENGTH) {
    throw new GatewayError('invalid_request', `MGW_SECRET_KEY is ${secretKey.length} characters long; it must have at least ${MIN_SECRET_KEY_LENGTH} (openssl rand -base64 32 makes a good one).`);
  }
}

export class DatabaseSecretStore implements SecretStore {
  private readonly key: Buffer | null;
  private cache = new Map<string, Cached>();

  constructor(
    private readonly store: Store,
    secretKey: string | null,
  ) {
    // An empty variable is an unset one: an empty key would seal with a key anyone can derive.
    checkSecretKey(secretKey);
    this.key = secretKey ? sealingKey(secretKey) : null;
  }

  /** Whether this instance can seal keys (MGW_SECRET_KEY is set). */
  get canSeal(): boolean {
    return this.key !== null;
  }

  get(name: string): string | null {
    const cached = this.cache.get(name);
    if (!cached) return null;
    if ('unreadable' in cached.opened) throw new UnreadableSecretError(cached.opened.unreadable);
    return cached.opened.value;
  }

  set(): void {
    throw new Error('DatabaseSecretStore: team-mode keys are written inside a transaction, with setIn()');
  }

  delete(): void {
    throw new Error('DatabaseSecretStore: team-mode keys are deleted inside a transaction, with deleteIn()');
  }

  /** Refills the cache from the table (through `db`: the store's, or a transaction). */
  async load(db: Db = this.store.db): Promise<void> {
    const rows = await db.selectFrom('secrets').select(['name', 'sealed']).execute();
    const next = new Map<string, Cached>();
    for (const { name, sealed } of rows) next.set(name, this.cached(name, sealed, this.cache.get(name)));
    this.cache = next;
  }

  /**
   * Seals `value` and upserts it inside `trx`; the cache holds it once the statement ran. A caller
   * whose transaction then rolls back must load() again.
   */
  async setIn(trx: Db, name: string, value: string): Promise<void> {
    if (!this.key) {
      throw new GatewayError(
        'invalid_request',
        'Team mode keeps provider keys sealed with MGW_SECRET_KEY, which is not set for this instance: set the same MGW_SECRET_KEY on every instance, or name an environment variable with --api-key-env.',
        'api_key',
      );
    }
    const sealed = seal(this.key, name, value);
    const now = Date.now();
    await trx
      .insertInto('secrets')
      .values({ name, sealed, updated_at: now })
      .onConflict((oc) => oc.column('name').doUpdateSet({ sealed, updated_at: now }))
      .execute();
    this.cache.set(name, { sealed, opened: { value } });
  }

  /** Deletes the secret inside `trx` (nothing to do when there is none); the cache forgets it. */
  async deleteIn(trx: Db, name: string): Promise<void> {
    await trx.deleteFrom('secrets').where('name', '=', name).execute();
    this.cache.delete(name);
  }

  /** Opens each sealed value once: a row unchanged since the last load keeps what it gave. */
  private cached(name: string, sealed: string, before: Cached | undefined): Cached {
    if (before && before.sealed === sealed) return before;
    if (!this.key) {
      return { sealed, opened: { unreadable: `it is sealed with MGW_SECRET_KEY, which is not set for this instance: ${SHARE_ONE_KEY}` } };
    }
    try {
      return { sealed, opened: { value: unseal(this.key, name, sealed) } };
    } catch (error) {
      if (!(error instanceof UnreadableSecretError)) throw error;
      return { sealed, opened: { unreadable: error.message } };
    }
  }
}
