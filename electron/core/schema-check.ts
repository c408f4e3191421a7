// First-error checks of TypeBox schemas. The checker module is large, so it loads on first use:
// the gateway's cold start does not pay for it.
import type { TSchema } from '@sinclair/typebox';

type ValueModule = typeof import('@sinclair/typebox/value');
let valueModule: Promise<ValueModule> | null = null;

export interface SchemaProblem {
  /** Dotted path of the offending field, or null for the whole value. */
  param: string | null;
  message: string;
}

/**
 * A schema library's JSON pointer (RFC 6901: "/a~1b/~0") as the dotted field name a client wrote
 * ("a/b.~"): each segment unescaped, ~1 before ~0, so a name with "/" or "~" comes back as sent.
 * The empty pointer (the whole value) is "".
 */
export function pointerToParam(pointer: string): string {
  if (pointer === '') return '';
  return pointer
    .replace(/^\//, '')
    .split('/')
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))
    .join('.');
}

export async function firstProblem(schema: TSchema, value: unknown): Promise<SchemaProblem | null> {
  const { Value, ValueErrorType } = await (valueModule ??= import('@sinclair/typebox/value'));
  const first = Value.Errors(schema, value).First();
  if (!first) return null;
  // A schema may say its rule in words (a pattern's regex is no message for a person).
  const custom = (first.schema as { errorMessage?: unknown }).errorMessage;
  // TypeBox's "Expected string length greater or equal to 1", in a person's words.
  const empty = first.type === ValueErrorType.StringMinLength && (first.schema as { minLength?: unknown }).minLength === 1;
  const message = typeof custom === 'string' ? custom : empty ? 'must not be empty' : first.message;
  return { param: pointerToParam(first.path) || null, message };
}
