// Ajv (schema) errors -> 400 invalid_request naming the parameter, in words a client can act on.
import type { FastifySchemaValidationError } from 'fastify/types/schema.js';
import { GatewayError } from '../core/errors.js';
import { pointerToParam } from '../core/schema-check.js';

/** Fields the contract names as rejected, with the reason a client needs to hear. */
const REJECTED_REASON: Record<string, string> = {
  response_format: 'only base64 output (b64_json) is supported, so response_format is not accepted',
  quality: 'quality is not supported by this gateway',
  style: 'style is not supported by this gateway',
  background: 'background is not supported by this gateway',
  output_format: 'output_format is not supported; images are returned as PNG',
  mask: 'explicit masks are not supported; describe the edit in the prompt',
  input_reference: 'reference images must be sent as multipart/form-data files, not inside a JSON body',
};

export function unsupportedField(name: string): GatewayError {
  const reason = Object.hasOwn(REJECTED_REASON, name) ? REJECTED_REASON[name] : `"${name}" is not a supported field`;
  return new GatewayError('invalid_request', `Unsupported field ${name}: ${reason}.`, name);
}

export function validationToGatewayError(errors: FastifySchemaValidationError[]): GatewayError {
  const first = errors[0];
  if (!first) return new GatewayError('invalid_request', 'The request body is invalid.');
  const params = first.params as Record<string, unknown>;
  const path = pointerToParam(first.instancePath);
  switch (first.keyword) {
    case 'additionalProperties':
      return unsupportedField(String(params.additionalProperty));
    case 'required':
      return new GatewayError('invalid_request', `Missing required field ${String(params.missingProperty)}.`, String(params.missingProperty));
    case 'type':
      if (path === '') return new GatewayError('invalid_request', 'The request body must be a JSON object.');
      return new GatewayError('invalid_request', `${path} must be ${String(params.type).split(',').map((t) => `a${/^[aeiou]/.test(t) ? 'n' : ''} ${t}`).join(' or ')}.`, path);
    default:
      return new GatewayError('invalid_request', `${path || 'body'} ${first.message ?? 'is invalid'}.`, path || null);
  }
}
