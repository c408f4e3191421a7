// Error bodies of the two flavors, and the request-model validation FastAPI runs before a handler.
// Source followed:
// - AUTOMATIC1111 modules/api/api.py api_middleware(): HTTPException and every other exception go
//   through handle_exception -> JSONResponse(status_code=vars(e).get('status_code', 500),
//   {error: type(e).__name__, detail, body, errors: str(e)}); the exception's headers are NOT
//   passed on (so its 401 has no WWW-Authenticate). str(HTTPException) is "<status>: <detail>"
//   (starlette >= 0.24; A1111 pins fastapi 0.94 / starlette 0.26). Request validation errors keep
//   FastAPI's own 422 handler (the more specific class wins): {detail: [{loc, msg, type}]} (pydantic v1).
// - Forge modules/api/api.py: `#api_middleware(self.app)  # FIXME` is commented out, so
//   HTTPExceptions answer FastAPI's default {detail: "..."} (headers kept); webui.py registers
//   _handle_exception only for Exception (500s): {error, detail, body, message: str(e)}.
//   Forge pins fastapi 0.104.1 + pydantic 2.8.2: 422 items are {type, loc, msg, input, url}.
// - Unknown paths: starlette's own 404 {detail: "Not Found"} in both (not the A1111 handler,
//   which is registered for fastapi's HTTPException subclass only).
import { json, type Reply } from './http-kit.js';
import type { A1111Flavor } from './a1111-catalog.js';

export function httpError(flavor: A1111Flavor, status: number, detail: string, headers: Record<string, string> = {}): Reply {
  if (flavor === 'forge') return json(status, { detail }, headers);
  return json(status, { error: 'HTTPException', detail, body: '', errors: `${status}: ${detail}` });
}

/** An unhandled Python exception (RuntimeError, KeyError, ...) turned into a 500. */
export function exceptionError(flavor: A1111Flavor, type: string, message: string): Reply {
  if (flavor === 'forge') return json(500, { error: type, detail: '', body: '', message });
  return json(500, { error: type, detail: '', body: '', errors: message });
}

export const notFound = (): Reply => json(404, { detail: 'Not Found' });
export const methodNotAllowed = (allow: string): Reply => json(405, { detail: 'Method Not Allowed' }, { allow });

export type FieldType = 'int' | 'float' | 'bool' | 'str' | 'dict' | 'list' | 'any';

/** One pydantic error item in the flavor's shape (v1 for A1111, v2 for Forge). */
export interface FieldIssue {
  loc: (string | number)[];
  v1: { msg: string; type: string };
  v2: { msg: string; type: string };
  input: unknown;
}

export function validationError(flavor: A1111Flavor, issues: FieldIssue[]): Reply {
  const detail = issues.map((issue) =>
    flavor === 'forge'
      ? { type: issue.v2.type, loc: issue.loc, msg: issue.v2.msg, input: issue.input, url: `https://errors.pydantic.dev/2.8/v/${issue.v2.type}` }
      : { loc: issue.loc, msg: issue.v1.msg, type: issue.v1.type },
  );
  return json(422, { detail });
}

/** The 422 FastAPI answers for a body that is not JSON (before any dependency, auth included). */
export function jsonDecodeIssue(error: unknown, text: string): FieldIssue {
  const message = error instanceof Error ? error.message : String(error);
  const position = Number(/position (\d+)/.exec(message)?.[1] ?? 0);
  return {
    loc: ['body', position],
    v1: { msg: `Expecting value: line 1 column ${position + 1} (char ${position})`, type: 'value_error.jsondecode' },
    v2: { msg: 'JSON decode error', type: 'json_invalid' },
    input: text.length > 0 ? {} : null,
  };
}

const TRUE = new Set(['1', 'on', 't', 'true', 'y', 'yes']);
const FALSE = new Set(['0', 'off', 'f', 'false', 'n', 'no']);

