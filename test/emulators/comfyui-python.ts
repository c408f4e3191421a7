// Python semantics the ComfyUI emulator needs to word its answers as the real (Python) server
// does: str()/repr() of JSON values (validation `details` strings), int()/float() conversions and
// their exception messages (execution.py validate_inputs), json.dumps with Python's separators
// (PNG `prompt` text), and exceptions carrying a Python type name (full_type_name()).

/** A Python exception: `type` is what execution.py's full_type_name() gives ('KeyError', 'torch.OutOfMemoryError'). */
export class PyError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/** comfy.model_management.InterruptProcessingException. */
export class InterruptProcessing extends Error {
  constructor() {
    super('Processing interrupted');
  }
}

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Python's type name of a JSON value as json.loads gives it. */
export function pyTypeName(value: unknown): string {
  if (value === null || value === undefined) return 'NoneType';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (typeof value === 'string') return 'str';
  return Array.isArray(value) ? 'list' : 'dict';
}

/** repr() of a float. */
export function pyFloat(n: number): string {
  if (Number.isNaN(n)) return 'nan';
  if (!Number.isFinite(n)) return n > 0 ? 'inf' : '-inf';
  const abs = Math.abs(n);
  if (abs !== 0 && (abs >= 1e16 || abs < 1e-4)) {
    const [mantissa, exponent] = n.toExponential().split('e') as [string, string];
    const sign = exponent.startsWith('-') ? '-' : '+';
    return `${mantissa}e${sign}${exponent.replace(/^[+-]/, '').padStart(2, '0')}`;
  }
  return Number.isInteger(n) ? `${n}.0` : String(n);
}

function pyStringRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = '';
  for (const ch of s) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return quote + out + quote;
}

/** repr() of a JSON value (numbers that are integers print as Python ints unless `float`). */
export function pyRepr(value: unknown, float = false): string {
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return float || !Number.isInteger(value) ? pyFloat(value) : String(value);
  if (typeof value === 'string') return pyStringRepr(value);
  if (Array.isArray(value)) return `[${value.map((item) => pyRepr(item)).join(', ')}]`;
  const entries = Object.entries(value as Record<string, unknown>);
  return `{${entries.map(([key, item]) => `${pyStringRepr(key)}: ${pyRepr(item)}`).join(', ')}}`;
}

/** str() of a JSON value: strings as they are, everything else as repr(). */
export function pyStr(value: unknown, float = false): string {
  return typeof value === 'string' ? value : pyRepr(value, float);
}

/** Python int(value) on a json.loads value (raises PyError like CPython). */
export function pyInt(value: unknown): number {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number') return Math.trunc(value);
  if (typeof value === 'string') {
    const text = value.trim();
    if (/^[+-]?\d+(_\d+)*$/.test(text)) return Number(text.replace(/_/g, ''));
    throw new PyError('ValueError', `invalid literal for int() with base 10: ${pyRepr(value)}`);
  }
  throw new PyError('TypeError', `int() argument must be a string, a bytes-like object or a real number, not '${pyTypeName(value)}'`);
}

/** Python float(value) on a json.loads value. */
export function pyFloatOf(value: unknown): number {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number') return value;
  if (typeof value === 'string') {
    const text = value.trim().replace(/(\d)_(?=\d)/g, '$1');
    if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) return Number(text);
    if (/^[+-]?(inf|infinity)$/i.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
    if (/^[+-]?nan$/i.test(text)) return NaN;
    throw new PyError('ValueError', `could not convert string to float: ${pyRepr(value)}`);
  }
  throw new PyError('TypeError', `float() argument must be a string or a real number, not '${pyTypeName(value)}'`);
}

/** Python truthiness (bool(value)). */
export function pyBool(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

/** json.dumps(value) with its defaults: ', ' and ': ' separators, ensure_ascii. */
export function pyJsonDumps(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : pyFloat(value);
  if (typeof value === 'string') return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (Array.isArray(value)) return `[${value.map(pyJsonDumps).join(', ')}]`;
  return `{${Object.entries(value as Record<string, unknown>)
    .map(([key, item]) => `${pyJsonDumps(key)}: ${pyJsonDumps(item)}`)
    .join(', ')}}`;
}

/** uuid.uuid4() as str() and as .hex. */
export function uuid4(): string {
  return crypto.randomUUID();
}
export function uuid4Hex(): string {
  return crypto.randomUUID().replace(/-/g, '');
}

/** A fake traceback.format_tb() list for an exception raised in `file` at `func`. */
export function fakeTraceback(file: string, func: string, line: string): string[] {
  return [
    `  File "/opt/ComfyUI/execution.py", line 496, in execute\n    output_data, output_ui, has_subgraph, has_pending_tasks = await get_output_data(prompt_id, unique_id, obj, input_data_all, execution_block_cb=execution_block_cb, pre_execute_cb=pre_execute_cb, hidden_inputs=hidden_inputs)\n`,
    `  File "/opt/ComfyUI/${file}", line 1, in ${func}\n    ${line}\n`,
  ];
}
