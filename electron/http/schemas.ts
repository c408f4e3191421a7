// TypeBox schemas of /v1: the request bodies, queries and path parameters Fastify validates (Ajv,
// extra keys rejected, no coercion), the multipart forms' fields, and the response bodies. The
// OpenAPI document (openapi.ts) is built from these, as the routes carry them.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { VIDEO_FIELDS } from '../core/videos/video-request.js';

export const ImageGenerationBody = Type.Object(
  {
    model: Type.String(),
    prompt: Type.String(),
    size: Type.Optional(Type.String()),
    n: Type.Optional(Type.Integer()),
  },
  { additionalProperties: false },
);
export type ImageGenerationBody = Static<typeof ImageGenerationBody>;

/** Text fields of POST /images/edits (files come under `image` / `image[]`). */
export const IMAGE_EDIT_TEXT_FIELDS = ['model', 'prompt', 'size'] as const;

/** A string or an integer (seconds may be "8" or 8); the core turns either into a number. */
const StringOrInteger = Type.Unsafe<string | number>({ type: ['string', 'integer'] });

/** POST /videos as JSON: both request shapes in one schema; no other properties. */
export const VideoCreateBody = Type.Object(
  {
    model: Type.String(),
    prompt: Type.String(),
    seconds: Type.Optional(StringOrInteger),
    duration: Type.Optional(StringOrInteger),
    size: Type.Optional(Type.String()),
    resolution: Type.Optional(Type.String()),
    request_type: Type.Optional(Type.String()),
    client_request_id: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export type VideoCreateBody = Static<typeof VideoCreateBody>;

export const VideoListQuery = Type.Object(
  {
    limit: Type.Optional(Type.String()),
    after: Type.Optional(Type.String()),
    order: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export type VideoListQuery = Static<typeof VideoListQuery>;

export const VideoIdParams = Type.Object({ id: Type.String({ description: 'A video task id (video_ and 20 characters).' }) });
export type VideoIdParams = Static<typeof VideoIdParams>;

/** GET /v1/models/{id}: a wildcard, as ids may hold slashes (fal-ai/veo3), sent as they are or as %2F. */
export const ModelIdParams = Type.Object({ '*': Type.String({ description: 'A model id; it may hold slashes.' }) });
export type ModelIdParams = Static<typeof ModelIdParams>;

/** GET /v1/videos/{id}/content: other query parameters are ignored. */
export const VideoContentQuery = Type.Object({ variant: Type.Optional(Type.String({ description: 'Only "video" (the default) is available.' })) });
export type VideoContentQuery = Static<typeof VideoContentQuery>;

// Multipart forms: checked part by part while streaming (multipart-form.ts), so Fastify does not
// validate them; these describe them, built from the same field tables the readers take.

// `format: binary` is what client generators (openapi-generator, openapi-typescript) read as a
// file; repeated parts of one name are an array in multipart, one file included.
const uploadFile = Type.String({ format: 'binary', description: 'PNG, JPEG or WebP, checked by content.' });
const files = (description: string) =>
  Type.Array(uploadFile, { minItems: 1, description: `${description} One part per file; the [] spelling of the name is the same field.` });

const textField = (name: string) => Type.String({ description: `Text field ${name}.` });
const formFields = (names: readonly string[], required: readonly string[]) =>
  Object.fromEntries(names.map((name) => [name, required.includes(name) ? textField(name) : Type.Optional(textField(name))]));

/** POST /v1/images/edits as multipart/form-data. */
export const ImageEditForm = Type.Object(
  {
    ...formFields(IMAGE_EDIT_TEXT_FIELDS, ['model', 'prompt']),
    image: files('1 to the model\'s max_reference_images files.'),
  },
  { additionalProperties: false },
);

/** POST /v1/videos as multipart/form-data (the OpenAI SDKs' shape); without files it is text-to-video. */
export const VideoCreateForm = Type.Object(
  {
    ...formFields(VIDEO_FIELDS, ['model', 'prompt']),
    input_reference: Type.Optional(files('Up to the model\'s max_reference_images files of at most max_reference_image_bytes.')),
  },
  { additionalProperties: false },
);

// Response bodies (shared/api-types.ts is their TypeScript side).

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Decimal = Type.String({ pattern: '^-?[0-9]+(\\.[0-9]+)?$', description: 'US dollars as a decimal string.' });

/** The standard error body of every failure. */
export const ErrorBody = Type.Object(
  {
    error: Type.Object(
      {
        message: Type.String(),
        type: Type.String(),
        code: Type.String(),
        param: Nullable(Type.String()),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

const Modality = Type.Union([Type.Literal('text'), Type.Literal('image'), Type.Literal('video'), Type.Literal('audio')]);

export const ModelRecord = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('model'),
    created: Type.Integer(),
    owned_by: Type.String(),
    tier: Type.Union([Type.Literal('turbo'), Type.Literal('pro')]),
    model_type: Type.String(),
    pricing_mode: Type.Union([Type.Literal('token'), Type.Literal('second')]),
    pricing: Type.Object(
      {
        input: Type.Optional(Type.Number()),
        output: Type.Optional(Type.Number()),
        price: Type.Optional(Type.Number()),
        route_prices_usd_per_second: Type.Optional(
          Type.Array(
            Type.Object(
              { route: Type.String(), request_type: Type.String(), public_price_usd_per_second: Type.Number() },
              { additionalProperties: false },
            ),
          ),
        ),
        minimum_request_price_usd: Type.Optional(Type.Number()),
        minimum_cache_tokens: Type.Optional(Type.Number()),
        currency: Type.String(),
        unit: Type.String(),
      },
      { additionalProperties: false },
    ),
    modalities: Type.Object({ input: Type.Array(Modality), output: Type.Array(Modality) }, { additionalProperties: false }),
    context_window: Type.Object(
      { tokens: Nullable(Type.Integer()), chars: Nullable(Type.Integer()) },
      { additionalProperties: false },
    ),
    usage_based_only: Type.Boolean(),
    stream: Type.Boolean(),
    json_mode: Type.Boolean(),
    reasoning: Type.Boolean(),
    tools_calling: Type.Boolean(),
    /** Open: an owner may record capabilities of their own (mgw models put). */
    capabilities: Type.Object(
      {
        image_generation: Type.Optional(Type.Boolean()),
        image_edit: Type.Optional(Type.Boolean()),
        video_generation: Type.Optional(Type.Boolean()),
        video_async: Type.Optional(Type.Boolean()),
        supported_seconds: Type.Optional(Type.Array(Type.Number())),
        supported_sizes: Type.Optional(Type.Array(Type.String())),
        max_reference_images: Type.Optional(Type.Number()),
        max_reference_image_bytes: Type.Optional(Type.Number()),
        requires_reference_image: Type.Optional(Type.Boolean()),
        partner_video: Type.Optional(Type.Boolean()),
        partner_routes: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
        request_types: Type.Optional(Type.Array(Type.String())),
        max_task_seconds: Type.Optional(Type.Number()),
      },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: false },
);

export const ModelList = Type.Object({ object: Type.Literal('list'), data: Type.Array(ModelRecord) }, { additionalProperties: false });

export const ImageResult = Type.Object(
  {
    data: Type.Array(Type.Object({ b64_json: Type.String({ contentEncoding: 'base64' }) }, { additionalProperties: false }), {
      minItems: 1,
      maxItems: 1,
    }),
    usage: Type.Object({ cost_usd: Decimal }, { additionalProperties: false }),
  },
  { additionalProperties: false },
);

export const VideoTask = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('video'),
    model: Type.String(),
    status: Type.Union(['queued', 'in_progress', 'completed', 'failed', 'timeout'].map((status) => Type.Literal(status))),
    progress: Type.Integer({ minimum: 0, maximum: 100 }),
    seconds: Type.String(),
    size: Type.String(),
    request_type: Type.String(),
    client_request_id: Nullable(Type.String()),
    created_at: Type.Integer(),
    completed_at: Nullable(Type.Integer()),
    outputs: Type.Array(Type.String({ format: 'uri' })),
    error: Nullable(Type.Object({ code: Type.String(), message: Type.String() }, { additionalProperties: false })),
    cost_usd: Decimal,
  },
  { additionalProperties: false },
);

export const VideoTaskList = Type.Object(
  {
    object: Type.Literal('list'),
    data: Type.Array(VideoTask),
    first_id: Nullable(Type.String()),
    last_id: Nullable(Type.String()),
    has_more: Type.Boolean(),
  },
  { additionalProperties: false },
);
