// JSON Merge Patch (RFC 7396) over model records, with the record schema's rule for nulls.
import { describe, expect, it } from 'vitest';
import type { ModelRecord } from '../../shared/api-types.js';
import { mergeRecordPatch } from '../../electron/core/catalog/model-patch.js';
import { LOCAL_IMAGE_MODELS } from '../../electron/core/providers/local/local-models.js';

const record = { ...(LOCAL_IMAGE_MODELS[0] as ModelRecord), pricing: { ...(LOCAL_IMAGE_MODELS[0] as ModelRecord).pricing, minimum_request_price_usd: 0.01 } };

function refusal(patch: unknown): { code: string; param: string | null; message: string } {
  try {
    mergeRecordPatch(record, patch);
  } catch (error) {
    return error as { code: string; param: string | null; message: string };
  }
  throw new Error('the patch was accepted');
}

describe('mergeRecordPatch', () => {
  it('a null removes an optional field, at any depth, and leaves the rest of the record as it was', () => {
    const merged = mergeRecordPatch(record, { pricing: { minimum_request_price_usd: null }, capabilities: { supported_sizes: null } }) as ModelRecord;
    expect(merged.pricing).not.toHaveProperty('minimum_request_price_usd');
    expect(merged.capabilities).not.toHaveProperty('supported_sizes');
    expect(merged).toEqual({
      ...record,
      pricing: { ...record.pricing, minimum_request_price_usd: undefined },
      capabilities: { ...record.capabilities, supported_sizes: undefined },
    });
    expect(record.pricing.minimum_request_price_usd).toBe(0.01); // the target is not changed in place
  });

  it('objects merge recursively (unknown capability objects too); arrays and scalars replace', () => {
    const base = { ...record, capabilities: { ...record.capabilities, vendor: { a: 1, b: { c: 2, d: 3 } } } };
    const merged = mergeRecordPatch(base, { tier: 'pro', capabilities: { supported_sizes: ['64x64'], vendor: { b: { d: null, e: 4 } } } }) as ModelRecord;
    expect(merged.tier).toBe('pro');
    expect(merged.capabilities.supported_sizes).toEqual(['64x64']);
    expect(merged.capabilities.vendor).toEqual({ a: 1, b: { c: 2, e: 4 } });
    expect(merged.modalities).toEqual(record.modalities);
  });

  it.each([['id'], ['pricing'], ['pricing.currency'], ['pricing.unit'], ['capabilities'], ['modalities.output'], ['tier']])(
    'a null on the required field %s is refused, naming it',
    (path) => {
      const patch = path.split('.').reduceRight<unknown>((inner, key) => ({ [key]: inner }), null);
      expect(refusal(patch)).toMatchObject({ code: 'invalid_request', param: path, message: expect.stringContaining(`${path} is required`) });
    },
  );

  it('a null on a required field whose value may be null sets it (context_window.tokens)', () => {
    const merged = mergeRecordPatch({ ...record, context_window: { tokens: 100, chars: 400 } }, { context_window: { tokens: null } }) as ModelRecord;
    expect(merged.context_window).toEqual({ tokens: null, chars: 400 });
  });

  it('a "__proto__" key is a field like any other, not the prototype', () => {
    const merged = mergeRecordPatch(record, JSON.parse('{"capabilities": {"__proto__": {"image_edit": false}}}')) as ModelRecord;
    expect(Object.getPrototypeOf(merged.capabilities)).toBe(Object.prototype);
    expect(JSON.stringify(merged.capabilities)).toContain('"__proto__":{"image_edit":false}');
  });
});
