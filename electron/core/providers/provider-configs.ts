// Upstream providers the owner configured (mgw providers add, the studio's Providers view).
// The row holds kind and base URL; the API key lives in the secret store (safeStorage in
// Electron, a 0600 file headless) or in an environment variable the row names. Keys are never
// returned by any listing. On SQLite the rows are read and written with prepared statements
// under the write lock; in team mode (PostgreSQL) through provider-rows-pg.ts, the keys sealed in
// the database (secrets/sealed-secrets.ts).
import type { ProviderInfo } from '../../../shared/studio-contract.js';
import type { Clock } from '../clock.js';
import { hasControlChar } from '../control-chars.js';
import { GatewayError, invalid } from '../errors.js';
import { UnreadableSecretError, type SecretStore } from '../secret-store.js';
import { DatabaseSecretStore } from '../secrets/sealed-secrets.js';
import type { Store } from '../store/database.js';
import type { ProviderRow } from '../store/schema.js';
import { isProviderKind, PROVIDER_KIND_INFO, PROVIDER_KIND_LIST, type ProviderKind } from '../../../shared/provider-kinds.js';
import { LOCAL_PROVIDER_ID } from './local/local-models.js';
import { PgProviderRows } from './provider-rows-pg.js';
import { changedColumns, exists, missing, secretName, stillServes, type ProviderChange, type ProviderRows } from './provider-rows.js';

export interface AddProvider {
  id: string;
  kind: ProviderKind;
  baseUrl?: string;
  apiKey?: string;
  apiKeyEnv?: string;
  /** The whole-call timeout of one generation, in seconds. */
  timeoutSeconds?: number;
}

export interface UpdateProvider {
  id: string;
  baseUrl?: string;
  apiKey?: string;
  apiKeyEnv?: string;
  /** null: back to the kind's default. */
  timeoutSeconds?: number | null;
}

/** The longest timeout an owner may set: a day (a local engine on a slow GPU, a long video). */
const MAX_TIMEOUT_SECONDS = 86_400;

/**
 * A provider's key as this process reads it: the key (null: none configured), or why there is
 * one that cannot be used (naming where it comes from, never the value).
 */
export interface ProviderKey {
  key: string | null;
  problem: string | null;
}

const ID = /^[a-z0-9][a-z0-9-]{0,39}$/;
const ENV = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
/** What a header can carry: printable ASCII without spaces (a line break or NUL fails every call). */
const KEY_CHARS = /^[\x21-\x7e]+$/;

/** SQLite: prepared statements, writes under the write lock (txSync) with the synchronous secret store. */
class SqliteProviderRows implements ProviderRows {
  /** Read when the registry's cached adapter may be stale: a prepared statement. */
  private readonly rowById;
  private readonly allRows;
  private readonly insertRow;
  private readonly updateRow;
  private readonly deleteRow;
  private readonly modelsOf;

  constructor(
    private readonly store: Store,
    private readonly secrets: SecretStore,
  ) {
    this.rowById = store.raw.prepare('select * from providers where id = ?');
    this.allRows = store.raw.prepare('select * from providers');
    this.insertRow = store.raw.prepare('insert into providers (id, kind, base_url, api_key_env, timeout_ms, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?)');
    this.updateRow = store.raw.prepare('update providers set base_url = ?, api_key_env = ?, timeout_ms = ?, updated_at = ? where id = ?');
    this.deleteRow = store.raw.prepare('delete from providers where id = ?');
    this.modelsOf = store.raw.prepare('select distinct model_id as id from model_routes where provider_id = ? order by model_id');
  }

  async init(): Promise<void> {}

  async row(id: string): Promise<ProviderRow | undefined> {
    return this.rowById.get(id) as ProviderRow | undefined;
  }

  list(): Promise<ProviderRow[]> {
    return this.store.db.selectFrom('providers').selectAll().orderBy('id').execute();
  }

  all(): ProviderRow[] {
    return this.allRows.all() as ProviderRow[];
  }

