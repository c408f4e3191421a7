// Property-based fuzzing driven by the OpenAPI document (fast-check, fixed seed): JSON bodies,
// multipart forms (text parts, real and broken image files, stray parts), queries and path ids
// generated from the document's own schemas (valid ones, with values of the
// live catalog mixed in so some succeed, and invalid ones: a required field left out, a value of
// the wrong type, a key the schema does not name), sent to a real server with a key made for the
// run. No answer may be a 5xx, and every answer must match the document (test/helpers/openapi-responses.ts).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelList } from '../../shared/api-types.js';
import { startTestGateway, USD, type TestGateway } from '../helpers/gateway.js';
import { request, type RawResponse } from '../helpers/http.js';
import { makeImage } from '../helpers/images.js';
import { responseChecker } from '../helpers/openapi-responses.js';
import { SEED } from './support.js';

type Schema = { type?: string | string[]; properties?: Record<string, Schema>; required?: string[]; anyOf?: Schema[]; $ref?: string; enum?: unknown[]; contentEncoding?: string; format?: string; items?: Schema };
type Parameter = { name: string; in: string; required?: boolean; schema: Schema };
type Operation = { parameters?: Parameter[]; requestBody?: { content: Record<string, { schema: Schema }> } };
type Doc = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };

const RUNS = 40;
let t: TestGateway;
let doc: Doc;
let token: string;
let check: ReturnType<typeof responseChecker>;
/** Values the catalog and the gateway know, so generated requests reach past the first check. */
let known: string[];
/** The catalog's own values per field name, so generated forms reach past the first checks. */
let byField: Record<string, string[]>;
/** File parts: real images of a few sizes, and bytes that are no image. */
let files: Buffer[];

beforeAll(async () => {
  t = await startTestGateway({ limits: { requests: { balance: { perSecond: 100_000, perMinute: 1_000_000, perHour: 10_000_000 } } } });
  token = (await t.key('balance', { balanceNano: 1_000 * USD })).token;
  doc = (await request(`${t.baseUrl}/openapi.json`)).body as Doc;
  check = responseChecker(doc);
  const models = (await request(`${t.baseUrl}/models`)).body as ModelList;
  known = [...models.data.map((m) => m.id), ...new Set(models.data.flatMap((m) => [...(m.capabilities.supported_sizes ?? []), ...(m.capabilities.supported_seconds ?? []).map(String)]))];
  known.push('text-to-video', 'image-to-video', 'a lighthouse at dusk');
  const sizes = [...new Set(models.data.flatMap((m) => m.capabilities.supported_sizes ?? []))];
  const seconds = [...new Set(models.data.flatMap((m) => (m.capabilities.supported_seconds ?? []).map(String)))];
  byField = { model: models.data.map((m) => m.id), size: sizes, resolution: sizes, seconds, duration: seconds, request_type: ['text-to-video', 'image-to-video'], prompt: ['a lighthouse at dusk', 'make it night'] };
  files = [await makeImage(64, 64), await makeImage(320, 180), await makeImage(1024, 1024), Buffer.from('not an image at all'), Buffer.alloc(0)];
});
afterAll(() => t.close());

const resolve = (schema: Schema): Schema => (schema.$ref ? doc.components.schemas[schema.$ref.split('/').pop()!]! : schema);

/** A value the schema accepts (strings from the known pool or random text). */
function valid(input: Schema): fc.Arbitrary<unknown> {
  const schema = resolve(input);
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map(valid));
  const types = [schema.type ?? 'string'].flat();
  return fc.oneof(
    ...types.map((type): fc.Arbitrary<unknown> => {
      switch (type) {
        case 'object':
          return objectOf(schema);
        case 'integer':
          return fc.oneof(fc.constantFrom(1, 2, 4, 8), fc.integer({ min: -5, max: 2_000 }));
        case 'number':
          return fc.double({ noNaN: true });
        case 'boolean':
          return fc.boolean();
        case 'null':
          return fc.constant(null);
        default:
          return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: fc.string({ maxLength: 30 }) });
      }
    }),
  );
}

function objectOf(schema: Schema): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const record = Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, valid(property)]));
  return fc.record(record, { requiredKeys: schema.required ?? [] }) as fc.Arbitrary<Record<string, unknown>>;
}

/** A body the schema refuses: a required field left out, a wrong type, or a key it does not name. */
function invalid(input: Schema): fc.Arbitrary<unknown> {
  const schema = resolve(input);
  const required = schema.required ?? [];
  const names = Object.keys(schema.properties ?? {});
  const wrong = fc.oneof(fc.constant(null), fc.boolean(), fc.constant([]), fc.constant({}), fc.double());
  return fc.oneof(
    fc.tuple(objectOf(schema), fc.constantFrom(...required)).map(([body, name]) => {
      const { [name]: _left, ...rest } = body;
      return rest;
    }),
    fc.tuple(objectOf(schema), fc.constantFrom(...names), wrong).map(([body, name, value]) => ({ ...body, [name]: value })),
    fc.tuple(objectOf(schema), fc.string({ minLength: 1, maxLength: 12 }).filter((k) => !names.includes(k)), fc.string()).map(([body, key, value]) => ({ ...body, [key]: value })),
    wrong,
  );
}

async function send(method: string, path: string, init: RequestInit = {}): Promise<RawResponse> {
  const response = await request(`${new URL(t.baseUrl).origin}${path}`, { method, ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } });
  expect(response.status, `${method} ${path}: ${response.text.slice(0, 200)}`).toBeLessThan(500);
  check(method, path, response);
  return response;
}

