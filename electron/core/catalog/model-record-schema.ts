// TypeBox schema of a catalog model record (the contract's Model record table). Used to check
// records an owner puts into the catalog, so GET /v1/models never serves a malformed record.
import { Type, type Static } from '@sinclair/typebox';
import { MAX_USD_AMOUNT } from '../../../shared/usd-amount.js';

// Billing works in integer nano-USD: a price above the most an amount holds exactly (1e300, say)
// would reach it as Infinity and fail every request to the model.
const Usd = Type.Number({ minimum: 0, maximum: Number(MAX_USD_AMOUNT) });

// Strict like the record (an unknown key would be served as if it meant something): the API's
// model schema (http/schemas.ts) describes exactly these keys.
const RoutePrice = Type.Object(
  {
    route: Type.String(),
    request_type: Type.String(),
    public_price_usd_per_second: Usd,
  },
  { additionalProperties: false },
);

// Strict: every field of the contract's pricing table is listed, and an unknown key would be
// served to clients as if it priced something that billing never charges.
const Pricing = Type.Object(
  {
    input: Type.Optional(Usd),
    output: Type.Optional(Usd),
    price: Type.Optional(Usd),
    route_prices_usd_per_second: Type.Optional(Type.Array(RoutePrice)),
    minimum_request_price_usd: Type.Optional(Usd),
    minimum_cache_tokens: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
    currency: Type.String({ minLength: 1 }),
    unit: Type.String({ minLength: 1 }),
  },
  { additionalProperties: false },
);

const Flag = Type.Optional(Type.Boolean());

// The known capabilities are typed (the request checks read them); other keys pass through, as
// the contract calls capabilities endpoint-specific metadata.
const Capabilities = Type.Object(
  {
    image_generation: Flag,
    image_edit: Flag,
    video_generation: Flag,
    video_async: Flag,
    supported_seconds: Type.Optional(Type.Array(Type.Integer({ minimum: 1 }))),
    supported_sizes: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    max_reference_images: Type.Optional(Type.Integer({ minimum: 0 })),
    max_reference_image_bytes: Type.Optional(Type.Integer({ minimum: 0 })),
    requires_reference_image: Flag,
    partner_video: Flag,
    partner_routes: Type.Optional(Type.Array(Type.Object({}))),
    request_types: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    max_task_seconds: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: true },
);

const Modality = Type.Union([Type.Literal('text'), Type.Literal('image'), Type.Literal('video'), Type.Literal('audio')]);

export const ModelRecordSchema = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9][A-Za-z0-9._:/-]*$' }),
    object: Type.Literal('model'),
    created: Type.Integer(),
    owned_by: Type.String(),
    tier: Type.Union([Type.Literal('turbo'), Type.Literal('pro')]),
    model_type: Type.String({ minLength: 1 }),
    pricing_mode: Type.Union([Type.Literal('token'), Type.Literal('second')]),
    pricing: Pricing,
    modalities: Type.Object({ input: Type.Array(Modality), output: Type.Array(Modality) }, { additionalProperties: false }),
    context_window: Type.Object(
      {
        tokens: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
        chars: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
      },
      { additionalProperties: false },
    ),
    usage_based_only: Type.Boolean(),
    stream: Type.Boolean(),
    json_mode: Type.Boolean(),
    reasoning: Type.Boolean(),
    tools_calling: Type.Boolean(),
    capabilities: Capabilities,
  },
  { additionalProperties: false },
);

export type ModelRecordInput = Static<typeof ModelRecordSchema>;