  async insert(row: ProviderRow, apiKey: string | undefined): Promise<ProviderRow> {
    await this.store.txSync(() => {
      // Add never replaces: a typo'd id would otherwise change another provider's kind and drop
      // its key under the models using it. Checked under the write lock, so a concurrent add of
      // the same id (another call, or another process) waits and is refused: it can neither slip
      // in between the check and the insert nor overwrite this provider's key.
      if (this.rowById.get(row.id)) throw exists(row.id);
      // The secret before the row: a server that sees the row must find its key (a stale secret
      // of a removed provider with this id is cleared).
      if (apiKey !== undefined) this.secrets.set(secretName(row.id), apiKey);
      else this.secrets.delete(secretName(row.id));
      this.insertRow.run(row.id, row.kind, row.base_url, row.api_key_env, row.timeout_ms, row.created_at, row.updated_at);
    });
    return (await this.row(row.id))!;
  }

  update(id: string, change: ProviderChange, now: number): Promise<ProviderRow> {
    return this.store.txSync(() => {
      // Secret and row under the write lock, as add: another update or a remove (another call,
      // or another process) waits, so the row never names a key source the secret store
      // disagrees with, and a provider removed meanwhile is not given a key again.
      const current = this.rowById.get(id) as ProviderRow | undefined;
      if (!current) throw missing(id);
      if (change.apiKey !== undefined) this.secrets.set(secretName(id), change.apiKey);
      if (change.apiKeyEnv !== undefined) this.secrets.delete(secretName(id));
      const columns = changedColumns(current, change);
      this.updateRow.run(columns.base_url, columns.api_key_env, columns.timeout_ms, now, id);
      return this.rowById.get(id) as ProviderRow;
    });
  }

  async remove(id: string): Promise<void> {
    await this.store.txSync(() => {
      // Under the write lock, as add and update: an add of this id in another process cannot
      // come between the row's delete and the secret's and lose its new key, nor a models put
      // between the check and the delete.
      const used = this.modelsOf.all(id) as { id: string }[];
      if (used.length > 0) throw stillServes(id, used.map((m) => m.id));
      if (this.deleteRow.run(id).changes === 0) throw missing(id);
      this.secrets.delete(secretName(id));
    });
  }
}

export class ProviderConfigs {
  private readonly rows: ProviderRows;
  /** Bumped by every change made through this process (others show in data_version). */
  generation = 0;

  /**
   * On PostgreSQL (team mode) `secrets` must be a DatabaseSecretStore, and init() must have run
   * before the synchronous reads (allKeys, readKey) see anything.
   */
  constructor(
    readonly store: Store,
    private readonly secrets: SecretStore,
    private readonly clock: Clock,
  ) {
    if (store.dialect === 'postgres') {
      if (!(secrets instanceof DatabaseSecretStore)) throw new Error('ProviderConfigs on PostgreSQL needs a DatabaseSecretStore (team mode keeps provider keys in the database)');
      this.rows = new PgProviderRows(store, secrets);
    } else {
      this.rows = new SqliteProviderRows(store, secrets);
    }
  }

  /** Team mode: reads the providers and their keys for the synchronous reads. Nothing to do on SQLite. */
  init(): Promise<void> {
    return this.rows.init();
  }

  async list(): Promise<ProviderInfo[]> {
    const rows = await this.rows.list();
    return rows.map((row) => this.info(row));
  }

  row(id: string): Promise<ProviderRow | undefined> {
    return this.rows.row(id);
  }