/** Coerces a value as a pydantic Optional[...] field would (lax mode); an issue when it cannot. */
export function coerce(name: string, type: FieldType, value: unknown): { value: unknown } | { issue: FieldIssue } {
  const loc = ['body', name];
  const fail = (v1: [string, string], v2: [string, string]) => ({ issue: { loc, v1: { msg: v1[0], type: v1[1] }, v2: { msg: v2[0], type: v2[1] }, input: value } });
  if (value === null || type === 'any') return { value };
  switch (type) {
    case 'int': {
      if (typeof value === 'boolean') return { value: value ? 1 : 0 };
      if (typeof value === 'number') {
        if (Number.isInteger(value)) return { value };
        return fail(['value is not a valid integer', 'type_error.integer'], ['Input should be a valid integer, got a number with a fractional part', 'int_from_float']);
      }
      if (typeof value === 'string' && /^\s*[-+]?\d+\s*$/.test(value)) return { value: Number(value) };
      if (typeof value === 'string') return fail(['value is not a valid integer', 'type_error.integer'], ['Input should be a valid integer, unable to parse string as an integer', 'int_parsing']);
      return fail(['value is not a valid integer', 'type_error.integer'], ['Input should be a valid integer', 'int_type']);
    }
    case 'float': {
      if (typeof value === 'boolean') return { value: value ? 1 : 0 };
      if (typeof value === 'number') return { value };
      if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return { value: Number(value) };
      if (typeof value === 'string') return fail(['value is not a valid float', 'type_error.float'], ['Input should be a valid number, unable to parse string as a number', 'float_parsing']);
      return fail(['value is not a valid float', 'type_error.float'], ['Input should be a valid number', 'float_type']);
    }
    case 'bool': {
      if (typeof value === 'boolean') return { value };
      if (value === 0 || value === 1) return { value: value === 1 };
      if (typeof value === 'string' && TRUE.has(value.toLowerCase())) return { value: true };
      if (typeof value === 'string' && FALSE.has(value.toLowerCase())) return { value: false };
      if (typeof value === 'string') return fail(['value could not be parsed to a boolean', 'type_error.bool'], ['Input should be a valid boolean, unable to interpret input', 'bool_parsing']);
      return fail(['value could not be parsed to a boolean', 'type_error.bool'], ['Input should be a valid boolean', 'bool_type']);
    }
    case 'str': {
      if (typeof value === 'string') return { value };
      // pydantic v1 turns numbers into strings; v2 refuses them (validateModel reports that for Forge).
      if (typeof value === 'number') return { value: String(value) };
      return fail(['str type expected', 'type_error.str'], ['Input should be a valid string', 'string_type']);
    }
    case 'dict':
      if (typeof value === 'object' && !Array.isArray(value)) return { value };
      return fail(['value is not a valid dict', 'type_error.dict'], ['Input should be a valid dictionary', 'dict_type']);
    case 'list':
      if (Array.isArray(value)) return { value };
      return fail(['value is not a valid list', 'type_error.list'], ['Input should be a valid list', 'list_type']);
  }
}

/**
 * Validates a JSON body against a field table; returns the coerced body (every declared field,
 * defaults filled in, like vars(request_model)) or the issues. Unknown keys are ignored, as
 * pydantic does by default.
 */
export function validateModel(
  flavor: A1111Flavor,
  fields: Record<string, [FieldType, unknown]>,
  body: unknown,
): { values: Record<string, unknown> } | { issues: FieldIssue[] } {
  if (body === undefined) {
    return { issues: [{ loc: ['body'], v1: { msg: 'field required', type: 'value_error.missing' }, v2: { msg: 'Field required', type: 'missing' }, input: null }] };
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return {
      issues: [{ loc: ['body'], v1: { msg: 'value is not a valid dict', type: 'type_error.dict' }, v2: { msg: 'Input should be a valid dictionary or object to extract fields from', type: 'model_attributes_type' }, input: body }],
    };
  }
  const given = body as Record<string, unknown>;
  const values: Record<string, unknown> = {};
  const issues: FieldIssue[] = [];
  for (const [name, [type, fallback]] of Object.entries(fields)) {
    if (!(name in given)) {
      values[name] = structuredClone(fallback);
      continue;
    }
    const result = coerce(name, type, given[name]);
    if ('issue' in result) issues.push(result.issue);
    else if (flavor === 'forge' && type === 'str' && typeof given[name] === 'number') {
      issues.push({ loc: ['body', name], v1: { msg: '', type: '' }, v2: { msg: 'Input should be a valid string', type: 'string_type' }, input: given[name] });
    } else values[name] = result.value;
  }
  return issues.length > 0 ? { issues } : { values };
}
