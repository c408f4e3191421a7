// A would-be model record checked whole: the TypeBox schema first, then the rules a schema
// cannot say (model-record-rules.ts).
import type { ModelRecord } from '../../../shared/api-types.js';
import { invalid } from '../errors.js';
import { firstProblem, type SchemaProblem } from '../schema-check.js';
import { hasUnsafeSegment, UNSAFE_SEGMENT } from './model-path.js';
import { recordRuleProblem } from './model-record-rules.js';
import { ModelRecordSchema, type ModelRecordInput } from './model-record-schema.js';

/** The first thing wrong with a would-be record (schema, then the rules a schema cannot say), or null. */
export async function modelRecordProblem(value: unknown): Promise<SchemaProblem | null> {
  const problem = await firstProblem(ModelRecordSchema, value);
  if (problem) return problem;
  const record = value as ModelRecordInput;
  if (hasUnsafeSegment(record.id)) return { param: 'id', message: UNSAFE_SEGMENT };
  return recordRuleProblem(record);
}

/** Throws 400 invalid_request naming the first offending field. */
export async function assertModelRecord(value: unknown): Promise<ModelRecord> {
  const problem = await modelRecordProblem(value);
  if (problem) throw invalid(`Invalid model record: ${problem.param ?? 'record'} ${lowerFirst(problem.message)}.`, problem.param);
  return value as ModelRecord;
}

// Only the first letter: the rest may quote a pattern or a value whose case matters.
const lowerFirst = (text: string): string => text.charAt(0).toLowerCase() + text.slice(1);
