// The core's own reading of a video creation, whatever door it came through. The HTTP doors
// close their field sets before this (TypeBox schema, multipart field list) and the studio
// builds its fields from a closed schema, so only a direct call shows that the core refuses an
// unknown field by itself: a new door must not be able to slip one through.
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../electron/core/errors.js';
import { parseVideoRequest } from '../../electron/core/videos/video-request.js';

const refusal = (fields: Record<string, unknown>): GatewayError => {
  try {
    parseVideoRequest({ fields, references: [], transport: 'json' });
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('accepted');
};

describe('parseVideoRequest', () => {
  it('reads a plain text-to-video request', () => {
    expect(parseVideoRequest({ fields: { model: 'local-video', prompt: 'waves', seconds: '4' }, references: [], transport: 'json' })).toMatchObject({
      model: 'local-video',
      prompt: 'waves',
      seconds: 4,
    });
  });

  it.each(['n', 'quality', '__proto__', 'constructor'])('refuses an unknown field %j naming it', (name) => {
    const error = refusal(JSON.parse(`{"model":"local-video","prompt":"waves",${JSON.stringify(name)}:1}`) as Record<string, unknown>);
    expect({ code: error.code, status: error.status, param: error.param }).toEqual({ code: 'invalid_request', status: 400, param: name });
  });

  it('refuses a reference image inside JSON fields (rule 7)', () => {
    expect(refusal({ model: 'local-video', prompt: 'waves', input_reference: 'data:image/png;base64,AAAA' }).param).toBe('input_reference');
  });
});
