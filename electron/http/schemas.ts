// TypeBox schemas of /v1 request bodies. Ajv runs them with extra keys rejected and no coercion.
import { Type, type Static } from '@sinclair/typebox';

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

export type VideoIdParams = { id: string };
