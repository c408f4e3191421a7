// Both doors name a refused field as the client wrote it: the schema libraries' JSON pointers
// (TypeBox for the studio, Ajv for /v1) escape "/" as ~1 and "~" as ~0, which must not leak.
import { Type } from '@sinclair/typebox';
import type { FastifySchemaValidationError } from 'fastify/types/schema.js';
import { describe, expect, it } from 'vitest';
import { firstProblem, pointerToParam } from '../../electron/core/schema-check.js';
import { validationToGatewayError } from '../../electron/http/validation-errors.js';

describe('JSON pointer -> param', () => {
  it.each([
    ['', ''],
    ['/model', 'model'],
    ['/~0', '~'],
    ['/a~1b~0', 'a/b~'],
    ['/~01', '~1'], // ~1 is unescaped before ~0, so "~01" is "~" then "1", never "/"
    ['/images/0/name', 'images.0.name'],
  ])('%j -> %j', (pointer, param) => {
    expect(pointerToParam(pointer)).toBe(param);
  });

  it('the studio schema check names an extra field "~" or "a/b" as sent', async () => {
    const schema = Type.Object({ inner: Type.Optional(Type.Object({}, { additionalProperties: false })) }, { additionalProperties: false });
    expect((await firstProblem(schema, { '~': true }))?.param).toBe('~');
    expect((await firstProblem(schema, { inner: { 'a/b': 1 } }))?.param).toBe('inner.a/b');
  });

  it('the /v1 validation mapping unescapes the instance path', () => {
    const error = (keyword: string, instancePath: string, params: Record<string, unknown>): FastifySchemaValidationError =>
      ({ keyword, instancePath, schemaPath: '#', params, message: 'must be valid' }) as FastifySchemaValidationError;
    expect(validationToGatewayError([error('type', '/a~1b/~0', { type: 'string' })]).param).toBe('a/b.~');
    expect(validationToGatewayError([error('minimum', '/x~1y', {})]).param).toBe('x/y');
  });
});
