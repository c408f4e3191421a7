// The models the Replicate emulator runs, and the check of a prediction's input against them.
// Inputs are a subset of what each model's API page lists (the fields the gateway's templates
// use, with their types and choices as those pages give them); Cog models ignore inputs they do
// not declare, and so does the emulator. A failed check is Replicate's 422 problem with
// invalid_fields [{type, field: "input.<name>", description}] (replicate.com/changelog/
// 2024-05-01-improved-validation-for-api-prediction-payloads; the types other than "required"
// are the emulator's own names).

export interface InputSpec {
  type: 'string' | 'integer' | 'number' | 'boolean' | 'array';
  /** A file input: a URL (data:, or a file of the Files API) of an image. */
  uri?: boolean;
  required?: boolean;
  choices?: readonly (string | number)[];
  minimum?: number;
  maximum?: number;
  maxItems?: number;
}

export interface ModelSpec {
  owner: string;
  name: string;
  /** Official models run at POST /v1/models/{owner}/{name}/predictions and report version "hidden". */
  official: boolean;
  /** The 64-character id of its (latest) version. */
  version: string;
  kind: 'image' | 'video';
  /** Whether the output is one URL or an array of them. */
  output: 'string' | 'array';
  inputs: Record<string, InputSpec>;
}

export interface InvalidField {
  type: string;
  field: string;
  description: string;
}

const RATIOS = ['1:1', '16:9', '21:9', '3:2', '2:3', '4:5', '5:4', '3:4', '4:3', '9:16', '9:21'] as const;
const version = (seed: string): string => Buffer.from(seed.padEnd(32, '.')).toString('hex').slice(0, 64);

export const REPLICATE_MODELS: readonly ModelSpec[] = [
  {
    owner: 'black-forest-labs', name: 'flux-schnell', official: true, version: version('flux-schnell'), kind: 'image', output: 'array',
    inputs: {
      prompt: { type: 'string', required: true }, aspect_ratio: { type: 'string', choices: RATIOS }, seed: { type: 'integer' },
      num_outputs: { type: 'integer', minimum: 1, maximum: 4 }, output_format: { type: 'string', choices: ['webp', 'jpg', 'png'] }, go_fast: { type: 'boolean' },
    },
  },
  {
    owner: 'black-forest-labs', name: 'flux-dev', official: true, version: version('flux-dev'), kind: 'image', output: 'array',
    inputs: { prompt: { type: 'string', required: true }, aspect_ratio: { type: 'string', choices: RATIOS }, seed: { type: 'integer' }, image: { type: 'string', uri: true }, prompt_strength: { type: 'number', minimum: 0, maximum: 1 } },
  },
  {
    owner: 'black-forest-labs', name: 'flux-1.1-pro', official: true, version: version('flux-1.1-pro'), kind: 'image', output: 'string',
    inputs: { prompt: { type: 'string', required: true }, aspect_ratio: { type: 'string', choices: [...RATIOS, 'custom'] }, seed: { type: 'integer' }, image_prompt: { type: 'string', uri: true }, width: { type: 'integer', minimum: 256, maximum: 1440 }, height: { type: 'integer', minimum: 256, maximum: 1440 } },
  },
  {
    owner: 'black-forest-labs', name: 'flux-kontext-pro', official: true, version: version('flux-kontext-pro'), kind: 'image', output: 'string',
    inputs: { prompt: { type: 'string', required: true }, input_image: { type: 'string', uri: true }, aspect_ratio: { type: 'string', choices: ['match_input_image', ...RATIOS] }, seed: { type: 'integer' } },
  },
  {
    owner: 'bytedance', name: 'seedream-4', official: true, version: version('seedream-4'), kind: 'image', output: 'array',
    inputs: { prompt: { type: 'string', required: true }, image_input: { type: 'array', uri: true, maxItems: 10 }, aspect_ratio: { type: 'string', choices: ['match_input_image', ...RATIOS] }, size: { type: 'string', choices: ['1K', '2K', '4K', 'custom'] } },
  },
  {
    owner: 'google', name: 'nano-banana', official: true, version: version('nano-banana'), kind: 'image', output: 'string',
    inputs: { prompt: { type: 'string', required: true }, image_input: { type: 'array', uri: true, maxItems: 3 }, output_format: { type: 'string', choices: ['jpg', 'png'] } },
  },
  {
    owner: 'kwaivgi', name: 'kling-v2.1', official: true, version: version('kling-v2.1'), kind: 'video', output: 'string',
    inputs: { prompt: { type: 'string', required: true }, start_image: { type: 'string', uri: true, required: true }, duration: { type: 'integer', choices: [5, 10] }, mode: { type: 'string', choices: ['standard', 'pro'] }, negative_prompt: { type: 'string' } },
  },
  {
    owner: 'google', name: 'veo-3', official: true, version: version('veo-3'), kind: 'video', output: 'string',
    inputs: { prompt: { type: 'string', required: true }, aspect_ratio: { type: 'string', choices: ['16:9', '9:16'] }, image: { type: 'string', uri: true }, duration: { type: 'integer', choices: [4, 6, 8] }, resolution: { type: 'string', choices: ['720p', '1080p'] }, seed: { type: 'integer' } },
  },
  {
    owner: 'minimax', name: 'hailuo-02', official: true, version: version('hailuo-02'), kind: 'video', output: 'string',
    inputs: { prompt: { type: 'string', required: true }, first_frame_image: { type: 'string', uri: true }, duration: { type: 'integer', choices: [6, 10] }, resolution: { type: 'string', choices: ['512p', '768p', '1080p'] }, prompt_optimizer: { type: 'boolean' } },
  },
  {
    owner: 'bytedance', name: 'seedance-1-pro', official: true, version: version('seedance-1-pro'), kind: 'video', output: 'string',
    inputs: {
      prompt: { type: 'string', required: true }, image: { type: 'string', uri: true }, duration: { type: 'integer', minimum: 2, maximum: 12 },
      aspect_ratio: { type: 'string', choices: ['16:9', '4:3', '1:1', '3:4', '9:16', '21:9', '9:21'] }, resolution: { type: 'string', choices: ['480p', '720p', '1080p'] }, seed: { type: 'integer' },
    },
  },
  {
    // A community model: run by version only.
    owner: 'stability-ai', name: 'sdxl', official: false, version: '7762fd07cf82c948538e41f63f77d685e02b063e37e496e96eefd46c929f9bdc', kind: 'image', output: 'array',
    inputs: { prompt: { type: 'string', required: true }, width: { type: 'integer', minimum: 128, maximum: 2048 }, height: { type: 'integer', minimum: 128, maximum: 2048 }, seed: { type: 'integer' }, image: { type: 'string', uri: true } },
  },
];

