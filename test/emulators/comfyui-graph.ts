// Prompt validation, ported from ComfyUI's execution.py (validate_prompt, validate_inputs: the
// same checks, error dicts {type, message, details, extra_info} worded the same, node_errors
// {errors, dependent_outputs, class_type}), comfy_execution/graph.py (get_input_info),
// comfy_execution/validation.py (validate_node_input) and graph_utils.py (is_link).
// Differences: Python iterates an input set (hash order); this iterates required then optional.
import type { InputSpec, NodeDef, NodeEnv } from './comfyui-nodes.js';
import { PyError, pyBool, pyFloatOf, pyInt, pyRepr, pyStr, pyTypeName } from './comfyui-python.js';

export interface PromptNode {
  class_type: string;
  inputs: Record<string, unknown>;
  [key: string]: unknown;
}
export type Prompt = Record<string, PromptNode>;

export interface ComfyError {
  type: string;
  message: string;
  details: string;
  extra_info: Record<string, unknown>;
}
export type NodeErrors = Record<string, { errors: ComfyError[]; dependent_outputs: string[]; class_type: string }>;
export type Validation =
  | { ok: true; outputs: string[]; nodeErrors: NodeErrors }
  | { ok: false; error: ComfyError; nodeErrors: NodeErrors };

/** A bug in the handler: server.py would answer aiohttp's plain 500. */
export class ServerCrash extends Error {}