describe('requests generated from the OpenAPI document', () => {
  const jsonBodies = () =>
    Object.entries(doc.paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([, operation]) => operation.requestBody?.content['application/json'])
        .map(([method, operation]) => ({ method: method.toUpperCase(), path, schema: operation.requestBody!.content['application/json']!.schema })),
    );

  it('JSON bodies, valid and invalid: no 5xx, every answer as documented', async () => {
    const targets = jsonBodies();
    expect(targets.map((target) => target.path).sort()).toEqual(['/v1/images/generations', '/v1/videos']);
    let succeeded = 0;
    for (const target of targets) {
      await fc.assert(
        fc.asyncProperty(fc.oneof(valid(target.schema), invalid(target.schema)), async (body) => {
          const response = await send(target.method, target.path, { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
          if (response.status === 200) succeeded++;
        }),
        { seed: SEED, numRuns: RUNS },
      );
    }
    expect(succeeded).toBeGreaterThan(0);
  });

  it('multipart forms, valid and invalid: no 5xx, every answer as documented', async () => {
    const targets = Object.entries(doc.paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([, operation]) => operation.requestBody?.content['multipart/form-data'])
        .map(([method, operation]) => ({ method: method.toUpperCase(), path, schema: resolve(operation.requestBody!.content['multipart/form-data']!.schema) })),
    );
    expect(targets.map((target) => target.path).sort()).toEqual(['/v1/images/edits', '/v1/videos']);
    /** A file field: its schema names binary content (alone, or as the items of an array). */
    const binary = (schema: Schema | undefined) => schema?.format === 'binary' || schema?.contentEncoding === 'binary';
    const isFile = (schema: Schema) => (schema.anyOf ?? [schema]).some((option) => binary(option) || binary(option.items));
    let succeeded = 0;
    for (const target of targets) {
      const properties = target.schema.properties ?? {};
      const textFields = Object.keys(properties).filter((name) => !isFile(properties[name]!));
      const fileFields = Object.keys(properties).filter((name) => isFile(properties[name]!));
      // Parts: each named text field present or not (a value the schema allows, or any text), a
      // few files under each file field (or its [] spelling), and now and then a part the schema
      // does not name.
      // Required text fields are usually there, so that some forms get past the first checks.
      const required = (target.schema.required ?? []).filter((name) => textFields.includes(name));
      const likely = (name: string) => (byField[name] ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...byField[name]!) }, { weight: 1, arbitrary: valid(properties[name]!).map(String) }) : valid(properties[name]!).map(String));
      const texts = fc.oneof(
        { weight: 3, arbitrary: fc.record(Object.fromEntries(textFields.map((name) => [name, likely(name)])), { requiredKeys: required }) },
        { weight: 1, arbitrary: fc.record(Object.fromEntries(textFields.map((name) => [name, fc.string({ maxLength: 20 })])), { requiredKeys: [] }) },
      );
      const fileParts = fc.array(fc.tuple(fc.constantFrom(...fileFields.flatMap((name) => [name, `${name}[]`])), fc.nat({ max: files.length - 1 })), { maxLength: 4 });
      const stray = fc.oneof(
        { weight: 5, arbitrary: fc.constant(null) },
        { weight: 1, arbitrary: fc.tuple(fc.string({ minLength: 1, maxLength: 10 }).filter((name) => !(name in properties) && !name.endsWith('[]')), fc.string({ maxLength: 10 })) },
      );
      await fc.assert(
        fc.asyncProperty(texts, fileParts, stray, async (fields, parts, extra) => {
          const form = new FormData();
          for (const [name, value] of Object.entries(fields)) form.append(name, value as string);
          for (const [name, index] of parts) form.append(name, new Blob([new Uint8Array(files[index]!)], { type: 'image/png' }), `f${index}.png`);
          if (extra) form.append(extra[0], extra[1]);
          const response = await send(target.method, target.path, { body: form });
          if (response.status === 200) succeeded++;
        }),
        { seed: SEED, numRuns: RUNS * 2 },
      );
    }
    expect(succeeded).toBeGreaterThan(0);
  });

  it('query strings and path ids of every GET and DELETE', async () => {
    const targets = Object.entries(doc.paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([method]) => method === 'get' || method === 'delete')
        .map(([method, operation]) => ({ method: method.toUpperCase(), path, parameters: operation.parameters ?? [] })),
    );
    const idOf = (path: string) => (path.startsWith('/v1/models/') ? fc.constantFrom(...known) : fc.oneof(fc.constant('video_aaaaaaaaaaaaaaaaaaaa'), fc.string({ maxLength: 30 })));
    for (const target of targets) {
      const query = target.parameters.filter((p) => p.in === 'query');
      const queries = fc.array(fc.tuple(fc.oneof(fc.constantFrom(...query.map((p) => p.name), 'x'), fc.string({ maxLength: 6 })), fc.oneof(valid({ type: 'string' }), fc.constantFrom('1', '100', 'asc', 'desc', 'video'))), { maxLength: 3 });
      await fc.assert(
        fc.asyncProperty(idOf(target.path), queries, async (id, pairs) => {
          const path = target.path.replace('{id}', encodeURIComponent(id) || 'x');
          const search = new URLSearchParams(pairs).toString();
          await send(target.method, search ? `${path}?${search}` : path);
        }),
        { seed: SEED, numRuns: Math.ceil(RUNS / 2) },
      );
    }
  });
});
