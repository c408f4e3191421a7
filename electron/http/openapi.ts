// GET /v1/openapi.json: an OpenAPI 3.1 document of every /v1 route, built from the routes as
// registered. Each route carries its request schemas (schema.body / querystring / params, which
// Fastify validates) and a `config.openapi` entry (its multipart form, responses, error codes,
// auth); both come from schemas.ts. A /v1 route without that entry, or with path parameters but
// no params schema, or a POST without a body schema, makes the build throw (and the tests fail).
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { ERROR_STATUS, type ErrorCode } from '../core/errors.js';
import * as schemas from './schemas.js';

export interface DocResponse {
  description: string;
  /** A JSON body. */
  schema?: TSchema;
  /** A body of another media type (video/mp4), or none for a redirect. */
  media?: string;
  /** Response headers beyond x-request-id (and the rate-limit headers of bearer routes). */
  headers?: readonly (keyof typeof HEADERS)[];
}

export interface RouteDoc {
  operationId: string;
  summary: string;
  description?: string;
  /** 'bearer': an API key (none at all when allowAnonymous is on); 'none': served without a token. */
  auth: 'bearer' | 'none';
  /** Success (and redirect) answers by status. */
  responses: Readonly<Record<number, DocResponse>>;
  /** Error codes this route may answer besides those of every route (COMMON_ERRORS, AUTH_ERRORS). */
  errors: readonly ErrorCode[];
  /** The multipart/form-data body, checked part by part while streaming (Fastify does not validate it). */
  multipart?: TSchema;
  /** Takes the Idempotency-Key header. */
  idempotencyKey?: boolean;
  /** Takes the Range and If-Range headers (a download). */
  ranges?: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's entry in the OpenAPI document (openapi.ts). */
    openapi?: RouteDoc;
  }
}

export interface RegisteredRoute {
  method: string;
  url: string;
  schema: RouteOptions['schema'];
  doc: RouteDoc | undefined;
}

/** Any route may answer these: a foreign Host (400), a fault (500), an unreadable data dir (503). */
const COMMON_ERRORS: readonly ErrorCode[] = ['invalid_request', 'internal_error', 'storage_unavailable'];
/** Every bearer route: no or a bad token, a request window used up. */
const AUTH_ERRORS: readonly ErrorCode[] = ['missing_api_key', 'invalid_api_key', 'rate_limit_exceeded'];
/** The wire code of a catalog code, where they differ (errors.ts WIRE_CODE). */
const WIRE_CODE: Partial<Record<ErrorCode, string>> = { request_too_large: 'invalid_request' };

const HEADERS = {
  'x-request-id': { description: 'The id of this request (also in the logs).', schema: { type: 'string' } },
  'x-ratelimit-limit-requests': { description: 'Requests allowed in the tightest window.', schema: { type: 'string' } },
  'x-ratelimit-remaining-requests': { description: 'Requests left in that window.', schema: { type: 'string' } },
  'x-ratelimit-reset-requests': { description: 'Time until that window resets, e.g. "12s".', schema: { type: 'string' } },
  'retry-after': { description: 'Seconds to wait before retrying.', schema: { type: 'string' } },
  location: { description: 'Where the content is.', schema: { type: 'string', format: 'uri' } },
  'content-range': { description: 'The bytes sent, or `bytes */size` on a 416.', schema: { type: 'string' } },
  'accept-ranges': { description: 'Always `bytes`.', schema: { type: 'string' } },
  etag: { description: 'Validator for If-Range.', schema: { type: 'string' } },
  'last-modified': { description: 'Validator for If-Range.', schema: { type: 'string' } },
} as const;
const RATE_HEADERS = ['x-ratelimit-limit-requests', 'x-ratelimit-remaining-requests', 'x-ratelimit-reset-requests'] as const;

/** Schemas that become named components (what a client generator turns into types). */
const NAMED: Record<string, TSchema> = {
  ErrorBody: schemas.ErrorBody,
  ModelRecord: schemas.ModelRecord,
  ModelList: schemas.ModelList,
  ImageResult: schemas.ImageResult,
  ImageGenerationBody: schemas.ImageGenerationBody,
  ImageEditForm: schemas.ImageEditForm,
  VideoCreateBody: schemas.VideoCreateBody,
  VideoCreateForm: schemas.VideoCreateForm,
  VideoTask: schemas.VideoTask,
  VideoTaskList: schemas.VideoTaskList,
};

