// Input schemas of the fal models the emulator models, checked at submit like fal's (pydantic /
// FastAPI) apps check theirs: an invalid input is a 422 {detail: [{loc: ['body', field, ...],
// msg, type, input, ctx?}]} (https://fal.ai/docs/documentation/model-apis/errors), with
// pydantic v2's error types and messages ('missing' "Field required", 'enum' "Input should be
// '5' or '10'", 'string_type', 'int_type', 'less_than_equal', ...).
// Schemas, from each model's API page (fal.ai/models/<id>/api, "Input Schema"):
//  - fal-ai/kling-video/<version>/<tier>/text-to-video: prompt (required), duration '5' | '10',
//    aspect_ratio '16:9' | '9:16' | '1:1', negative_prompt, cfg_scale 0..1;
//  - fal-ai/kling-video/<version>/<tier>/image-to-video: prompt and image_url (required),
//    duration '5' | '10', negative_prompt, cfg_scale 0..1;
//  - fal-ai/flux/dev: prompt (required), image_size (a preset name or {width, height}, each
//    1..14142), num_inference_steps 1..50, seed, guidance_scale 1..20, num_images 1..4,
//    enable_safety_checker, output_format 'jpeg' | 'png', sync_mode, acceleration.
// Fields a schema does not name are ignored, as pydantic models do by default (fal's model pages
// list no refusal of extra fields); models with no schema here take any JSON object.
// Where fal reports it (guess): at submit; fal's queue may instead accept the request and answer
// the 422 at its response_url. Either way it is the model refusing the input (a 4xx model error).

export interface FalValidationError {
  loc: (string | number)[];
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

type FieldCheck = (value: unknown, loc: (string | number)[]) => FalValidationError[];

interface ModelSchema {
  required: readonly string[];
  fields: Record<string, FieldCheck>;
}

function enumText(values: readonly string[]): string {
  const quoted = values.map((value) => `'${value}'`);
  return quoted.length <= 1 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
}

const oneOf = (values: readonly string[]): FieldCheck => (value, loc) =>
  typeof value === 'string' && values.includes(value) ? [] : [{ loc, msg: `Input should be ${enumText(values)}`, type: 'enum', input: value, ctx: { expected: enumText(values) } }];

const text: FieldCheck = (value, loc) => (typeof value === 'string' ? [] : [{ loc, msg: 'Input should be a valid string', type: 'string_type', input: value }]);

const flag: FieldCheck = (value, loc) => (typeof value === 'boolean' ? [] : [{ loc, msg: 'Input should be a valid boolean', type: 'bool_type', input: value }]);

/** A number (integer: whole) within [min, max] (pydantic's ge / le; `gt` for an exclusive minimum). */
function numberIn(options: { integer?: boolean; min?: number; gt?: number; max?: number }): FieldCheck {
  return (value, loc) => {
    // Lax mode, like pydantic's: a numeric string is taken.
    const parsed = typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value)) ? Number(value) : value;
    if (typeof parsed !== 'number' || !Number.isFinite(parsed)) {
      return [options.integer ? { loc, msg: 'Input should be a valid integer', type: 'int_type', input: value } : { loc, msg: 'Input should be a valid number', type: 'float_type', input: value }];
    }
    if (options.integer && !Number.isInteger(parsed)) {
      return [{ loc, msg: 'Input should be a valid integer, got a number with a fractional part', type: 'int_from_float', input: value }];
    }
    if (options.gt !== undefined && !(parsed > options.gt)) return [{ loc, msg: `Input should be greater than ${options.gt}`, type: 'greater_than', input: value, ctx: { gt: options.gt } }];
    if (options.min !== undefined && parsed < options.min) {
      return [{ loc, msg: `Input should be greater than or equal to ${options.min}`, type: 'greater_than_equal', input: value, ctx: { ge: options.min } }];
    }
    if (options.max !== undefined && parsed > options.max) {
      return [{ loc, msg: `Input should be less than or equal to ${options.max}`, type: 'less_than_equal', input: value, ctx: { le: options.max } }];
    }
    return [];
  };
}

export const FLUX_IMAGE_SIZES = ['square_hd', 'square', 'portrait_4_3', 'portrait_16_9', 'landscape_4_3', 'landscape_16_9'] as const;
const MAX_SIDE = 14142;

/** ImageSize | ImageSizeEnum: a preset name, or {width, height} with each side in 1..14142. */
const imageSize: FieldCheck = (value, loc) => {
  if (typeof value === 'string') return oneOf(FLUX_IMAGE_SIZES)(value, loc);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return [{ loc, msg: 'Input should be a valid dictionary or instance of ImageSize', type: 'model_type', input: value, ctx: { class_name: 'ImageSize' } }];
  }
  const side = numberIn({ integer: true, gt: 0, max: MAX_SIDE });
  const size = value as Record<string, unknown>;
  return (['width', 'height'] as const).flatMap((name) => (size[name] === undefined ? [] : side(size[name], [...loc, name])));
};

const KLING_DURATIONS = ['5', '10'] as const;
const KLING_ASPECTS = ['16:9', '9:16', '1:1'] as const;

const KLING_TEXT_TO_VIDEO: ModelSchema = {
  required: ['prompt'],
  fields: { prompt: text, duration: oneOf(KLING_DURATIONS), aspect_ratio: oneOf(KLING_ASPECTS), negative_prompt: text, cfg_scale: numberIn({ min: 0, max: 1 }) },
};
const KLING_IMAGE_TO_VIDEO: ModelSchema = {
  required: ['prompt', 'image_url'],
  fields: { prompt: text, image_url: text, duration: oneOf(KLING_DURATIONS), negative_prompt: text, cfg_scale: numberIn({ min: 0, max: 1 }) },
};
const FLUX_DEV: ModelSchema = {
  required: ['prompt'],
  fields: {
    prompt: text,
    image_size: imageSize,
    num_inference_steps: numberIn({ integer: true, min: 1, max: 50 }),
    seed: numberIn({ integer: true }),
    guidance_scale: numberIn({ min: 1, max: 20 }),
    num_images: numberIn({ integer: true, min: 1, max: 4 }),
    enable_safety_checker: flag,
    output_format: oneOf(['jpeg', 'png']),
    sync_mode: flag,
    acceleration: oneOf(['none', 'regular', 'high']),
  },
};

/** The schema of a model path, or undefined when the emulator does not model that model. */
export function schemaFor(modelPath: string): ModelSchema | undefined {
  if (/^fal-ai\/kling-video\/[^/]+\/[^/]+\/text-to-video$/.test(modelPath)) return KLING_TEXT_TO_VIDEO;
  if (/^fal-ai\/kling-video\/[^/]+\/[^/]+\/image-to-video$/.test(modelPath)) return KLING_IMAGE_TO_VIDEO;
  if (modelPath === 'fal-ai/flux/dev') return FLUX_DEV;
  return undefined;
}

/** The validation errors of `input` for the model (empty: valid, or a model with no schema here). */
export function validateInput(modelPath: string, input: Record<string, unknown>): FalValidationError[] {
  const schema = schemaFor(modelPath);
  if (!schema) return [];
  const errors: FalValidationError[] = [];
  for (const name of schema.required) {
    if (input[name] === undefined || input[name] === null) errors.push({ loc: ['body', name], msg: 'Field required', type: 'missing', input });
  }
  for (const [name, checkField] of Object.entries(schema.fields)) {
    const value = input[name];
    if (value === undefined || (value === null && !schema.required.includes(name))) continue;
    if (value === null) continue; // already reported as missing
    errors.push(...checkField(value, ['body', name]));
  }
  return errors;
}
