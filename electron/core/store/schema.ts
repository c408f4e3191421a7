// Kysely table types. Money columns are integer nano-USD; times are unix milliseconds.
import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';
import type { ProviderKind } from '../../../shared/provider-kinds.js';

export interface AccountsTable {
  id: string;
  access_type: string;
  balance_nano: number;
  allowance_nano: number;
  allowance_used_nano: number;
  held_nano: number;
  period_started_at: number;
  created_at: number;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  label: string;
  token_hash: string;
  token_hint: string;
  created_at: number;
  revoked_at: number | null;
  last_used_at: number | null;
}

export interface HoldsTable {
  id: string;
  account_id: string;
  amount_nano: number;
  status: 'active' | 'consumed' | 'released';
  purpose: string;
  ref: string | null;
  charged_nano: number;
  created_at: number;
  settled_at: number | null;
  /** Team mode: the instance whose image request holds it (released if that instance dies); null otherwise. */
  instance_id: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface LedgerTable {
  id: Generated<number>;
  account_id: string;
  kind: 'top_up' | 'reserve' | 'consume' | 'release' | 'charge' | 'adjust';
  amount_nano: number;
  balance_delta_nano: number;
  allowance_delta_nano: number;
  hold_id: string | null;
  ref: string | null;
  created_at: number;
}

export interface ModelsTable {
  id: string;
  record_json: string;
  source: 'builtin' | 'owner';
  updated_at: number;
}

/** A model's routes, tried in `position` order (0 first). */
export interface ModelRoutesTable {
  model_id: string;
  position: number;
  provider_id: string;
  upstream_model: string;
  /** The owner's workflow (API format) or request template, placeholders unfilled; null: the kind's built-in one. */
  workflow_json: string | null;
}

/** What the serving process last saw of each provider it routed to (routes/route-health.ts), for `mgw providers list`. */
export interface ProviderHealthTable {
  provider_id: string;
  consecutive_failures: number;
  /** While a tripped breaker skips the provider; null when it does not. */
  skipped_until: number | null;
  last_error: string | null;
  last_error_at: number | null;
  last_ok_at: number | null;
  /** The median of its recent successful calls. */
  latency_ms: number | null;
  updated_at: number;
}

export interface MetaTable {
  key: string;
  value: string;
}

export type VideoStatus = 'queued' | 'in_progress' | 'completed' | 'failed' | 'timeout';

export interface VideoTasksTable {
  id: string;
  account_id: string;
  key_id: string;
  model: string;
  provider_id: string;
  upstream_model: string;
  request_type: string;
  prompt: string;
  seconds: number;
  size: string;
  client_request_id: string | null;
  /** JSON array of file names under <data dir>/uploads. */
  reference_files: string;
  status: VideoStatus;
  progress: number;
  hold_id: string | null;
  cost_nano: number;
  upstream_id: string | null;
  output_path: string | null;
  /** The output file's size when the task completed (null for a URL, or a task from before it was recorded). */
  output_bytes: number | null;
  output_url: string | null;
  error_code: string | null;
  error_message: string | null;
  created_at: number;
  updated_at: number;
  completed_at: number | null;
  deadline_at: number;
  /** When an active task is next polled; on an ended one, when a pending upstream cancel is next tried. */
  next_poll_at: number;
  /** Set on an ended task whose upstream job is still to be cancelled: retried until then. */
  upstream_cancel_until: number | null;
  /** `{workflow, fps}` of the task's model at creation (see EngineOptions); null on older tasks. */
  engine_json: string | null;
  /** Team mode: the instance working the task, and until when (it renews while alive). Null on SQLite. */
  lease_owner: ColumnType<string | null, string | null | undefined, string | null>;
  lease_until: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface IdempotencyKeysTable {
  account_id: string;
  key: string;
  request_hash: string;
  task_id: string;
  created_at: number;
}

export interface GalleryTable {
  id: string;
  account_id: string;
  kind: 'generation' | 'edit';
  model: string;
  prompt: string;
  width: number;
  height: number;
  cost_nano: number;
  file: string;
  created_at: number;
}

export interface RequestLogTable {
  id: Generated<number>;
  at: number;
  key_id: string | null;
  method: string;
  endpoint: string;
  model: string | null;
  status: number;
  latency_ms: number;
  cost_nano: number;
  /** The provider whose route served the request; null when none did (or no route was involved). */
  route: string | null;
  /** JSON [{provider, reason}] of the routes that failed before it, in gateway words; null: none. */
  failed_routes: string | null;
}

export interface ProvidersTable {
  id: string;
  kind: ProviderKind;
  base_url: string;
  /** When set, the API key is read from this environment variable instead of the secret store. */
  api_key_env: string | null;
  /** The owner's whole-call timeout for this provider's requests; null: the kind's default. */
  timeout_ms: number | null;
  created_at: number;
  updated_at: number;
}

export interface UsageDailyTable {
  /** A key id, or anon:<client address>. */
  principal: string;
  day: string;
  model: string;
  requests: number;
  input_tokens: number;
  output_tokens: number;
  spend_nano: number;
}

export interface InstancesTable {
  id: string;
  host: string;
  pid: number;
  started_at: number;
  alive_until: number;
}

export interface RateWindowsTable {
  principal: string;
  s_start: number;
  s_count: number;
  m_start: number;
  m_count: number;
  h_start: number;
  h_count: number;
}

export interface DailyTokensTable {
  principal: string;
  day: string;
  used: number;
  held: number;
}

export interface SecretsTable {
  name: string;
  sealed: string;
  updated_at: number;
}

export interface Database {
  instances: InstancesTable;
  rate_windows: RateWindowsTable;
  daily_tokens: DailyTokensTable;
  secrets: SecretsTable;
  usage_daily: UsageDailyTable;
  providers: ProvidersTable;
  gallery: GalleryTable;
  request_log: RequestLogTable;
  video_tasks: VideoTasksTable;
  idempotency_keys: IdempotencyKeysTable;
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  holds: HoldsTable;
  ledger: LedgerTable;
  models: ModelsTable;
  model_routes: ModelRoutesTable;
  provider_health: ProviderHealthTable;
  meta: MetaTable;
}

export type AccountRow = Selectable<AccountsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type HoldRow = Selectable<HoldsTable>;
export type LedgerRow = Selectable<LedgerTable>;
export type ModelRow = Selectable<ModelsTable>;
export type ModelRouteRow = Selectable<ModelRoutesTable>;
export type ProviderHealthRow = Selectable<ProviderHealthTable>;
export type NewLedgerRow = Insertable<LedgerTable>;
export type VideoTaskRow = Selectable<VideoTasksTable>;
export type GalleryRow = Selectable<GalleryTable>;
export type RequestLogRow = Selectable<RequestLogTable>;
export type ProviderRow = Selectable<ProvidersTable>;