const registered = new WeakMap<FastifyInstance, RegisteredRoute[]>();

/** The routes collectRoutes saw on this app (for the tests that keep routes and document in sync). */
export function registeredRoutes(app: FastifyInstance): readonly RegisteredRoute[] {
  return registered.get(app) ?? [];
}

/** Records every route as registered (HEAD routes Fastify adds for GETs aside). Call before registering routes. */
export function collectRoutes(app: FastifyInstance): RegisteredRoute[] {
  const routes: RegisteredRoute[] = [];
  registered.set(app, routes);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (method === 'HEAD') continue;
      routes.push({ method, url: route.url, schema: route.schema, doc: route.config?.openapi });
    }
  });
  return routes;
}

/** `/v1/videos/:id` -> `/v1/videos/{id}`; the models wildcard is `{id}`. */
export function openApiPath(url: string): string {
  return url.replace(/:([^/]+)/g, '{$1}').replace(/\/\*$/, '/{id}');
}

const pathParamName = (name: string) => (name === '*' ? 'id' : name);

export interface OpenApiOptions {
  /** allowAnonymous: bearer routes may then be called without a token. */
  allowAnonymous?: boolean;
}

/** The document; throws when a /v1 route lacks its entry or a schema for its input. */
export function buildOpenApi(routes: readonly RegisteredRoute[], options: OpenApiOptions = {}): Record<string, unknown> {
  const components = new Components();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    if (!route.url.startsWith('/v1/')) continue;
    const where = `${route.method} ${route.url}`;
    const doc = route.doc;
    if (!doc) throw new Error(`${where} has no OpenAPI entry (config.openapi).`);
    const schema = (route.schema ?? {}) as { body?: TSchema | { content: Record<string, { schema: TSchema }> }; querystring?: TSchema; params?: TSchema };
    const parameters: unknown[] = [];
    if (/[:*]/.test(route.url)) {
      if (!schema.params) throw new Error(`${where} has path parameters but no params schema.`);
      for (const [name, property] of Object.entries(schema.params.properties as Record<string, TSchema>)) {
        parameters.push({ name: pathParamName(name), in: 'path', required: true, schema: components.inline(property), ...describe(property) });
      }
    }
    if (schema.querystring) {
      const required = new Set((schema.querystring.required as string[] | undefined) ?? []);
      for (const [name, property] of Object.entries(schema.querystring.properties as Record<string, TSchema>)) {
        parameters.push({ name, in: 'query', required: required.has(name), schema: components.inline(property), ...describe(property) });
      }
    }
    if (doc.idempotencyKey) {
      parameters.push({
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description: 'Retries with the same key and request get the same task (24 h, per account); the same key with another request is a 400.',
        schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
      });
    }
    if (doc.ranges) {
      parameters.push(
        { name: 'Range', in: 'header', required: false, description: 'One byte range (bytes=START-END, bytes=START-, bytes=-SUFFIX): 206, or 416 when it lies past the end. Several ranges, or another unit, are ignored: the whole file (200).', schema: { type: 'string' } },
        { name: 'If-Range', in: 'header', required: false, description: 'An ETag or Last-Modified date of an earlier answer: the range is honoured only if the file is still that one, else the whole file (200).', schema: { type: 'string' } },
      );
    }
    const content: Record<string, unknown> = {};
    if (schema.body) {
      const byType = 'content' in schema.body && !('type' in schema.body) ? (schema.body.content as Record<string, { schema: TSchema }>) : { 'application/json': { schema: schema.body as TSchema } };
      for (const [type, entry] of Object.entries(byType)) content[type] = { schema: components.ref(entry.schema) };
    }
    if (doc.multipart) content['multipart/form-data'] = { schema: components.ref(doc.multipart) };
    if (route.method === 'POST' && Object.keys(content).length === 0) throw new Error(`${where} takes a body but has no schema for it.`);

    const operation: Record<string, unknown> = {
      operationId: doc.operationId,
      summary: doc.summary,
      ...(doc.description ? { description: doc.description } : {}),
      security: doc.auth === 'none' ? [] : options.allowAnonymous ? [{ bearer: [] }, {}] : [{ bearer: [] }],
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(Object.keys(content).length > 0 ? { requestBody: { required: true, content } } : {}),
      responses: responsesOf(doc, components),
    };
    (paths[openApiPath(route.url)] ??= {})[route.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Media Gateway Studio API',
      version: '1.0.0',
      description:
        'Model catalog, image generation and editing, and asynchronous video tasks. Every error is the standard body ' +
        '`{"error": {"message", "type", "code", "param"}}`; every response carries x-request-id.',
    },
    servers: [{ url: '/', description: 'This gateway (paths include /v1).' }],
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    paths,
    components: {
      schemas: components.schemas,
      headers: Object.fromEntries(Object.entries(HEADERS).map(([name, header]) => [name, header])),
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key made with `mgw keys create`.' } },
    },
  };
}

