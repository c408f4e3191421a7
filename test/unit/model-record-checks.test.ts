// The model record check every record passes before it enters the catalog (models put,
// discovery): typed capabilities, strict pricing, and the cross-field rules of the contract.
import { describe, expect, it } from 'vitest';
import type { ModelRecord } from '../../shared/api-types.js';
import { assertModelRecord } from '../../electron/core/catalog/model-record-check.js';
import { LOCAL_IMAGE_MODELS, LOCAL_VIDEO_MODELS } from '../../electron/core/providers/local/local-models.js';
import { PRICE_BOOK, recordFromPriceBook } from '../../electron/core/providers/price-book.js';

const [localImage] = LOCAL_IMAGE_MODELS as [ModelRecord];
const [localVideo] = LOCAL_VIDEO_MODELS as [ModelRecord];

/** A copy of a valid record with `change` applied to it. */
function variant(base: ModelRecord, change: (r: Record<string, any>) => void): unknown {
  const copy = structuredClone(base) as Record<string, any>;
  change(copy);
  return copy;
}

const video = (change: (r: Record<string, any>) => void) => variant(localVideo, change);
const image = (change: (r: Record<string, any>) => void) => variant(localImage, change);

async function refusal(value: unknown): Promise<{ code: string; param: string | null; message: string }> {
  const error = await assertModelRecord(value).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error, 'the record was accepted').not.toBeNull();
  return error as { code: string; param: string | null; message: string };
}

