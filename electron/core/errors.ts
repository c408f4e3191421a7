// The one catalog of gateway error codes and their HTTP statuses. Every failure a client can see
// is a GatewayError thrown from the core; the HTTP boundary (and the studio bridge) turn it into
// the standard body `{error: {message, type, code, param}}`.

export const ERROR_STATUS = {
  invalid_request: 400,
  upstream_bad_request: 400,
  missing_api_key: 401,
  invalid_api_key: 401,
  insufficient_balance: 402,
  not_found: 404,
  method_not_allowed: 405,
  video_not_ready: 409,
  request_too_large: 413,
  range_not_satisfiable: 416,
  reference_image_too_large: 413,
  rate_limit_exceeded: 429,
  upstream_rate_limited: 429,
  internal_error: 500,
  upstream_invalid_response: 502,
  upstream_unavailable: 503,
  storage_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** The error `type` of each code; the spec's example has type === code, so that is the default. */
const ERROR_TYPE: Partial<Record<ErrorCode, string>> = {
  // A whole body over the gateway limit is an invalid request that happens to be 413.
  request_too_large: 'invalid_request',
};

/** Codes whose wire `code` differs from the catalog key (413 for an oversized body is `invalid_request`). */
const WIRE_CODE: Partial<Record<ErrorCode, string>> = {
  request_too_large: 'invalid_request',
};

export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly param: string | null;
  readonly status: number;
  /** Extra response headers (Retry-After, rate-limit headers). */
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, param: string | null = null, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'GatewayError';
    this.code = code;
    this.param = param;
    this.status = ERROR_STATUS[code];
    this.headers = headers;
  }

  toBody(): { error: { message: string; type: string; code: string; param: string | null } } {
    const code = WIRE_CODE[this.code] ?? this.code;
    return { error: { message: this.message, type: ERROR_TYPE[this.code] ?? code, code, param: this.param } };
  }
}

export function isGatewayError(value: unknown): value is GatewayError {
  return value instanceof GatewayError;
}

export const invalid = (message: string, param: string | null = null): GatewayError =>
  new GatewayError('invalid_request', message, param);

/**
 * Runs `work` for a door whose field is named differently from the core's: a GatewayError that
 * names param `coreParam` is rethrown naming `doorParam` (same code, message and headers), so the
 * client hears the field it sent.
 */
export async function namingField<T>(work: Promise<T>, coreParam: string, doorParam: string): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof GatewayError && error.param === coreParam) {
      throw new GatewayError(error.code, error.message, doorParam, error.headers);
    }
    throw error;
  }
}
