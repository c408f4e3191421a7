// Requests and answers of Replicate's HTTP API (api.replicate.com/v1), read from the official
// JavaScript client (replicate/replicate-javascript: lib/predictions.js, lib/identifier.js,
// lib/util.js, index.d.ts) and Replicate's OpenAPI document:
//
//   POST /v1/models/{owner}/{name}/predictions  {input}            an official model
//   POST /v1/predictions                        {version, input}   any model version
//     Prefer: wait=N (1..60 s) holds the call open until the prediction ends or N passes; the
//     answer is the prediction, 201 (or 202 while outputs are missing). Cancel-After bounds its
//     lifetime ("90s", "5m"; at least 5 s).
//   GET  /v1/predictions/{id}        the prediction
//   POST /v1/predictions/{id}/cancel the prediction, cancelled if it was running
//   prediction: {id, model, version, status: starting|processing|succeeded|failed|canceled|aborted,
//                input, output (any JSON: files as URLs), error, logs, data_removed, urls, ...}
//
// Which endpoint an upstream model takes (decided here, documented in docs/providers.md):
//   owner/name           -> the official-model endpoint
//   owner/name:version   -> POST /v1/predictions with the version id (as the client library does)
//   a bare version id    -> POST /v1/predictions with it
import { GatewayError } from '../../errors.js';
import { invalidResponse } from '../upstream/upstream-errors.js';

export const REPLICATE = 'Replicate';

export type PredictionStatus = 'starting' | 'processing' | 'succeeded' | 'failed' | 'canceled' | 'aborted';
const STATUSES: readonly string[] = ['starting', 'processing', 'succeeded', 'failed', 'canceled', 'aborted'];
export const isEnded = (status: PredictionStatus): boolean => status !== 'starting' && status !== 'processing';

/** Where a prediction is created: the path under /v1, and the version the body names (null: none). */
export interface PredictionRoute {
  path: string;
  version: string | null;
}

const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;
const VERSION = /^[0-9a-f]{64}$/;

export function predictionRoute(upstreamModel: string): PredictionRoute {
  const bare = upstreamModel.trim();
  if (VERSION.test(bare)) return { path: '/predictions', version: bare };
  const match = /^([^/:]+)\/([^/:]+)(?::([^/:]+))?$/.exec(bare);
  const [, owner = '', name = '', version] = match ?? [];
  if (match && SEGMENT.test(owner) && SEGMENT.test(name)) {
    if (version === undefined) return { path: `/models/${encodeURIComponent(owner)}/${encodeURIComponent(name)}/predictions`, version: null };
    if (VERSION.test(version)) return { path: '/predictions', version };
  }
  // The owner's catalog entry, not the client's request, is wrong: as for a provider that is gone.
  throw new GatewayError(
    'upstream_unavailable',
    'The upstream model of this catalog entry is not a Replicate model reference (owner/name, owner/name:version or a 64-character version id); the gateway\u2019s owner must fix it.',
  );
}

/** The body of a creation. */
export function predictionBody(route: PredictionRoute, input: Record<string, unknown>): Record<string, unknown> {
  return route.version === null ? { input } : { version: route.version, input };
}

export interface Prediction {
  id: string;
  status: PredictionStatus;
  output: unknown;
  logs: string | null;
  /** Replicate removed the input and output (an hour after the end, by default). */
  dataRemoved: boolean;
}

/** A prediction answer, checked for what the gateway reads. */
export function predictionOf(body: unknown): Prediction {
  if (!isObject(body)) throw invalidResponse('the prediction is not an object');
  if (typeof body.id !== 'string' || !/^[A-Za-z0-9_-]{1,200}$/.test(body.id)) throw invalidResponse('the prediction has no id');
  if (typeof body.status !== 'string' || !STATUSES.includes(body.status)) throw invalidResponse('the prediction has an unknown status');
  return {
    id: body.id,
    status: body.status as PredictionStatus,
    output: body.output ?? null,
    logs: typeof body.logs === 'string' ? body.logs : null,
    dataRemoved: body.data_removed === true,
  };
}

/**
 * The files of an output, in order: a URL, an array of them, or (models that answer an object)
 * its URL values. Sync mode may answer a file as a data: URL (the client library's FileOutput).
 */
export function outputUrls(output: unknown): string[] {
  const values = typeof output === 'string' ? [output] : Array.isArray(output) ? output : isObject(output) ? Object.values(output) : [];
  return values.filter((value): value is string => typeof value === 'string' && /^(https?:\/\/|data:)/i.test(value));
}

/** The tqdm line most models log ("76%|███     | 7568/10000 [...]"): parseProgressFromLogs in lib/util.js. */
const TQDM = /^\s*(\d+)%\s*\|.+?\|\s*(\d+)\/(\d+)/;

/** The progress the logs show (0-100), from their last progress line; null when none. */
export function progressOf(logs: string | null): number | null {
  if (!logs) return null;
  // Only the tail: a long run's logs may be large, and the last line is what counts.
  const lines = logs.slice(-8192).split('\n').reverse();
  for (const line of lines) {
    const match = TQDM.exec(line);
    if (match) return Math.min(100, Math.max(0, Number(match[1])));
  }
  return null;
}

export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