export function isLink(value: unknown): value is [string, number] {
  return Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'number';
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function inputInfo(def: NodeDef, env: NodeEnv, name: string): { spec: InputSpec; category: 'required' | 'optional' } | undefined {
  const types = def.inputTypes(env);
  if (types.required[name]) return { spec: types.required[name], category: 'required' };
  if (types.optional?.[name]) return { spec: types.optional[name], category: 'optional' };
  return undefined;
}

function typeAccepts(def: NodeDef, name: string, received: string, inputType: unknown): boolean {
  const multi = def.multiInput?.[name];
  if (multi) return received === '*' || multi.includes(received);
  if (received === inputType) return true;
  if (typeof inputType !== 'string') return false;
  const want = new Set(inputType.split(',').map((t) => t.trim()));
  return received.split(',').some((t) => want.has(t.trim()));
}

/** prompt[o_id]['class_type'] then RETURN_TYPES[slot], raising what Python raises. */
function linkedType(prompt: Prompt, registry: Map<string, NodeDef>, link: unknown[]): string {
  const [from, slot] = link;
  if (Array.isArray(from) || isObject(from)) throw new PyError('TypeError', `unhashable type: '${pyTypeName(from)}'`);
  const node = typeof from === 'string' ? prompt[from] : undefined;
  if (!node) throw new PyError('KeyError', typeof from === 'string' ? pyRepr(from) : pyStr(from));
  const def = registry.get(node.class_type)!;
  const kind = def.v3 ? 'list' : 'tuple';
  if (typeof slot !== 'number' && typeof slot !== 'boolean') throw new PyError('TypeError', `${kind} indices must be integers or slices, not ${pyTypeName(slot)}`);
  if (!Number.isInteger(Number(slot))) throw new PyError('TypeError', `${kind} indices must be integers or slices, not float`);
  const index = Number(slot) < 0 ? def.returnTypes.length + Number(slot) : Number(slot);
  const type = def.returnTypes[index];
  if (type === undefined) throw new PyError('IndexError', `${kind} index out of range`);
  return type;
}

type Verdict = [boolean, ComfyError[], string];

function validateInputs(prompt: Prompt, id: string, registry: Map<string, NodeDef>, env: NodeEnv, validated: Map<string, Verdict>, stack = new Set<string>()): Verdict {
  const known = validated.get(id);
  if (known) return known;
  // A cycle recurses until Python's RecursionError, caught by the nearest caller's try.
  if (stack.has(id)) throw new PyError('RecursionError', 'maximum recursion depth exceeded');
  stack.add(id);
  const node = prompt[id]!;
  if (!('inputs' in node)) throw new PyError('KeyError', "'inputs'");
  if (!isObject(node.inputs)) throw new PyError('TypeError', `argument of type '${pyTypeName(node.inputs)}' is not iterable`);
  const inputs = node.inputs;
  const def = registry.get(node.class_type)!;
  const types = def.inputTypes(env);
  const validateArgs = def.validate?.args ?? [];
  const errors: ComfyError[] = [];
  let valid = true;
  const names = [...Object.keys(types.required), ...Object.keys(types.optional ?? {})];

  for (const x of names) {
    const { spec, category } = inputInfo(def, env, x)!;
    const inputType = spec[0];
    const extra = spec[1] ?? {};
    const info = [inputType, extra];
    if (!(x in inputs)) {
      if (category === 'required') errors.push({ type: 'required_input_missing', message: 'Required input is missing', details: x, extra_info: { input_name: x } });
      continue;
    }
    let val = inputs[x];
    if (Array.isArray(val)) {
      if (val.length !== 2) {
        errors.push({ type: 'bad_linked_input', message: 'Bad linked input, must be a length-2 list of [node_id, slot_index]', details: x, extra_info: { input_name: x, input_config: info, received_value: val } });
        continue;
      }
      const received = linkedType(prompt, registry, val);
      if (!validateArgs.includes('input_types') && !typeAccepts(def, x, received, inputType)) {
        errors.push({
          type: 'return_type_mismatch', message: 'Return type mismatch between linked nodes',
          details: `${x}, received_type(${received}) mismatch input_type(${pyStr(inputType)})`,
          extra_info: { input_name: x, input_config: info, received_type: received, linked_node: val },
        });
        continue;
      }
      const from = val[0] as string;
      try {
        if (!validateInputs(prompt, from, registry, env, validated, stack)[0]) valid = false;
      } catch (error) {
        valid = false;
        const ex = asPyError(error);
        validated.set(from, [false, [{
          type: 'exception_during_inner_validation', message: 'Exception when validating inner node', details: ex.message,
          extra_info: { input_name: x, input_config: info, exception_message: ex.message, exception_type: ex.type, traceback: traceback(ex), linked_node: val },
        }], from]);
      }
      continue;
    }
    const floatType = inputType === 'FLOAT';
    try {
      if (isObject(val) && '__value__' in val) inputs[x] = val = val.__value__;
      if (inputType === 'INT') inputs[x] = val = pyInt(val);
      if (inputType === 'FLOAT') inputs[x] = val = pyFloatOf(val);
      if (inputType === 'STRING') inputs[x] = val = pyStr(val);
      if (inputType === 'BOOLEAN') inputs[x] = val = pyBool(val);
    } catch (error) {
      const ex = asPyError(error);
      errors.push({
        type: 'invalid_input_type', message: `Failed to convert an input value to a ${pyStr(inputType)} value`, details: `${x}, ${pyStr(val)}, ${ex.message}`,
        extra_info: { input_name: x, input_config: info, received_value: val, exception_message: ex.message },
      });
      continue;
    }
    if (validateArgs.includes(x)) continue;
    const num = (v: unknown) => pyRepr(v, floatType);
    if (typeof extra.min === 'number' && typeof val === 'number' && val < extra.min) {
      errors.push({ type: 'value_smaller_than_min', message: `Value ${num(val)} smaller than min of ${num(extra.min)}`, details: x, extra_info: { input_name: x, input_config: info, received_value: val } });
      continue;
    }
    if (typeof extra.max === 'number' && typeof val === 'number' && val > extra.max) {
      errors.push({ type: 'value_bigger_than_max', message: `Value ${num(val)} bigger than max of ${num(extra.max)}`, details: x, extra_info: { input_name: x, input_config: info, received_value: val } });
      continue;
    }
    if (Array.isArray(inputType) && !inputType.some((option) => option === val)) {
      const long = inputType.length > 20;
      errors.push({
        type: 'value_not_in_list', message: 'Value not in list',
        details: `${x}: '${pyStr(val)}' not in ${long ? `(list of length ${inputType.length})` : pyRepr(inputType)}`,
        extra_info: { input_name: x, input_config: long ? null : info, received_value: val },
      });
    }
  }

  if (def.validate) {
    // get_input_data without outputs: constants as given, links as None; then VALIDATE_INPUTS(**filtered).
    const args: Record<string, unknown> = {};
    for (const name of validateArgs) if (name in inputs) args[name] = isLink(inputs[name]) ? null : inputs[name];
    const missing = validateArgs.filter((name) => !(name in args));
    if (missing.length > 0) {
      throw new PyError('TypeError', `${def.name}.VALIDATE_INPUTS() missing ${missing.length} required positional argument${missing.length > 1 ? 's' : ''}: ${missing.map((m) => `'${m}'`).join(' and ')}`);
    }
    const answer = def.validate.run(args, env);
    if (answer !== true) {
      for (const name of Object.keys(args)) {
        errors.push({ type: 'custom_validation_failed', message: 'Custom validation failed for node', details: `${name} - ${answer}`, extra_info: { input_name: name } });
      }
    }
  }

  const verdict: Verdict = errors.length > 0 || !valid ? [false, errors, id] : [true, [], id];
  stack.delete(id);
  validated.set(id, verdict);
  return verdict;
}

function asPyError(error: unknown): PyError {
  if (error instanceof PyError) return error;
  return new PyError('Exception', error instanceof Error ? error.message : String(error));
}

function traceback(ex: PyError): string[] {
  return [`  File "/opt/ComfyUI/execution.py", line 763, in validate_inputs\n    raise ${ex.type}(${pyRepr(ex.message)})\n`];
}

/** execution.py validate_prompt(prompt_id, prompt, partial_execution_list). */
export function validatePrompt(raw: unknown, partial: unknown, registry: Map<string, NodeDef>, env: NodeEnv): Validation {
  if (!isObject(raw)) throw new ServerCrash(`prompt is a ${pyTypeName(raw)}`);
  const prompt = raw as Prompt;
  const outputs: string[] = [];
  for (const [x, node] of Object.entries(prompt)) {
    if (!isObject(node)) throw new ServerCrash(`node ${x} is a ${pyTypeName(node)}`);
    if (!('class_type' in node)) {
      return { ok: false, nodeErrors: {}, error: { type: 'invalid_prompt', message: 'Cannot execute because a node is missing the class_type property.', details: `Node ID '#${x}'`, extra_info: {} } };
    }
    if (Array.isArray(node.class_type) || isObject(node.class_type)) throw new ServerCrash('unhashable class_type');
    const def = typeof node.class_type === 'string' ? registry.get(node.class_type) : undefined;
    if (!def) {
      return { ok: false, nodeErrors: {}, error: { type: 'invalid_prompt', message: `Cannot execute because node ${pyStr(node.class_type)} does not exist.`, details: `Node ID '#${x}'`, extra_info: {} } };
    }
    if (def.outputNode && (partial === null || partial === undefined || (Array.isArray(partial) && partial.includes(x)))) outputs.push(x);
  }
  if (outputs.length === 0) {
    return { ok: false, nodeErrors: {}, error: { type: 'prompt_no_outputs', message: 'Prompt has no outputs', details: '', extra_info: {} } };
  }

  const good: string[] = [];
  const failed: [string, ComfyError[]][] = [];
  const nodeErrors: NodeErrors = {};
  const validated = new Map<string, Verdict>();
  for (const o of outputs) {
    let verdict: Verdict;
    try {
      verdict = validateInputs(prompt, o, registry, env, validated);
    } catch (error) {
      const ex = asPyError(error);
      verdict = [false, [{ type: 'exception_during_validation', message: 'Exception when validating node', details: ex.message, extra_info: { exception_type: ex.type, traceback: traceback(ex) } }], o];
      validated.set(o, verdict);
    }
    if (verdict[0]) {
      good.push(o);
      continue;
    }
    failed.push([o, verdict[1]]);
    for (const [nodeId, [ok, reasons]] of validated) {
      if (ok || reasons.length === 0) continue;
      nodeErrors[nodeId] ??= { errors: reasons, dependent_outputs: [], class_type: prompt[nodeId]!.class_type };
      nodeErrors[nodeId].dependent_outputs.push(o);
    }
  }
  if (good.length === 0) {
    const details = failed.flatMap(([, errors]) => errors.map((e) => `${e.message}: ${e.details}`)).join('\n');
    return { ok: false, nodeErrors, error: { type: 'prompt_outputs_failed_validation', message: 'Prompt outputs failed validation', details, extra_info: {} } };
  }
  return { ok: true, outputs: good, nodeErrors };
}
