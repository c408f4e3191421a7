// OpenAI-style error bodies: {error: {message, type, param, code}} (the shape of the API's own
// errors, e.g. the 401 for a bad key with code 'invalid_api_key').
import { type Reply, json } from './http-kit.js';

export interface OpenAIErrorFields {
  type?: string;
  code?: string | null;
  param?: string | null;
}

const DEFAULTS: Record<number, { type: string; code: string | null; message: string }> = {
  400: { type: 'invalid_request_error', code: null, message: 'Invalid request.' },
  401: { type: 'invalid_request_error', code: 'invalid_api_key', message: 'Incorrect API key provided.' },
  403: { type: 'permission_error', code: null, message: 'You are not allowed to sample from this model.' },
  404: { type: 'invalid_request_error', code: null, message: 'Not found.' },
  409: { type: 'invalid_request_error', code: 'conflict', message: 'Conflict.' },
  429: { type: 'requests', code: 'rate_limit_exceeded', message: 'Rate limit reached for requests. Please try again later.' },
  500: { type: 'server_error', code: null, message: 'The server had an error while processing your request. Sorry about that!' },
  502: { type: 'server_error', code: null, message: 'Bad gateway.' },
  503: { type: 'server_error', code: 'service_unavailable', message: 'The engine is currently overloaded, please try again later.' },
};

export function openaiError(status: number, message?: string, fields: OpenAIErrorFields = {}): Reply {
  const fallback = DEFAULTS[status] ?? { type: status >= 500 ? 'server_error' : 'invalid_request_error', code: null, message: `HTTP ${status}` };
  return json(status, {
    error: {
      message: message ?? fallback.message,
      type: fields.type ?? fallback.type,
      param: fields.param ?? null,
      code: fields.code === undefined ? fallback.code : fields.code,
    },
  });
}

/** 400 for a missing or invalid parameter, naming it in `param` like the real API. */
export function badParam(param: string, message: string, code = 'invalid_value'): Reply {
  return openaiError(400, message, { type: 'invalid_request_error', param, code });
}
