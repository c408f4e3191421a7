// TypeBox schemas of every studio method's input: the studio API takes bodies from a browser
// (headless mode) or from the renderer over IPC, and both are checked the same way.
import { MAX_ROUTES } from '../catalog/model-routes.js';
import { PROVIDER_KINDS } from '../../../shared/provider-kinds.js';
import { Type, type TSchema } from '@sinclair/typebox';
import type { StudioMethod } from '../../../shared/studio-contract.js';
import { USD_AMOUNT_PATTERN, USD_FORMAT_PROBLEM } from '../../../shared/usd-amount.js';

const Empty = Type.Object({}, { additionalProperties: false });
const ProgressId = Type.Optional(Type.String({ minLength: 1, maxLength: 64 }));
const Usd = Type.String({ pattern: USD_AMOUNT_PATTERN, errorMessage: USD_FORMAT_PROBLEM });
const File = Type.Object(
  { name: Type.String({ maxLength: 255 }), mime: Type.String({ maxLength: 100 }), base64: Type.String({ maxLength: 12_000_000 }) },
  { additionalProperties: false },
);
const Limit = Type.Optional(Type.Integer({ minimum: 1, maximum: 200 }));
const Id = Type.String({ minLength: 1, maxLength: 100 });
const RequestType = Type.Union([Type.Literal('text-to-video'), Type.Literal('image-to-video')]);

export const STUDIO_INPUT_SCHEMAS: { [M in StudioMethod]: TSchema } = {
  'system.info': Empty,
  'catalog.list': Empty,
  'catalog.remove': Type.Object({ id: Type.String({ minLength: 1, maxLength: 255 }) }, { additionalProperties: false }),
  'catalog.putWorkflow': Type.Object(
    {
      id: Type.String({ minLength: 1, maxLength: 200 }),
      provider: Id,
      workflow: Type.String({ minLength: 1, maxLength: 4_000_000 }),
      output: Type.Union([Type.Literal('image'), Type.Literal('video')]),
      record: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    },
    { additionalProperties: false },
  ),
  'catalog.setRoutes': Type.Object(
    {
      id: Type.String({ minLength: 1, maxLength: 255 }),
      routes: Type.Array(Type.Object({ provider: Id, upstream_model: Type.String({ minLength: 1, maxLength: 500 }) }, { additionalProperties: false }), { minItems: 1, maxItems: MAX_ROUTES }),
    },
    { additionalProperties: false },
  ),
  'images.generate': Type.Object(
    { model: Type.String(), prompt: Type.String(), size: Type.Optional(Type.String()), progress_id: ProgressId },
    { additionalProperties: false },
  ),
  'images.edit': Type.Object(
    {
      model: Type.String(),
      prompt: Type.String(),
      size: Type.Optional(Type.String()),
      images: Type.Array(File, { maxItems: 16 }),
      progress_id: ProgressId,
    },
    { additionalProperties: false },
  ),
  'gallery.list': Type.Object({ limit: Limit }, { additionalProperties: false }),
  'gallery.delete': Type.Object({ id: Id }, { additionalProperties: false }),
  'videos.quote': Type.Object(
    { model: Type.String(), seconds: Type.Integer({ minimum: 1, maximum: 3600 }), request_type: RequestType },
    { additionalProperties: false },
  ),
  'videos.create': Type.Object(
    {
      model: Type.String(),
      prompt: Type.String(),
      seconds: Type.Integer({ minimum: 1, maximum: 3600 }),
      size: Type.Optional(Type.String()),
      request_type: Type.Optional(RequestType),
      reference: Type.Optional(File),
      idempotency_key: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    },
    { additionalProperties: false },
  ),
  'videos.list': Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })) }, { additionalProperties: false }),
  'videos.cancel': Type.Object({ id: Id }, { additionalProperties: false }),
  'billing.summary': Empty,
  'billing.topUp': Type.Object({ usd: Usd }, { additionalProperties: false }),
  'keys.list': Empty,
  'keys.create': Type.Object(
    {
      access: Type.Union([Type.Literal('free'), Type.Literal('pro'), Type.Literal('balance')]),
      balance_usd: Type.Optional(Usd),
      allowance_usd: Type.Optional(Usd),
      label: Type.Optional(Type.String({ maxLength: 200 })),
    },
    { additionalProperties: false },
  ),
  'keys.revoke': Type.Object({ id: Id }, { additionalProperties: false }),
  'keys.topUp': Type.Object({ id: Id, usd: Usd }, { additionalProperties: false }),
  'keys.update': Type.Object(
    {
      id: Id,
      access: Type.Optional(Type.Union([Type.Literal('free'), Type.Literal('pro'), Type.Literal('balance')])),
      allowance_usd: Type.Optional(Usd),
    },
    { additionalProperties: false },
  ),
  'keys.usage': Type.Object({ id: Id }, { additionalProperties: false }),
  'activity.list': Type.Object({ limit: Limit }, { additionalProperties: false }),
  'providers.list': Empty,
  'providers.add': Type.Object(
    {
      id: Id,
      kind: Type.Union(PROVIDER_KINDS.map((kind) => Type.Literal(kind))),
      base_url: Type.Optional(Type.String({ maxLength: 500 })),
      api_key: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
      api_key_env: Type.Optional(Type.String({ maxLength: 128 })),
      timeout_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 86_400 })),
    },
    { additionalProperties: false },
  ),
  'providers.update': Type.Object(
    {
      id: Id,
      base_url: Type.Optional(Type.String({ maxLength: 500 })),
      api_key: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
      api_key_env: Type.Optional(Type.String({ maxLength: 128 })),
      timeout_seconds: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 86_400 }), Type.Null()])),
    },
    { additionalProperties: false },
  ),
  'providers.remove': Type.Object({ id: Id, remove_models: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
  'providers.test': Type.Object({ id: Id }, { additionalProperties: false }),
  'providers.discover': Type.Object({ id: Id }, { additionalProperties: false }),
};
