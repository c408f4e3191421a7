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

export async function firstProblem(schema: TSchema, value: unknown): Promise<SchemaProblem | null> {
  const { Value, ValueErrorType } = await (valueModule ??= import('@sinclair/typebox/value'));
  const first = Value.Errors(schema, value).First();
  if (!first) return null;
  // A schema may say its rule in words (a pattern's regex is no message for a person).
  const custom = (first.schema as { errorMessage?: unknown }).errorMessage;
  // TypeBox's "Expected string length greater or equal to 1", in a person's words.
  const empty = first.type === ValueErrorType.StringMinLength && (first.schema as { minLength?: unknown }).minLength === 1;
  const message = typeof custom === 'string' ? custom : empty ? 'must not be empty' : first.message;
  return { param: first.path.replace(/^\//, '').replaceAll('/', '.') || null, message };
}
