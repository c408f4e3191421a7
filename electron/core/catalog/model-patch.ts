// How an owner edits a stored model record: JSON Merge Patch (RFC 7396). Objects merge
// recursively, `null` removes a field, arrays and scalars replace. The result is then checked as a
// whole record (catalog.put), as any record. The record schema says what a null may do: on an
// optional field (or a capability key the schema does not know) it removes it; on a required
// field it is refused, naming the field; on a required field whose value may be null
// (context_window.tokens and .chars) it is that value, as RFC 7396 cannot say "set to null".
import type { TSchema } from '@sinclair/typebox';
import { invalid } from '../errors.js';
import { ModelRecordSchema } from './model-record-schema.js';

export type JsonObject = Record<string, unknown>;

export const isJsonObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

interface ObjectSchema {
  properties?: Record<string, TSchema>;
  required?: string[];
}

const allowsNull = (schema: TSchema | undefined): boolean =>
  schema?.type === 'null' || (Array.isArray(schema?.anyOf) && (schema.anyOf as TSchema[]).some((s) => s.type === 'null'));

// A JSON "__proto__" key is an own property like any other, never the object's prototype.
function setField(target: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** RFC 7396 MergePatch(target, patch) over model record fields, with the schema's rule for nulls (above). */
export function mergeRecordPatch(target: unknown, patch: unknown, schema: TSchema | undefined = ModelRecordSchema, path = ''): unknown {
  if (!isJsonObject(patch)) return patch;
  const result: JsonObject = isJsonObject(target) ? { ...target } : {};
  const { properties, required } = (schema ?? {}) as ObjectSchema;
  for (const [key, value] of Object.entries(patch)) {
    const at = path ? `${path}.${key}` : key;
    const field = properties?.[key];
    if (value !== null) setField(result, key, mergeRecordPatch(result[key], value, field, at));
    else if (!required?.includes(key)) delete result[key];
    else if (allowsNull(field)) setField(result, key, null);
    else throw invalid(`Invalid model record: ${at} is required and cannot be removed (null removes optional fields only).`, at);
  }
  return result;
}
