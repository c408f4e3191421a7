// ComfyUI's refusals and failures in the gateway's words. POST /prompt answers 400 with
// {error: {type, message, details, extra_info}, node_errors: {id: {errors: [...], class_type}}}
// (execution.py validate_prompt); a run that fails records execution_error (node_id, node_type,
// exception_type, exception_message, traceback) or execution_interrupted in its history status.
// Only short, cleaned pieces of those reach a client: the node, the input, the engine's one-line
// reason; never the body, the traceback or the input values it echoes at length.
import { GatewayError } from '../../errors.js';
import { isObject } from './comfyui-checks.js';

/** The longest piece of engine text quoted in a message. */
const QUOTED_CHARS = 160;

/** Engine text made safe to quote: no control characters (line breaks, escapes), one line, capped. */
export function cleanText(value: unknown, max = QUOTED_CHARS): string {
  if (typeof value !== 'string' && typeof value !== 'number') return '';
  const text = String(value).replace(/\p{Cc}+/gu, ' ').replace(/\s+/g, ' ').trim();
  return text.length > max ? `${text.slice(0, max - 1).trimEnd()}\u2026` : text;
}

const nodeName = (id: string, classType: unknown): string => {
  const type = cleanText(classType, 80);
  return type ? `node ${cleanText(id, 40)} (${type})` : `node ${cleanText(id, 40)}`;
};

const bad = (message: string): GatewayError => new GatewayError('upstream_bad_request', message);

/** A POST /prompt 400: the first problem named (node, input, reason), and how many more there are. */
export function refusedPrompt(body: unknown): GatewayError {
  const root = isObject(body) ? body : {};
  const nodeErrors = isObject(root.node_errors) ? root.node_errors : {};
  const problems: string[] = [];
  for (const [id, entry] of Object.entries(nodeErrors)) {
    if (!isObject(entry)) continue;
    const errors = Array.isArray(entry.errors) ? entry.errors.filter(isObject) : [];
    for (const error of errors.length > 0 ? errors : [{}]) problems.push(describeNodeError(id, entry.class_type, error));
  }
  if (problems.length > 0) {
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length === 2 ? '' : 's'})` : '';
    return bad(`ComfyUI refused the workflow: ${problems[0]}${more}.`);
  }
  const error = isObject(root.error) ? root.error : {};
  const type = cleanText(error.type, 60);
  if (type === 'prompt_no_outputs') return bad('ComfyUI refused the workflow: it has no output node the engine knows (Prompt has no outputs).');
  const reason = [cleanText(error.message), cleanText(error.details)].filter(Boolean).join(': ');
  if (type === 'invalid_prompt') return bad(`ComfyUI refused the workflow as invalid: ${reason || 'no reason given'}.`);
  return bad(`ComfyUI refused the workflow${reason ? `: ${reason}` : ''}.`);
}

/** One validation error of one node: `node 4 (CheckpointLoaderSimple) input "ckpt_name": Value not in list (...)`. */
function describeNodeError(id: string, classType: unknown, error: { [key: string]: unknown }): string {
  const extra = isObject(error.extra_info) ? error.extra_info : {};
  const input = cleanText(extra.input_name, 60);
  const message = cleanText(error.message, 100);
  const details = cleanText(error.details);
  // Details often just repeat the input name; they are quoted only when they add something.
  const reason = details && details !== input ? `${message || 'refused'} (${details})` : message || 'refused';
  return `${nodeName(id, classType)}${input ? ` input "${input}"` : ''}: ${reason}`;
}

/** What a failed run's execution_error says, in short: the node and the type of the exception. */
export function executionFailure(data: { [key: string]: unknown }): string {
  const node = nodeName(typeof data.node_id === 'string' ? data.node_id : '?', data.node_type);
  const exception = cleanText(data.exception_type, 100);
  return `ComfyUI could not run the workflow: ${node} failed${exception ? ` with ${exception}` : ''}.`;
}

export const INTERRUPTED = 'ComfyUI interrupted the run before it finished.';
export const LOST = 'ComfyUI no longer knows this job (the engine was restarted or its queue cleared).';

/** A run that ended without an output (an execution error, an interruption): 503, the engine's trouble. */
export const runFailed = (message: string): GatewayError => new GatewayError('upstream_unavailable', message);