function describe(schema: TSchema): { description?: string } {
  return typeof schema.description === 'string' ? { description: schema.description } : {};
}

function responsesOf(doc: RouteDoc, components: Components): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  const headersFor = (extra: readonly (keyof typeof HEADERS)[] = []) => {
    const names = ['x-request-id', ...(doc.auth === 'bearer' ? RATE_HEADERS : []), ...extra];
    return Object.fromEntries([...new Set(names)].map((name) => [name, { $ref: `#/components/headers/${name}` }]));
  };
  for (const [status, answer] of Object.entries(doc.responses)) {
    const content = answer.schema
      ? { content: { 'application/json': { schema: components.ref(answer.schema) } } }
      : answer.media
        ? { content: { [answer.media]: { schema: { type: 'string', format: 'binary' } } } }
        : {};
    responses[status] = { description: answer.description, headers: headersFor(answer.headers), ...content };
  }
  const codes = new Set<ErrorCode>([...COMMON_ERRORS, ...(doc.auth === 'bearer' ? AUTH_ERRORS : []), ...doc.errors]);
  const byStatus = new Map<number, Set<string>>();
  for (const code of codes) {
    const status = ERROR_STATUS[code];
    if (!byStatus.has(status)) byStatus.set(status, new Set());
    byStatus.get(status)!.add(WIRE_CODE[code] ?? code);
  }
  for (const [status, wireCodes] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status)] = {
      description: `Error: ${[...wireCodes].map((code) => `\`${code}\``).join(', ')}.`,
      headers: headersFor(status === 429 ? ['retry-after'] : status === 416 ? ['content-range'] : []),
      content: { 'application/json': { schema: components.ref(schemas.ErrorBody) } },
    };
  }
  return responses;
}

/** Plain JSON copies of TypeBox schemas, with the NAMED ones as $refs to components. */
class Components {
  readonly schemas: Record<string, unknown> = {};
  private readonly names = new Map(Object.entries(NAMED).map(([name, schema]) => [JSON.stringify(schema), name]));

  ref(schema: TSchema): unknown {
    return this.convert(JSON.parse(JSON.stringify(schema)) as unknown);
  }

  inline(schema: TSchema): unknown {
    return JSON.parse(JSON.stringify(schema)) as unknown;
  }

  private convert(value: unknown, top = false): unknown {
    if (Array.isArray(value)) return value.map((item) => this.convert(item));
    if (typeof value !== 'object' || value === null) return value;
    const name = top ? undefined : this.names.get(JSON.stringify(value));
    if (name) {
      if (!(name in this.schemas)) {
        this.schemas[name] = null; // reserved first: a schema that holds itself stops here
        this.schemas[name] = this.convert(value, true);
      }
      return { $ref: `#/components/schemas/${name}` };
    }
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, this.convert(item)]));
  }
}

/** GET /v1/openapi.json, served without a token like GET /v1/models; built once, at the first request. */
export function registerOpenApiRoute(app: FastifyInstance, routes: readonly RegisteredRoute[], options: OpenApiOptions = {}): void {
  let body: string | null = null;
  app.get(
    '/v1/openapi.json',
    {
      config: {
        openapi: {
          operationId: 'getOpenApi',
          summary: 'This document',
          auth: 'none',
          responses: { 200: { description: 'The OpenAPI 3.1 document of every /v1 route.', schema: Type.Object({}, { additionalProperties: true }) } },
          errors: [],
        },
      },
    },
    (_request, reply) => {
      body ??= JSON.stringify(buildOpenApi(routes, options));
      reply.header('content-type', 'application/json; charset=utf-8').send(body);
    },
  );
}
