// API keys. The token is shown once, at creation; the database keeps only its SHA-256, and
// lookups compare hashes in constant time. Verified keys are remembered by their hash until
// the database changes: a revoke or access change through this process clears them at once,
// one from the CLI (another process) within a millisecond (see change-watch.ts).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AccessType, KeyInfo } from '../../../shared/api-types.js';
import type { BillingService } from '../billing/billing-service.js';
import type { Clock } from '../clock.js';
import { hasControlChar } from '../control-chars.js';
import { GatewayError } from '../errors.js';
import { randomId } from '../ids.js';
import { ChangeWatch } from '../store/change-watch.js';
import type { Db, Store } from '../store/database.js';
import type { ApiKeyRow } from '../store/schema.js';
import type { Principal } from './principal.js';

export const ACCESS_TYPES: readonly AccessType[] = ['free', 'pro', 'balance'];

/** Verified keys kept; past this the memo starts over (a bound, not an eviction policy). */
const MAX_VERIFIED = 10_000;

/** mgw_<12 id chars>_<secret>: the id part finds the row, the whole token is what is hashed. */
const TOKEN = /^mgw_([a-z0-9]{12})_([A-Za-z0-9_-]{43})$/;

export interface CreateKeyOptions {
  access: AccessType;
  balanceNano?: number;
  allowanceNano?: number;
  label?: string;
}

export interface CreatedKey {
  key: KeyInfo;
  token: string;
}

const hashToken = (token: string): Buffer => createHash('sha256').update(token).digest();

interface AuthRow {
  id: string;
  account_id: string;
  token_hash: string;
  revoked_at: number | null;
  access_type: string;
}

export class KeyService {
  /** Every request authenticates: a prepared statement, not a Kysely round trip. */
  private readonly authLookup;
  /** Principals of verified tokens, by the base64 of the token's SHA-256. */
  private readonly verified = new Map<string, Principal>();
  private readonly watch: ChangeWatch;

  constructor(
    private readonly store: Store,
    private readonly billing: BillingService,
    private readonly clock: Clock,
  ) {
    // Team mode has no synchronous driver: the same lookup goes through Kysely there.
    this.authLookup =
      store.dialect === 'sqlite'
        ? store.raw.prepare('select k.id, k.account_id, k.token_hash, k.revoked_at, a.access_type from api_keys k join accounts a on a.id = k.account_id where k.id = ?')
        : null;
    this.watch = new ChangeWatch(store);
  }

  async create(options: CreateKeyOptions): Promise<CreatedKey> {
    const made = await this.store.tx((trx) => this.createIn(trx, options));
    return { key: await this.get(made.id), token: made.token };
  }

  /** create() inside the caller's transaction: the key's id and token. */
  async createIn(trx: Db, options: CreateKeyOptions): Promise<{ id: string; token: string }> {
    if (!ACCESS_TYPES.includes(options.access)) {
      throw new GatewayError('invalid_request', `Unknown access type ${String(options.access)}.`, 'access');
    }
    const idPart = randomId(12);
    const token = `mgw_${idPart}_${randomBytes(32).toString('base64url')}`;
    const id = `key_${idPart}`;
    const label = options.label ?? '';
    // Refused, not cut: the owner would not find the key by the label they gave.
    if (label.length > 200) throw new GatewayError('invalid_request', 'A key label is at most 200 characters.', 'label');
    if (hasControlChar(label)) {
      throw new GatewayError('invalid_request', 'A key label must not contain control characters (line breaks, tabs, escapes).', 'label');
    }
    const accountId = await this.billing.createAccount(trx, options.access, options.balanceNano ?? 0, options.allowanceNano ?? 0);
    await trx
      .insertInto('api_keys')
      .values({
        id,
        account_id: accountId,
        label,
        token_hash: hashToken(token).toString('hex'),
        token_hint: `mgw_${idPart}_…${token.slice(-4)}`,
        created_at: this.clock.now(),
        revoked_at: null,
        last_used_at: null,
      })
      .execute();
    return { id, token };
  }

  /** The owner changes a key's access type and/or its allowance per period (billing refuses one its holds cannot survive). */
  async update(id: string, changes: { access?: AccessType; allowanceNano?: number }): Promise<KeyInfo> {
    const key = await this.active(id, 'changed');
    if (changes.access !== undefined && !ACCESS_TYPES.includes(changes.access)) {
      throw new GatewayError('invalid_request', `Unknown access type ${String(changes.access)}.`, 'access');
    }
    if (changes.access === undefined && changes.allowanceNano === undefined) {
      throw new GatewayError('invalid_request', 'Nothing to change: give a new access type, a new allowance, or both.');
    }
    await this.billing.changeTerms(key.account_id, changes);
    this.forgetVerified();
    return this.get(id);
  }

