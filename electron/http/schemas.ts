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
