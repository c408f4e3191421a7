// Placeholders in an owner's workflow or request template: `{{name}}` string values filled per
// request. A string that is exactly one placeholder becomes the typed value (a number for sizes,
// seeds and durations); a placeholder inside a longer string is replaced as text. Spaces inside
// the braces are allowed (`{{ prompt }}` is `{{prompt}}`): the check reads names with them
// trimmed, so the fill must too, or a checked placeholder would reach the engine as text.
import { invalid } from '../../errors.js';

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
/** A JSON object: a ComfyUI workflow in API format, or a cloud provider's input template. */
export type Workflow = { [key: string]: JsonValue };

export const IMAGE_PLACEHOLDERS = ['image_1', 'image_2', 'image_3'] as const;
export const WORKFLOW_PLACEHOLDERS = ['prompt', 'width', 'height', 'seed', ...IMAGE_PLACEHOLDERS, 'seconds', 'fps', 'frames'] as const;
export type Placeholder = (typeof WORKFLOW_PLACEHOLDERS)[number];
/** A cloud provider's input template: the workflow placeholders a request fills, and the size as a ratio. */
export const TEMPLATE_PLACEHOLDERS = ['prompt', 'width', 'height', 'seed', ...IMAGE_PLACEHOLDERS, 'seconds', 'aspect_ratio', 'ratio'] as const;

export type PlaceholderValues = Partial<Record<string, string | number>>;

// The spaces EXACT and INSIDE skip are the ones LOOSE trims (\s), so every name the check
// accepts is one the fill replaces.
const EXACT = /^\{\{\s*([a-z0-9_]+)\s*\}\}$/;
const INSIDE = /\{\{\s*([a-z0-9_]+)\s*\}\}/g;
/** Anything that looks like a placeholder, to catch typos ({{Prompt}}, {{ promt }}). */
const LOOSE = /\{\{\s*([^{}]*?)\s*\}\}/g;

/** The placeholder names a template uses (each once), in the order met. */
export function placeholdersIn(template: JsonValue): string[] {
  const found = new Set<string>();
  walkStrings(template, (text) => {
    for (const match of text.matchAll(LOOSE)) found.add(match[1]!);
  });
  return [...found];
}

/** The name when `text` is exactly one placeholder (`{{image_1}}`, `{{ image_1 }}`), else null. */
export function wholePlaceholder(text: string): string | null {
  return EXACT.exec(text)?.[1] ?? null;
}

/**
 * Refuses a template that names a placeholder outside `known` (a typo would be sent as text and
 * never filled). `param` names the field of the refusal.
 */
export function checkPlaceholders(template: JsonValue, known: readonly string[], param: string): string[] {
  const used = placeholdersIn(template);
  const unknown = used.filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    throw invalid(`The ${param} uses ${unknown.map((n) => `{{${n}}}`).join(', ')}, which ${unknown.length === 1 ? 'is not a placeholder' : 'are not placeholders'}; the placeholders are ${known.map((n) => `{{${n}}}`).join(', ')}.`, param);
  }
  return used;
}

/** A copy of `template` with every placeholder filled; one with no value is an error of the caller's. */
export function fillTemplate<T extends JsonValue>(template: T, values: PlaceholderValues): T {
  return fill(template, values) as T;
}

function fill(value: JsonValue, values: PlaceholderValues): JsonValue {
  if (typeof value === 'string') return fillString(value, values);
  if (Array.isArray(value)) return value.map((item) => fill(item, values));
  if (value !== null && typeof value === 'object') {
    const out: { [key: string]: JsonValue } = {};
    for (const [key, item] of Object.entries(value)) out[key] = fill(item, values);
    return out;
  }
  return value;
}

function fillString(text: string, values: PlaceholderValues): JsonValue {
  const exact = wholePlaceholder(text);
  if (exact !== null) return valueOf(exact, values);
  return text.replace(INSIDE, (_, name: string) => String(valueOf(name, values)));
}

function valueOf(name: string, values: PlaceholderValues): string | number {
  const value = values[name];
  if (value === undefined) throw new Error(`placeholder {{${name}}} has no value`);
  return value;
}

function walkStrings(value: JsonValue, visit: (text: string) => void): void {
  if (typeof value === 'string') visit(value);
  else if (Array.isArray(value)) for (const item of value) walkStrings(item, visit);
  else if (value !== null && typeof value === 'object') for (const item of Object.values(value)) walkStrings(item, visit);
}

/**
 * The size as the ratios cloud models name: `aspect_ratio` reduced (1280x720 -> "16:9") and
 * `ratio` as given ("1280:720", Runway's form).
 */
export function sizeRatios(width: number, height: number): { aspect_ratio: string; ratio: string } {
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  const d = gcd(width, height) || 1;
  return { aspect_ratio: `${width / d}:${height / d}`, ratio: `${width}:${height}` };
}

/** A fresh seed per request, in the range every engine takes (ComfyUI and A1111 use 64-bit, sd.cpp 32-bit). */
export function randomSeed(): number {
  return Math.floor(Math.random() * 0x7fffffff);
}