export const findModel = (owner: string, name: string): ModelSpec | undefined => REPLICATE_MODELS.find((m) => m.owner === owner && m.name === name);
export const findVersion = (id: string): ModelSpec | undefined => REPLICATE_MODELS.find((m) => m.version === id);

/** What is wrong with `input` for `model` ([] when nothing is). File inputs are checked as URLs here, their content when the prediction starts. */
export function checkInput(model: ModelSpec, input: Record<string, unknown>): InvalidField[] {
  const problems: InvalidField[] = [];
  for (const [name, spec] of Object.entries(model.inputs)) {
    const field = `input.${name}`;
    const value = input[name];
    if (value === undefined || value === null) {
      if (spec.required) problems.push({ type: 'required', field, description: `${name} is required` });
      continue;
    }
    const problem = checkValue(name, spec, value);
    if (problem) problems.push({ ...problem, field });
  }
  return problems;
}

function checkValue(name: string, spec: InputSpec, value: unknown): Omit<InvalidField, 'field'> | null {
  const typeOf = Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value;
  const fits = spec.type === typeOf || (spec.type === 'number' && typeOf === 'integer');
  if (!fits) return { type: 'invalid_type', description: `Invalid type. Expected: ${spec.type}, given: ${typeOf}` };
  if (spec.choices && !spec.choices.includes(value as string | number)) {
    return { type: 'enum', description: `${name} must be one of the following: ${spec.choices.map((c) => JSON.stringify(c)).join(', ')}` };
  }
  if (typeof value === 'number') {
    if (spec.minimum !== undefined && value < spec.minimum) return { type: 'number_gte', description: `Must be greater than or equal to ${spec.minimum}` };
    if (spec.maximum !== undefined && value > spec.maximum) return { type: 'number_lte', description: `Must be less than or equal to ${spec.maximum}` };
  }
  if (Array.isArray(value)) {
    if (spec.maxItems !== undefined && value.length > spec.maxItems) return { type: 'array_max_items', description: `Array must have at most ${spec.maxItems} items` };
    if (spec.uri && !value.every((item) => typeof item === 'string' && isUri(item))) return { type: 'format', description: 'Does not match format \'uri\'' };
  }
  if (typeof value === 'string' && spec.uri && !isUri(value)) return { type: 'format', description: 'Does not match format \'uri\'' };
  return null;
}

const isUri = (value: string): boolean => /^(data:|https?:\/\/)/.test(value);

/** The file inputs of a model's input, in order (the references a prediction was given). */
export function fileInputs(model: ModelSpec, input: Record<string, unknown>): string[] {
  const urls: string[] = [];
  for (const [name, spec] of Object.entries(model.inputs)) {
    if (!spec.uri) continue;
    const value = input[name];
    if (typeof value === 'string') urls.push(value);
    else if (Array.isArray(value)) urls.push(...value.filter((v): v is string => typeof v === 'string'));
  }
  return urls;
}