  async add(input: AddProvider): Promise<ProviderInfo> {
    if (!ID.test(input.id) || input.id === LOCAL_PROVIDER_ID) {
      throw invalid('A provider id is 1-40 lowercase letters, digits or dashes, starting with a letter or digit, and not "local".', 'id');
    }
    if (!isProviderKind(input.kind)) throw invalid(`kind must be ${PROVIDER_KIND_LIST}.`, 'kind');
    const baseUrl = input.baseUrl ?? PROVIDER_KIND_INFO[input.kind].defaultBaseUrl;
    if (!baseUrl) throw invalid(`An ${input.kind} provider needs its base URL.`, 'base_url');
    checkBaseUrl(baseUrl);
    checkKeyOptions(input, input.kind);
    if (PROVIDER_KIND_INFO[input.kind].keyRequired && input.apiKey === undefined && input.apiKeyEnv === undefined) {
      throw invalid(`A ${PROVIDER_KIND_INFO[input.kind].label} provider needs its API key: give the key, or the name of the environment variable that holds it.`, 'api_key');
    }
    const timeoutMs = timeoutMsOf(input.timeoutSeconds);
    const now = this.clock.now();
    const row: ProviderRow = {
      id: input.id,
      kind: input.kind,
      base_url: baseUrl.replace(/\/+$/, ''),
      api_key_env: input.apiKeyEnv ?? null,
      timeout_ms: timeoutMs ?? null,
      created_at: now,
      updated_at: now,
    };
    const added = await this.rows.insert(row, input.apiKey);
    this.generation++;
    return this.info(added);
  }

  /**
   * Changes a provider's base URL or key (rotating a stored key, moving to an env variable),
   * keeping its kind and the models it serves. What is not given stays as it was.
   */
  async update(input: UpdateProvider): Promise<ProviderInfo> {
    const before = await this.row(input.id);
    if (!before) throw missing(input.id);
    if (input.baseUrl === undefined && input.apiKey === undefined && input.apiKeyEnv === undefined && input.timeoutSeconds === undefined) {
      throw invalid('Nothing to change: give a base URL, an API key, the name of its environment variable or a timeout.', null);
    }
    if (input.baseUrl !== undefined) checkBaseUrl(input.baseUrl);
    checkKeyOptions(input, before.kind);
    const timeoutMs = input.timeoutSeconds === null ? null : timeoutMsOf(input.timeoutSeconds);
    const change: ProviderChange = {
      ...(input.baseUrl !== undefined ? { baseUrl: input.baseUrl } : {}),
      ...(input.apiKey !== undefined ? { apiKey: input.apiKey } : {}),
      ...(input.apiKeyEnv !== undefined ? { apiKeyEnv: input.apiKeyEnv } : {}),
      ...(input.timeoutSeconds !== undefined ? { timeoutMs: timeoutMs ?? null } : {}),
    };
    const updated = await this.rows.update(input.id, change, this.clock.now());
    this.generation++;
    return this.info(updated);
  }

  /** Removes a provider; refused while catalog models still point at it. */
  async remove(id: string): Promise<void> {
    await this.rows.remove(id);
    this.generation++;
  }

  /**
   * The key, or why it cannot be used: an environment variable that is unset, empty or holds what
   * no header can carry would otherwise fail every call as "could not connect" or "rejected", and
   * a sealed key the keychain no longer decrypts would throw out of every list and request.
   */
  readKey(row: ProviderRow): ProviderKey {
    if (!row.api_key_env) {
      try {
        return { key: this.secrets.get(secretName(row.id)), problem: null };
      } catch (error) {
        if (!(error instanceof UnreadableSecretError)) throw error;
        const reenter = `mgw providers update --id ${row.id} --api-key KEY, or Edit in the studio's Providers view`;
        return { key: null, problem: `The stored key of provider ${row.id} cannot be read: ${error.message}; enter it again (${reenter}).` };
      }
    }
    const name = row.api_key_env;
    const value = process.env[name];
    if (value === undefined || value === '') {
      return { key: null, problem: `The key of provider ${row.id} is read from ${name}, which is ${value === undefined ? 'not set' : 'empty'} in this process's environment.` };
    }
    if (!KEY_CHARS.test(value)) {
      return { key: null, problem: `The key in ${name} is not usable: a key must be printable ASCII without spaces or line breaks (check for a line break at its end).` };
    }
    return { key: value, problem: null };
  }

  /** The key to send (null: none), or a 503 saying why the owner's key cannot be used. */
  apiKey(row: ProviderRow): string | null {
    const { key, problem } = this.readKey(row);
    if (problem) throw new GatewayError('upstream_unavailable', problem);
    return key;
  }

