// mgw models put as a real child process: what it refuses, with which exit status and message.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/gateway.js';
import { mgw } from '../helpers/cli.js';
import { IMAGE_RECORD } from '../helpers/model-records.js';

let dataDir: string;
beforeAll(() => {
  dataDir = tempDir('mgw-models-put-');
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const run = (...args: string[]) => mgw([...args, '--data-dir', dataDir]);

const VIDEO_RECORD = {
  tier: 'pro', model_type: 'video', pricing_mode: 'second',
  pricing: { price: 0.1, currency: 'USD', unit: 'second' },
  modalities: { input: ['text', 'image'], output: ['video'] }, context_window: { tokens: null, chars: 32000 },
  usage_based_only: true, stream: false, json_mode: false, reasoning: false, tools_calling: false,
  capabilities: {
    video_generation: true, video_async: true, supported_seconds: [5, 10], supported_sizes: ['720p', '1080p'],
    max_reference_images: 1, max_reference_image_bytes: 8388608, requires_reference_image: false,
  },
};

/** One line on stderr, exit status 2, no stack. */
function expectUsageError(result: ReturnType<typeof run>): string {
  expect(result.status).toBe(2);
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  return result.stderr;
}

describe('mgw models put refusals', () => {
  it('quotes the id pattern as it is (capitals allowed), only the first letter of the message lowercased', () => {
    const stderr = expectUsageError(run('models', 'put', 'a b', '--provider', 'local', '--json', JSON.stringify(IMAGE_RECORD)));
    expect(stderr).toContain('Invalid model record: id expected string to match');
    expect(stderr).toContain('A-Za-z0-9');
  });

  it('an unknown --provider is a usage error naming it, and nothing is added', () => {
    const stderr = expectUsageError(run('models', 'put', 'newm', '--provider', 'nope', '--json', JSON.stringify(IMAGE_RECORD)));
    expect(stderr).toMatch(/^mgw: no provider nope\b/);
    expect(stderr).not.toMatch(/not configured/);
    expect(run('models', 'list', '--json').stdout).not.toContain('newm');
  });

  it.each(['a/../../b', 'x/..', 'x/./y', 'a//b', 'a/'])('refuses the id %j (a ".", ".." or empty path segment)', (id) => {
    const stderr = expectUsageError(run('models', 'put', id, '--provider', 'local', '--json', JSON.stringify(IMAGE_RECORD)));
    expect(stderr).toContain('Invalid model record: id has an empty, "." or ".." path segment');
    expect(run('models', 'list', '--json').stdout).not.toContain(JSON.stringify(id));
  });

  it.each(['../../../admin?x=1', 'fal-ai/../x', 'fal-ai//x', 'x/'])('refuses --upstream-model %j', (upstream) => {
    const stderr = expectUsageError(run('models', 'put', 'safe-id', '--provider', 'local', '--upstream-model', upstream, '--json', JSON.stringify(IMAGE_RECORD)));
    expect(stderr).toContain(`The upstream model ${JSON.stringify(upstream)} has an empty, "." or ".." path segment`);
    expect(run('models', 'list', '--json').stdout).not.toContain('safe-id');
  });

  it('still takes ids and upstream models with dots and slashes inside segments', () => {
    const put = run('models', 'put', 'vendor/model-1.5', '--provider', 'local', '--upstream-model', 'fal-ai/flux/v1.1', '--json', JSON.stringify(IMAGE_RECORD));
    expect(put.stderr).toBe('');
    expect(put.status).toBe(0);
    expect(run('models', 'remove', 'vendor/model-1.5').status).toBe(0);
  });

  it.each([
    ['wrongly typed capabilities', 'capabilities.supported_seconds', { ...VIDEO_RECORD, capabilities: { video_generation: true, supported_seconds: 5, supported_sizes: '720p' } }],
    ['an image record with a numeric size list', 'capabilities.supported_sizes', { ...IMAGE_RECORD, capabilities: { ...IMAGE_RECORD.capabilities, supported_sizes: 1024 } }],
    ['a video record without video capabilities', 'capabilities.video_generation', { ...VIDEO_RECORD, capabilities: {} }],
    ['a per-second record without a price', 'pricing.price', { ...VIDEO_RECORD, pricing: { currency: 'USD', unit: 'second' } }],
    ['a video record priced by tokens', 'pricing_mode', { ...VIDEO_RECORD, pricing_mode: 'token' }],
    ['a unit billing cannot read', 'pricing.unit', { ...IMAGE_RECORD, pricing: { ...IMAGE_RECORD.pricing, unit: 'banana' } }],
    ['an extra key in pricing', 'pricing.foo', { ...IMAGE_RECORD, pricing: { ...IMAGE_RECORD.pricing, foo: 1 } }],
    ['a price billing cannot hold (1e300)', 'pricing.minimum_request_price_usd', { ...IMAGE_RECORD, pricing: { ...IMAGE_RECORD.pricing, minimum_request_price_usd: 1e300 } }],
  ])('refuses %s with exit 2, naming %s, and adds nothing', (_what, param, record) => {
    const stderr = expectUsageError(run('models', 'put', 'bad-model', '--provider', 'local', '--json', JSON.stringify(record)));
    expect(stderr).toContain(`Invalid model record: ${param} `);
    expect(run('models', 'list', '--json').stdout).not.toContain('bad-model');
  });

  it('refuses a merge that would break an existing record, and keeps the record as it was', () => {
    const before = run('models', 'list', '--json').stdout;
    const stderr = expectUsageError(run('models', 'put', 'local-video', '--json', '{"pricing_mode": "token"}'));
    expect(stderr).toContain('Invalid model record: pricing_mode ');
    expect(run('models', 'list', '--json').stdout).toBe(before);
  });
});

describe('mgw models put edits with JSON Merge Patch', () => {
  const recordOf = (id: string) =>
    (JSON.parse(run('models', 'list', '--json').stdout) as { record: Record<string, any> }[]).find((e) => e.record.id === id)!.record;

  it('a null removes an optional field; objects merge, arrays replace; the rest stays', () => {
    const record = { ...IMAGE_RECORD, pricing: { ...IMAGE_RECORD.pricing, minimum_request_price_usd: 0.01 }, capabilities: { ...IMAGE_RECORD.capabilities, vendor: { a: 1, b: 2 } } };
    expect(run('models', 'put', 'patched', '--provider', 'local', '--json', JSON.stringify(record)).status).toBe(0);
    const put = run('models', 'put', 'patched', '--json', '{"pricing": {"minimum_request_price_usd": null}, "capabilities": {"supported_sizes": ["512x512"], "vendor": {"a": null}}}');
    expect(put.stderr).toBe('');
    expect(put).toMatchObject({ status: 0, stdout: 'Updated model patched (in 1 / out 10 USD per 1M tokens).\n' });
    const after = recordOf('patched');
    expect(after.pricing).toEqual(IMAGE_RECORD.pricing);
    expect(after.capabilities).toEqual({ ...IMAGE_RECORD.capabilities, supported_sizes: ['512x512'], vendor: { b: 2 } });
    expect(after.modalities).toEqual(IMAGE_RECORD.modalities);
  });

  it.each([['pricing.currency', '{"pricing": {"currency": null}}'], ['id', '{"id": null}'], ['capabilities', '{"capabilities": null}']])(
    'a null on the required field %s is refused with exit 2, naming it, and changes nothing',
    (param, patch) => {
      const before = run('models', 'list', '--json').stdout;
      const stderr = expectUsageError(run('models', 'put', 'local-image', '--json', patch));
      expect(stderr).toContain(`Invalid model record: ${param} is required and cannot be removed`);
      expect(run('models', 'list', '--json').stdout).toBe(before);
    },
  );

  it('a price in another currency is refused when written, naming pricing.currency: balances and charges are USD, so it could never be billed', () => {
    const before = run('models', 'list', '--json').stdout;
    const stderr = expectUsageError(run('models', 'put', 'local-image', '--json', '{"pricing": {"currency": "EUR"}}'));
    expect(stderr).toContain('pricing.currency must be "USD": balances and charges are in USD (got "EUR")');
    expect(run('models', 'list', '--json').stdout).toBe(before);
    expect(run('models', 'put', 'local-image', '--json', '{"pricing": {"currency": "usd"}}').status).toBe(0);
  });
});

describe('mgw models put and partner fields', () => {
  const capabilitiesOf = (id: string) =>
    (JSON.parse(run('models', 'list', '--json').stdout) as { record: { id: string; capabilities: Record<string, unknown> } }[]).find((e) => e.record.id === id)!.record.capabilities;

  it('a fal video model gets partner_video and default routes, anew when its upstream model changes; moved to an openai provider it loses them', () => {
    expect(run('providers', 'add', '--kind', 'fal', '--id', 'fl', '--base-url', 'http://127.0.0.1:9', '--api-key', 'k').status).toBe(0);
    expect(run('providers', 'add', '--kind', 'openai', '--id', 'oa', '--base-url', 'http://127.0.0.1:9/v1', '--api-key', 'k').status).toBe(0);
    const upstream = 'fal-ai/kling-video/v2/master/text-to-video';
    expect(run('models', 'put', 'kling', '--provider', 'fl', '--upstream-model', upstream, '--json', JSON.stringify(VIDEO_RECORD)).status).toBe(0);
    expect(capabilitiesOf('kling')).toMatchObject({
      partner_video: true,
      partner_routes: [
        { route: upstream, request_type: 'text-to-video' },
        { route: upstream, request_type: 'image-to-video' },
      ],
    });
    const i2v = 'fal-ai/kling-video/v2/master/image-to-video';
    expect(run('models', 'put', 'kling', '--upstream-model', i2v, '--json', '{}').status).toBe(0);
    expect(capabilitiesOf('kling').partner_routes).toEqual([
      { route: i2v, request_type: 'text-to-video' },
      { route: i2v, request_type: 'image-to-video' },
    ]);
    const refused = expectUsageError(run('models', 'put', 'kling', '--json', '{"capabilities": {"partner_video": false}}'));
    expect(refused).toContain('capabilities.partner_video');
    const moved = run('models', 'put', 'kling', '--provider', 'oa', '--upstream-model', 'sora-2', '--json', '{}');
    expect(moved.stderr).toBe('');
    expect(moved.status).toBe(0);
    expect(capabilitiesOf('kling')).not.toHaveProperty('partner_video');
    expect(capabilitiesOf('kling')).not.toHaveProperty('partner_routes');
    const claimed = expectUsageError(run('models', 'put', 'kling', '--json', '{"capabilities": {"partner_video": true}}'));
    expect(claimed).toContain('capabilities.partner_video');
  });
});

