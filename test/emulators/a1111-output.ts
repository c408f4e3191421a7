// What a generation hands back: output sizes, seeds, PNGs with their "parameters" text, the
// infotext and Processed.js() (the `info` JSON string).
// Source followed: modules/processing.py (latent of height // 8 x width // 8, so outputs are
// floor(size / 8) * 8; hires fix target from hr_scale / hr_resize_x / hr_resize_y with
// truncate_x/y; seeds: seed -1 -> random, all_seeds = seed + i unless subseed_strength;
// create_infotext; Processed.js() -> json.dumps of {prompt, all_prompts, ..., infotexts, version};
// images.image_grid rows for the grid that save_images + >= 2 images prepends),
// modules/infotext_utils.py quote(), modules/sd_samplers_common.py setup_img2img_steps.
import { encodePng } from './png.js';
import { withPngText } from './png-text.js';

/** A float for pyDumps / pyStr: Python writes 7.0, not 7. */
export class PyFloat {
  constructor(readonly value: number) {}
}

export function pyStr(value: unknown): string {
  if (value instanceof PyFloat) return Number.isInteger(value.value) ? value.value.toFixed(1) : String(value.value);
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  return String(value);
}

/** json.dumps(obj) with Python's defaults: ", " / ": " separators, ensure_ascii, floats as 7.0. */
export function pyDumps(value: unknown): string {
  if (value instanceof PyFloat) return Number.isInteger(value.value) ? value.value.toFixed(1) : JSON.stringify(value.value);
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (Array.isArray(value)) return `[${value.map(pyDumps).join(', ')}]`;
  if (typeof value === 'object') return `{${Object.entries(value).map(([k, v]) => `${pyDumps(k)}: ${pyDumps(v)}`).join(', ')}}`;
  return JSON.stringify(value);
}

/** infotext_utils.quote: values with ',', ':' or a newline are JSON-quoted. */
function quote(text: string): string {
  return /[,:\n]/.test(text) ? JSON.stringify(text) : text;
}

/** floor(size / 8) * 8: what decoding a height // 8 x width // 8 latent gives back. */
export const latentSize = (n: number) => Math.max(8, Math.floor(n / 8) * 8);

/** Hires-fix output size (calculate_target_resolution, then the truncation of the latent). */
export function hiresSize(width: number, height: number, scale: number, resizeX: number, resizeY: number): { width: number; height: number } {
  let toX: number;
  let toY: number;
  let truncX = 0;
  let truncY = 0;
  if (resizeX === 0 && resizeY === 0) {
    toX = Math.trunc(width * scale);
    toY = Math.trunc(height * scale);
  } else if (resizeY === 0) {
    toX = resizeX;
    toY = Math.floor((resizeX * height) / width);
  } else if (resizeX === 0) {
    toX = Math.floor((resizeY * width) / height);
    toY = resizeY;
  } else {
    if (width / height < resizeX / resizeY) {
      toX = resizeX;
      toY = Math.floor((resizeX * height) / width);
    } else {
      toX = Math.floor((resizeY * width) / height);
      toY = resizeY;
    }
    truncX = Math.floor((toX - resizeX) / 8);
    truncY = Math.floor((toY - resizeY) / 8);
  }
  return { width: Math.max(8, (Math.floor(toX / 8) - truncX) * 8), height: Math.max(8, (Math.floor(toY / 8) - truncY) * 8) };
}

/** Sampler steps of an img2img pass (setup_img2img_steps): t_enc + 1. */
export function img2imgSamplingSteps(steps: number, denoisingStrength: number, fixSteps: boolean): number {
  if (fixSteps) return steps;
  return Math.trunc(Math.min(denoisingStrength, 0.999) * steps) + 1;
}

/** A seeded generator standing in for random.randrange: deterministic per emulator. */
export function seedSource(start = 20240601): () => number {
  let s = start >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s % 4294967295;
  };
}

export interface InfotextInput {
  prompt: string;
  negativePrompt: string;
  steps: number;
  sampler: string;
  scheduler: string;
  cfgScale: number;
  seed: number;
  width: number;
  height: number;
  modelHash: string | null;
  modelName: string;
  extra: [string, unknown][];
  version: string;
}

export function infotext(input: InfotextInput): string {
  const params: [string, unknown][] = [
    ['Steps', input.steps],
    ['Sampler', input.sampler],
    ['Schedule type', input.scheduler],
    ['CFG scale', new PyFloat(input.cfgScale)],
    ['Seed', input.seed],
    ['Size', `${input.width}x${input.height}`],
    ['Model hash', input.modelHash],
    ['Model', input.modelName],
    ...input.extra,
    ['Version', input.version],
  ];
  const text = params
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => (k === v ? k : `${k}: ${quote(pyStr(v))}`))
    .join(', ');
  const negative = input.negativePrompt ? `\nNegative prompt: ${input.negativePrompt}` : '';
  return `${input.prompt}${negative}\n${text}`.trim();
}

/** One output PNG: the gradient of encodePng, tinted per seed, carrying its infotext. */
export function outputPng(width: number, height: number, seed: number, tint: number, text: string): Buffer {
  const png = encodePng(width, height, { seed: (seed * 37 + tint) & 0xff });
  return withPngText(png, 'parameters', text);
}

/** images.image_grid with the defaults n_rows = -1, grid_prevent_empty_spots = False: rows = round(sqrt(n)). */
export function gridSize(count: number, width: number, height: number): { width: number; height: number } {
  const rows = Math.min(count, Math.max(1, Math.round(Math.sqrt(count))));
  const cols = Math.ceil(count / rows);
  return { width: cols * width, height: rows * height };
}