  /**
   * Every configured provider's key (stored or env-named), read synchronously because log
   * redaction needs it at the moment a line is written, whether or not an adapter was built.
   */
  allKeys(): string[] {
    const keys: string[] = [];
    for (const row of this.rows.all()) {
      // An unusable key is never sent, so no upstream can echo it; nor is one in a secrets file
      // that cannot be read (a damaged file must not turn the upstream error being logged into
      // a storage error: the keys of adapters already built are redacted by the registry).
      let key: string | null;
      try {
        key = this.readKey(row).key;
      } catch {
        continue;
      }
      if (key) keys.push(key);
    }
    return keys;
  }

  private info(row: ProviderRow): ProviderInfo {
    const { key, problem } = this.readKey(row);
    const keySource = row.api_key_env ? `env:${row.api_key_env}` : key !== null || problem !== null ? 'stored' : 'none';
    return {
      id: row.id,
      kind: row.kind,
      base_url: row.base_url,
      timeout_seconds: row.timeout_ms === null ? null : row.timeout_ms / 1000,
      key_source: keySource,
      key_problem: problem,
      created_at: new Date(row.created_at).toISOString(),
    };
  }
}

function checkBaseUrl(baseUrl: string): void {
  // The URL parser drops tabs and line breaks and trims spaces: the URL called would not be the
  // one stored and listed, whose rows such characters would split.
  if (/\s/.test(baseUrl) || hasControlChar(baseUrl)) throw invalid('base_url must not contain spaces, line breaks or control characters.', 'base_url');
  let parsed: URL;
  try {
    parsed = new URL(baseUrl);
  } catch {
    throw invalid('base_url must be an http(s) URL.', 'base_url');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw invalid('base_url must be an http(s) URL.', 'base_url');
  // Upstream paths are appended to the base URL, so a query or fragment would corrupt every call.
  if (/[?#]/.test(baseUrl)) throw invalid('base_url must not have a query or a fragment.', 'base_url');
  // Credentials belong in the API key, which is never listed; a URL is. The message does not echo it.
  if (parsed.username || parsed.password || /^[a-z]+:\/\/[^/]*@/i.test(baseUrl)) {
    throw invalid('base_url must not contain a user name or password; give the key with --api-key or --api-key-env.', 'base_url');
  }
}

function timeoutMsOf(seconds: number | undefined): number | undefined {
  if (seconds === undefined) return undefined;
  if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < 1 || seconds > MAX_TIMEOUT_SECONDS) {
    throw invalid(`timeout_seconds must be a whole number of seconds from 1 to ${MAX_TIMEOUT_SECONDS}.`, 'timeout_seconds');
  }
  return seconds * 1000;
}

function checkKeyOptions(input: { apiKey?: string; apiKeyEnv?: string }, kind: ProviderKind): void {
  const takes = PROVIDER_KIND_INFO[kind].key;
  if (takes === null && (input.apiKey !== undefined || input.apiKeyEnv !== undefined)) {
    throw invalid(`A ${kind} provider takes no API key (the engine has no authentication); leave the key out.`, 'api_key');
  }
  if (input.apiKeyEnv !== undefined && !ENV.test(input.apiKeyEnv)) throw invalid('api_key_env must be an environment variable name.', 'api_key_env');
  // An empty key is a mistake (an unset shell variable), not "no key": leave the option out for that.
  if (input.apiKey === '') throw invalid('api_key must not be empty; leave it out for a provider that needs no key.', 'api_key');
  // It goes in a header: a line break pasted with it (or a space, a NUL) would make every call
  // fail as "could not connect". The message does not echo the key.
  if (input.apiKey !== undefined && !KEY_CHARS.test(input.apiKey)) {
    throw invalid('api_key must be printable ASCII without spaces or line breaks (check for a line break pasted with it).', 'api_key');
  }
  if (input.apiKey !== undefined && input.apiKeyEnv !== undefined) throw invalid('Give the API key or the name of its environment variable, not both.', 'api_key');
  // AUTOMATIC1111's --api-auth is USER:PASS, sent as HTTP Basic.
  if (takes === 'basic-auth' && input.apiKey !== undefined && !/^[^:]+:.+$/.test(input.apiKey)) {
    throw invalid('The key of an a1111 provider is USER:PASS, as given to the engine\u2019s --api-auth.', 'api_key');
  }
}
