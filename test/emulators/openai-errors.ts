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

/** 'a', 'b', and 'c' / 'a' and 'b': how the API lists the values it supports. */
export function quotedList(values: readonly string[]): string {
  const quoted = values.map((value) => `'${value}'`);
  if (quoted.length <= 2) return quoted.join(' and ');
  return `${quoted.slice(0, -1).join(', ')}, and ${quoted.at(-1)}`;
}

/**
 * The real API's refusal of a value outside a parameter's enum, e.g. {message: "Invalid value:
 * '512x512'. Supported values are: '1024x1024', '1024x1536', '1536x1024', and 'auto'.", type:
 * 'invalid_request_error', param: 'size', code: 'invalid_value'} (as answered to gpt-image-1 clients).
 */
export function invalidValue(param: string, value: unknown, supported: readonly string[]): Reply {
  return badParam(param, `Invalid value: '${String(value)}'. Supported values are: ${quotedList(supported)}.`, 'invalid_value');
}

/**
 * The real API's refusal of a body parameter the endpoint (or the model) does not take, e.g.
 * {message: "Unknown parameter: 'response_format'.", type: 'invalid_request_error', param:
 * 'response_format', code: 'unknown_parameter'} (what gpt-image-1 answers to response_format).
 */
export function unknownParameter(param: string): Reply {
  return badParam(param, `Unknown parameter: '${param}'.`, 'unknown_parameter');
}

/** A JSON value of the wrong type: "Invalid type for 'n': expected an integer, but got a string instead." */
export function invalidType(param: string, expected: string, value: unknown): Reply {
  const got = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'string' ? 'a string' : typeof value === 'boolean' ? 'a boolean' : typeof value === 'object' ? 'an object' : Number.isInteger(value) ? 'an integer' : 'a decimal';
  return badParam(param, `Invalid type for '${param}': expected ${expected}, but got ${got} instead.`, 'invalid_type');
}

/** An integer out of range: code 'integer_above_max_value' / 'integer_below_min_value' like the API's. */
export function integerOutOfRange(param: string, value: number, min: number, max: number): Reply {
  return value > max
    ? badParam(param, `Invalid '${param}': integer above maximum value. Expected a value <= ${max}, but got ${value} instead.`, 'integer_above_max_value')
    : badParam(param, `Invalid '${param}': integer below minimum value. Expected a value >= ${min}, but got ${value} instead.`, 'integer_below_min_value');
}
