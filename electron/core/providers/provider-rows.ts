// Where provider-configs.ts reads and writes the `providers` rows and their stored keys: SQLite's
// prepared statements under the write lock (provider-configs.ts), or PostgreSQL through Kysely
// under an advisory lock, with a snapshot for the synchronous reads (provider-rows-pg.ts). Both
// make the same checks with the same messages, which live here.
import { GatewayError, invalid } from '../errors.js';
import type { ProviderRow } from '../store/schema.js';

/** What an update changes; undefined leaves a field as it was. */
export interface ProviderChange {
  baseUrl?: string;
  apiKey?: string;
  apiKeyEnv?: string;
  /** null: back to the kind's default. */
  timeoutMs?: number | null;
}

export interface ProviderRows {
  /** Reads what the synchronous all() answers from (nothing to do on SQLite). */
  init(): Promise<void>;
  row(id: string): Promise<ProviderRow | undefined>;
  /** Every row, by id. */
  list(): Promise<ProviderRow[]>;
  /** Every row, synchronously: log redaction needs the keys at the moment a line is written. */
  all(): ProviderRow[];
  /** Inserts `row` with its stored key (undefined: none, clearing a stale one); refused when the id exists. */
  insert(row: ProviderRow, apiKey: string | undefined): Promise<ProviderRow>;
  /** Applies `change` to the row as it is under the lock; refused when it is gone. */
  update(id: string, change: ProviderChange, now: number): Promise<ProviderRow>;
  /** Deletes the row and its stored key; refused while model routes point at it. */
  remove(id: string): Promise<void>;
}

export const secretName = (id: string): string => `provider:${id}`;
export const missing = (id: string): GatewayError => new GatewayError('not_found', `No provider ${id}.`, 'id');
export const exists = (id: string): GatewayError =>
  invalid(`Provider ${id} exists already; pick another id, change it (mgw providers update --id ${id}), or remove it first (mgw providers remove ${id}).`, 'id');
export const stillServes = (id: string, models: string[]): GatewayError =>
  invalid(`Provider ${id} still serves ${models.join(', ')}; remove those models first (mgw models remove).`, 'id');

/** The columns an update writes, from the row as it is under the lock. */
export function changedColumns(current: ProviderRow, change: ProviderChange): Pick<ProviderRow, 'base_url' | 'api_key_env' | 'timeout_ms'> {
  return {
    base_url: change.baseUrl !== undefined ? change.baseUrl.replace(/\/+$/, '') : current.base_url,
    api_key_env: change.apiKeyEnv !== undefined ? change.apiKeyEnv : change.apiKey !== undefined ? null : current.api_key_env,
    timeout_ms: change.timeoutMs !== undefined ? change.timeoutMs : current.timeout_ms,
  };
}
