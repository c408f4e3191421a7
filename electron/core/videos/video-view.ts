import type { VideoTask } from '../../../shared/api-types.js';
import { formatUsd } from '../billing/money.js';
import type { VideoTaskRow } from '../store/schema.js';

/** Builds the public task object; `contentUrl` makes the output URL absolute for the caller's door. */
export function toVideoTask(row: VideoTaskRow, contentUrl: (id: string) => string): VideoTask {
  const failed = row.status === 'failed' || row.status === 'timeout';
  let outputs: string[] = [];
  if (row.status === 'completed') outputs = [row.output_url ?? contentUrl(row.id)];
  return {
    id: row.id,
    object: 'video',
    model: row.model,
    status: row.status,
    progress: row.status === 'completed' ? 100 : row.progress,
    seconds: String(row.seconds),
    size: row.size,
    request_type: row.request_type,
    client_request_id: row.client_request_id,
    created_at: Math.floor(row.created_at / 1000),
    completed_at: row.completed_at === null ? null : Math.floor(row.completed_at / 1000),
    outputs,
    error: failed ? { code: row.error_code ?? 'failed', message: row.error_message ?? 'The task failed.' } : null,
    cost_usd: formatUsd(row.cost_nano),
  };
}

/**
 * The task as its creation answered it (queued, nothing out yet): a retry with the same
 * Idempotency-Key gets the same body as the first response, whatever the task did since.
 */
export function asCreated(row: VideoTaskRow): VideoTaskRow {
  return { ...row, status: 'queued', progress: 0, output_url: null, output_path: null, output_bytes: null, error_code: null, error_message: null, completed_at: null };
}