  async list(): Promise<KeyInfo[]> {
    const rows = await this.selectKeys().orderBy('api_keys.created_at', 'asc').execute();
    return rows.map(toInfo);
  }

  async get(id: string): Promise<KeyInfo> {
    const row = await this.selectKeys().where('api_keys.id', '=', id).executeTakeFirst();
    if (!row) throw new GatewayError('not_found', `No key with id ${id}.`, 'key_id');
    return toInfo(row);
  }

  async revoke(id: string): Promise<KeyInfo> {
    const result = await this.store.db
      .updateTable('api_keys')
      .set({ revoked_at: this.clock.now() })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    this.forgetVerified();
    if (Number(result.numUpdatedRows) === 0) await this.get(id); // 404 when missing; already revoked is fine
    return this.get(id);
  }

  private async lookup(id: string): Promise<AuthRow | undefined> {
    if (this.authLookup) return this.authLookup.get(id) as AuthRow | undefined;
    return this.store.db
      .selectFrom('api_keys as k')
      .innerJoin('accounts as a', 'a.id', 'k.account_id')
      .select(['k.id', 'k.account_id', 'k.token_hash', 'k.revoked_at', 'a.access_type'])
      .where('k.id', '=', id)
      .executeTakeFirst();
  }

  /** Resolves a bearer token to its principal, or throws 401 invalid_api_key. */
  async authenticate(token: string): Promise<Principal> {
    const hash = hashToken(token);
    if (!this.watch.unchanged()) {
      this.verified.clear();
      this.watch.mark();
    }
    const memoKey = hash.toString('base64');
    const known = this.verified.get(memoKey);
    if (known) return known;
    const match = TOKEN.exec(token);
    const row = match ? await this.lookup(`key_${match[1]}`) : undefined;
    // Compare even when the row is missing, so timing does not tell which ids exist.
    const expected = row ? Buffer.from(row.token_hash, 'hex') : Buffer.alloc(32);
    const matches = timingSafeEqual(hash, expected);
    if (!row || !matches || row.revoked_at !== null) {
      throw new GatewayError('invalid_api_key', 'The API key is not valid.');
    }
    const principal: Principal = { keyId: row.id, accountId: row.account_id, access: row.access_type as AccessType };
    if (this.verified.size >= MAX_VERIFIED) this.verified.clear();
    this.verified.set(memoKey, principal);
    return principal;
  }

  /** A key or account changed through this process: verify every token afresh. */
  private forgetVerified(): void {
    this.verified.clear();
    this.watch.reset();
  }

  /** The account behind a key id, for CLI commands addressed by key. */
  async accountOf(keyId: string): Promise<string> {
    return (await this.get(keyId)).account_id;
  }

  /** The account behind a key that can still spend: money put on a revoked key could never be used. */
  async accountToFund(keyId: string): Promise<string> {
    return (await this.active(keyId, 'topped up')).account_id;
  }

  /** The key, or 400 when it is revoked (a revoked key is final: its token never works again). */
  private async active(id: string, what: string): Promise<KeyInfo> {
    const key = await this.get(id);
    if (key.revoked_at !== null) {
      throw new GatewayError('invalid_request', `Key ${id} was revoked at ${key.revoked_at} and cannot be ${what}; create a new key instead.`, 'key_id');
    }
    return key;
  }

  private selectKeys() {
    return this.store.db
      .selectFrom('api_keys')
      .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
      .select([
        'api_keys.id',
        'api_keys.label',
        'api_keys.account_id',
        'api_keys.token_hint',
        'api_keys.created_at',
        'api_keys.revoked_at',
        'accounts.access_type',
      ]);
  }
}

type KeyListRow = Pick<ApiKeyRow, 'id' | 'label' | 'account_id' | 'token_hint' | 'created_at' | 'revoked_at'> & {
  access_type: string;
};

function toInfo(row: KeyListRow): KeyInfo {
  return {
    id: row.id,
    label: row.label,
    access: row.access_type as AccessType,
    account_id: row.account_id,
    token_hint: row.token_hint,
    created_at: new Date(row.created_at).toISOString(),
    revoked_at: row.revoked_at === null ? null : new Date(row.revoked_at).toISOString(),
  };
}
