// One error type for every failed studio call, whatever the transport, so the UI can always show
// "code: message" (e.g. "insufficient_balance: Insufficient balance: ...").
import type { StudioErrorBody } from '../../../shared/studio-contract';

export class StudioError extends Error {
  readonly code: string;
  readonly param: string | null;
  /** HTTP status when the error came over HTTP; null over IPC or for local failures. */
  readonly status: number | null;

  constructor(code: string, message: string, param: string | null = null, status: number | null = null) {
    super(message);
    this.name = 'StudioError';
    this.code = code;
    this.param = param;
    this.status = status;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** Reads `{error: {message, code, param}}`; null when the body is not the standard error body. */
export function parseErrorBody(body: unknown): StudioErrorBody['error'] | null {
  if (!isRecord(body) || !isRecord(body.error)) return null;
  const { message, type, code, param } = body.error;
  if (typeof code !== 'string' || typeof message !== 'string') return null;
  return {
    message,
    code,
    type: typeof type === 'string' ? type : code,
    param: typeof param === 'string' ? param : null,
  };
}

// Electron prefixes errors thrown in ipcMain.handle with this; it is noise for the user.
const IPC_PREFIX = /^Error invoking remote method '[^']+': (?:\w*Error: )?/;

/** Any thrown value -> StudioError (keeps code/param from IPC errors, which carry them as props). */
export function toStudioError(error: unknown): StudioError {
  if (error instanceof StudioError) return error;
  if (isRecord(error)) {
    const message = typeof error.message === 'string' ? error.message.replace(IPC_PREFIX, '') : String(error);
    const code = typeof error.code === 'string' ? error.code : 'internal_error';
    const param = typeof error.param === 'string' ? error.param : null;
    const status = typeof error.status === 'number' ? error.status : null;
    return new StudioError(code, message, param, status);
  }
  return new StudioError('internal_error', String(error));
}

/** The readable form every view shows: "code: message". */
export function formatError(error: unknown): string {
  const e = toStudioError(error);
  return `${e.code}: ${e.message}`;
}