describe('model records that enter the catalog', () => {
  it('the built-in records and every price-book record pass', async () => {
    for (const record of [...LOCAL_IMAGE_MODELS, ...LOCAL_VIDEO_MODELS]) await expect(assertModelRecord(record)).resolves.toBe(record);
    for (const name of Object.keys(PRICE_BOOK)) {
      await expect(assertModelRecord(recordFromPriceBook(name, `up/${name}`, 'up', 1))).resolves.toBeTruthy();
    }
  });

  it.each([
    ['supported_seconds not an array', 'capabilities.supported_seconds', video((r) => (r.capabilities.supported_seconds = 5))],
    ['supported_seconds of strings', 'capabilities.supported_seconds.0', video((r) => (r.capabilities.supported_seconds = ['5']))],
    ['supported_seconds fractional', 'capabilities.supported_seconds.0', video((r) => (r.capabilities.supported_seconds = [2.5]))],
    ['supported_sizes a string', 'capabilities.supported_sizes', video((r) => (r.capabilities.supported_sizes = '720p'))],
    ['image supported_sizes a number', 'capabilities.supported_sizes', image((r) => (r.capabilities.supported_sizes = 1024))],
    ['max_reference_images negative', 'capabilities.max_reference_images', image((r) => (r.capabilities.max_reference_images = -1))],
    ['max_reference_images fractional', 'capabilities.max_reference_images', image((r) => (r.capabilities.max_reference_images = 1.5))],
    ['max_reference_image_bytes a string', 'capabilities.max_reference_image_bytes', image((r) => (r.capabilities.max_reference_image_bytes = '8MB'))],
    ['video_generation a string', 'capabilities.video_generation', video((r) => (r.capabilities.video_generation = 'yes'))],
    ['requires_reference_image a number', 'capabilities.requires_reference_image', video((r) => (r.capabilities.requires_reference_image = 1))],
    ['image_edit a string', 'capabilities.image_edit', image((r) => (r.capabilities.image_edit = 'true'))],
    ['request_types a string', 'capabilities.request_types', video((r) => (r.capabilities.request_types = 'text-to-video'))],
    ['max_task_seconds zero', 'capabilities.max_task_seconds', video((r) => (r.capabilities.max_task_seconds = 0))],
    ['partner_routes of strings', 'capabilities.partner_routes.0', video((r) => (r.capabilities.partner_routes = ['fal-ai/x']))],
    ['an extra key in pricing', 'pricing.foo', image((r) => (r.pricing.foo = 1))],
    // The API's model schema lists these objects' keys; an extra one would be served undescribed.
    ['an extra key in modalities', 'modalities.note', image((r) => (r.modalities.note = 1))],
    ['an extra key in context_window', 'context_window.note', image((r) => (r.context_window.note = 1))],
    ['video: no capabilities', 'capabilities.video_generation', video((r) => (r.capabilities = {}))],
    ['video: pricing_mode token', 'pricing_mode', video((r) => (r.pricing_mode = 'token'))],
    ['video: no video output', 'modalities.output', video((r) => (r.modalities.output = ['image']))],
    ['video: video_generation false', 'capabilities.video_generation', video((r) => (r.capabilities.video_generation = false))],
    ['video: no seconds', 'capabilities.supported_seconds', video((r) => (r.capabilities.supported_seconds = []))],
    ['video: no sizes', 'capabilities.supported_sizes', video((r) => delete r.capabilities.supported_sizes)],
    ['second: no price nor route prices', 'pricing.price', video((r) => (r.pricing = { currency: 'USD', unit: 'second' }))],
    ['second: empty route prices, no price', 'pricing.price', video((r) => (r.pricing = { route_prices_usd_per_second: [], currency: 'USD', unit: 'second' }))],
    ['second: a token unit', 'pricing.unit', video((r) => (r.pricing.unit = '1M tokens'))],
    ['token: no input', 'pricing.input', image((r) => delete r.pricing.input)],
    ['token: no output', 'pricing.output', image((r) => delete r.pricing.output)],
    ['token: unit banana', 'pricing.unit', image((r) => (r.pricing.unit = 'banana'))],
    ['token: unit second', 'pricing.unit', image((r) => (r.pricing.unit = 'second'))],
    ['token: unit of zero tokens', 'pricing.unit', image((r) => (r.pricing.unit = '0 tokens'))],
    // Prices billing cannot hold in nano-USD (Number.MAX_SAFE_INTEGER of them) would fail every request.
    ['an output price of 1e300', 'pricing.output', image((r) => (r.pricing.output = 1e300))],
    ['a minimum request price over 9007199.254740991', 'pricing.minimum_request_price_usd', image((r) => (r.pricing.minimum_request_price_usd = 9007200))],
    ['a per-second price of 1e300', 'pricing.price', video((r) => (r.pricing.price = 1e300))],
    ['a route price of 1e300', 'pricing.route_prices_usd_per_second.0.public_price_usd_per_second', video((r) => (r.pricing.route_prices_usd_per_second[0].public_price_usd_per_second = 1e300))],
    ['a fractional minimum_cache_tokens', 'pricing.minimum_cache_tokens', image((r) => (r.pricing.minimum_cache_tokens = 0.5))],
  ])('refuses %s: 400 invalid_request naming %s', async (_what, param, record) => {
    const error = await refusal(record);
    expect(error).toMatchObject({ code: 'invalid_request', param });
    expect(error.message).toContain(`Invalid model record: ${param} `);
  });

  it.each([
    ['unknown capability keys', image((r) => (r.capabilities.watermark = 'none'))],
    ['a second-priced video with route prices only', video((r) => delete r.pricing.price)],
    ['a second-priced video with a price only', video((r) => delete r.pricing.route_prices_usd_per_second)],
    ['a "1K tokens" unit', image((r) => (r.pricing.unit = '1K tokens'))],
    ['a "1 token" unit', image((r) => (r.pricing.unit = '1 token'))],
    ['partner_routes of objects', video((r) => (r.capabilities.partner_routes = [{ route: 'fal-ai/x', request_type: 'text-to-video' }]))],
    ['zero reference images', video((r) => (r.capabilities.max_reference_images = 0))],
    ['a price of exactly 9007199.254740991', image((r) => (r.pricing.output = 9007199.254740991))],
  ])('accepts %s', async (_what, record) => {
    await expect(assertModelRecord(record)).resolves.toBeTruthy();
  });
});
