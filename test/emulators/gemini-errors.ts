// Gemini API error bodies and the models the emulator knows. Errors are google.rpc.Status in
// JSON, {error: {code, message, status, details}}, which the SDK (js-genai src/_api_client.ts,
// throwErrorIfNotOK) reads whole; the shapes below are those the API answers (as quoted in
// public bug reports): a wrong key is 400 INVALID_ARGUMENT with an ErrorInfo whose reason is
// API_KEY_INVALID; no key 403 PERMISSION_DENIED; an exhausted quota 429 RESOURCE_EXHAUSTED with
// QuotaFailure, Help and RetryInfo {retryDelay: "<n>s"}; an unknown model 404 NOT_FOUND; a
// request it cannot read 400 INVALID_ARGUMENT ("Invalid JSON payload received. Unknown name ...").
import { type Reply, json } from './http-kit.js';

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

const DEFAULT_MESSAGES: Record<number, string> = {
  400: 'Request contains an invalid argument.',
  403: 'The caller does not have permission',
  404: 'Requested entity was not found.',
  429: 'You exceeded your current quota, please check your plan and billing details.',
  500: 'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
  503: 'The model is overloaded. Please try again later.',
  504: 'Deadline expired before operation could complete.',
};

export type GoogleDetail = Record<string, unknown>;

/** A google.rpc.Status answer; `status` defaults to the code's canonical name. */
export function googleError(code: number, message?: string, details?: GoogleDetail[], status?: string): Reply {
  const error: Record<string, unknown> = { code, message: message ?? DEFAULT_MESSAGES[code] ?? `HTTP ${code}`, status: status ?? STATUS_NAMES[code] ?? (code >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT') };
  if (details) error.details = details;
  return json(code, { error });
}

/** The answer to a key the API does not know. */
export function invalidKey(): Reply {
  const message = 'API key not valid. Please pass a valid API key.';
  return googleError(400, message, [
    { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com', metadata: { service: 'generativelanguage.googleapis.com' } },
    { '@type': 'type.googleapis.com/google.rpc.LocalizedMessage', locale: 'en-US', message },
  ]);
}

export function noKey(): Reply {
  return googleError(403, 'Method doesn\'t allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.');
}

/** A 429 as the free tier answers it, with the wait in RetryInfo. */
export function quotaExhausted(model: string, retryDelay = '30s'): Reply {
  return googleError(429, 'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.', [
    {
      '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
      violations: [{ quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests', quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier', quotaDimensions: { location: 'global', model }, quotaValue: '10' }],
    },
    { '@type': 'type.googleapis.com/google.rpc.Help', links: [{ description: 'Learn more about Gemini API quotas', url: 'https://ai.google.dev/gemini-api/docs/rate-limits' }] },
    { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay },
  ]);
}

export const badRequest = (message: string): Reply => googleError(400, message);
export const unknownName = (name: string, at: string): Reply => badRequest(`Invalid JSON payload received. Unknown name "${name}"${at ? ` at '${at}'` : ''}: Cannot find field.`);

export interface EmulatedModel {
  /** The id after models/. */
  id: string;
  displayName: string;
  supportedGenerationMethods: string[];
  /** Image output of a generateContent model: Gemini 2.5 Flash Image (1K) or 3 Pro Image (1K/2K/4K, thinking). */
  image?: 'flash' | 'pro';
  /** A Veo model: the durations and resolutions it takes. */
  veo?: { durations: number[]; resolutions: string[] };
}

export const GEMINI_MODELS: EmulatedModel[] = [
  { id: 'gemini-2.5-flash', displayName: 'Gemini 2.5 Flash', supportedGenerationMethods: ['generateContent', 'countTokens'] },
  { id: 'gemini-2.5-flash-image', displayName: 'Nano Banana', supportedGenerationMethods: ['generateContent', 'countTokens'], image: 'flash' },
  { id: 'gemini-3-pro-image-preview', displayName: 'Nano Banana Pro', supportedGenerationMethods: ['generateContent', 'countTokens'], image: 'pro' },
  { id: 'imagen-4.0-generate-001', displayName: 'Imagen 4', supportedGenerationMethods: ['predict'] },
  { id: 'veo-2.0-generate-001', displayName: 'Veo 2', supportedGenerationMethods: ['predictLongRunning'], veo: { durations: [5, 6, 7, 8], resolutions: ['720p'] } },
  { id: 'veo-3.0-generate-001', displayName: 'Veo 3', supportedGenerationMethods: ['predictLongRunning'], veo: { durations: [4, 6, 8], resolutions: ['720p', '1080p'] } },
  { id: 'veo-3.0-fast-generate-001', displayName: 'Veo 3 Fast', supportedGenerationMethods: ['predictLongRunning'], veo: { durations: [4, 6, 8], resolutions: ['720p', '1080p'] } },
  { id: 'veo-3.1-generate-preview', displayName: 'Veo 3.1', supportedGenerationMethods: ['predictLongRunning'], veo: { durations: [4, 6, 8], resolutions: ['720p', '1080p'] } },
  { id: 'veo-3.1-fast-generate-preview', displayName: 'Veo 3.1 Fast', supportedGenerationMethods: ['predictLongRunning'], veo: { durations: [4, 6, 8], resolutions: ['720p', '1080p'] } },
];

/** models.get / models.list entries (the fields the SDK's modelFromMldev reads). */
export function modelResource(model: EmulatedModel): Record<string, unknown> {
  return {
    name: `models/${model.id}`,
    version: '001',
    displayName: model.displayName,
    description: `${model.displayName} (emulated)`,
    inputTokenLimit: model.veo ? 480 : 32768,
    outputTokenLimit: model.veo ? 8192 : 32768,
    supportedGenerationMethods: model.supportedGenerationMethods,
  };
}

/** The 404 of a model the API does not have, or that does not take the method. */
export function modelNotFound(id: string, method: string): Reply {
  return googleError(404, `models/${id} is not found for API version v1beta, or is not supported for ${method}. Call ListModels to see the list of available models and their supported methods.`);
}
