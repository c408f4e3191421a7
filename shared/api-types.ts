// Wire types of the public /v1 API (the contract: media-gateway-api.md). Shared by the main
// process and the renderer, so nothing here may import Node or Electron.

export type Tier = 'turbo' | 'pro';
export type PricingMode = 'token' | 'second';
export type Modality = 'text' | 'image' | 'video' | 'audio';

export interface RoutePrice {
  route: string;
  request_type: string;
  public_price_usd_per_second: number;
}

export interface Pricing {
  input?: number;
  output?: number;
  price?: number;
  route_prices_usd_per_second?: RoutePrice[];
  minimum_request_price_usd?: number;
  minimum_cache_tokens?: number;
  currency: string;
  unit: string;
}

export interface Capabilities {
  image_generation?: boolean;
  image_edit?: boolean;
  video_generation?: boolean;
  video_async?: boolean;
  supported_seconds?: number[];
  supported_sizes?: string[];
  max_reference_images?: number;
  max_reference_image_bytes?: number;
  requires_reference_image?: boolean;
  partner_video?: boolean;
  partner_routes?: Record<string, unknown>[];
  request_types?: string[];
  max_task_seconds?: number;
  [key: string]: unknown;
}

export interface ModelRecord {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
  tier: Tier;
  model_type: string;
  pricing_mode: PricingMode;
  pricing: Pricing;
  modalities: { input: Modality[]; output: Modality[] };
  context_window: { tokens: number | null; chars: number | null };
  usage_based_only: boolean;
  stream: boolean;
  json_mode: boolean;
  reasoning: boolean;
  tools_calling: boolean;
  capabilities: Capabilities;
}

export interface ModelList {
  object: 'list';
  data: ModelRecord[];
}

export interface ImageResult {
  data: [{ b64_json: string }];
  usage: { cost_usd: string };
}

export interface ErrorBody {
  error: { message: string; type: string; code: string; param: string | null };
}

export type AccessType = 'free' | 'pro' | 'balance';

export interface KeyInfo {
  id: string;
  label: string;
  access: AccessType;
  account_id: string;
  token_hint: string;
  created_at: string;
  revoked_at: string | null;
}

export interface BalanceView {
  account_id: string;
  access: AccessType;
  balance_usd: string;
  allowance_remaining_usd: string;
  holds_usd: string;
  available_usd: string;
}

export type VideoStatus = 'queued' | 'in_progress' | 'completed' | 'failed' | 'timeout';

/** A video task as GET /v1/videos/{id} returns it (the contract's fields plus SDK-friendly extras). */
export interface VideoTask {
  id: string;
  object: 'video';
  model: string;
  status: VideoStatus;
  progress: number;
  seconds: string;
  size: string;
  request_type: string;
  client_request_id: string | null;
  created_at: number;
  completed_at: number | null;
  outputs: string[];
  error: { code: string; message: string } | null;
  /** The hold while the task runs; the charged amount once completed; 0 when released. */
  cost_usd: string;
}

export interface VideoTaskList {
  object: 'list';
  data: VideoTask[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}
