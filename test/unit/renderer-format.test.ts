import { describe, expect, it } from 'vitest';
import { activityAmount } from '../../renderer/src/lib/activity-amount.js';
import { referenceProblem } from '../../renderer/src/lib/files.js';
import { formatUsd } from '../../renderer/src/lib/format.js';
import { requestTypesOf } from '../../renderer/src/lib/models.js';
import { spendSeries } from '../../renderer/src/lib/spend.js';
import type { CatalogModel } from '../../shared/studio-contract.js';

describe('formatUsd', () => {
  it('keeps the exact amount and at least two decimals', () => {
    expect(formatUsd('0.00614650')).toBe('$0.0061465');
    expect(formatUsd('5.00000000')).toBe('$5.00');
    expect(formatUsd('12.5')).toBe('$12.50');
    expect(formatUsd('-1.25000000')).toBe('-$1.25');
    expect(formatUsd(null)).toBe('—');
  });
});

describe('activity amounts', () => {
  it("a video creation's amount reads as the hold it placed; every other request's as its cost", () => {
    expect(activityAmount({ method: 'POST', endpoint: '/v1/videos', cost_usd: '0.40000000' })).toMatchObject({ text: 'held $0.40', title: expect.stringContaining('released') });
    expect(activityAmount({ method: 'STUDIO', endpoint: 'videos.create', cost_usd: '0.40000000' }).text).toBe('held $0.40');
    expect(activityAmount({ method: 'POST', endpoint: '/v1/videos', cost_usd: '0.00000000' }).text).toBe('$0.00');
    expect(activityAmount({ method: 'POST', endpoint: '/v1/images/generations', cost_usd: '0.01000000' })).toEqual({ text: '$0.01' });
    expect(activityAmount({ method: 'DELETE', endpoint: '/v1/videos/:id', cost_usd: '0.00000000' })).toEqual({ text: '$0.00' });
  });
});

describe('reference checks before sending', () => {
  const limits = { model: 'local-image', maxImages: 3, maxBytes: 8 * 1024 * 1024 };
  const png = (name: string, size = 1000) => ({ name, size, type: 'image/png' });

  it('accepts files within the model limits', () => {
    expect(referenceProblem([png('a.png'), png('b.png')], limits)).toBeNull();
  });

  it('names the file over max_reference_image_bytes and the limit', () => {
    expect(referenceProblem([png('a.png'), png('big.png', 9 * 1024 * 1024)], limits)).toBe(
      'big.png is 9 MiB; local-image accepts reference images up to 8 MiB.',
    );
  });

  it('refuses more files than max_reference_images, and other types', () => {
    expect(referenceProblem([png('1'), png('2'), png('3'), png('4')], limits)).toBe(
      'local-image accepts at most 3 reference images (4 selected).',
    );
    expect(referenceProblem([{ name: 'x.gif', size: 10, type: 'image/gif' }], limits)).toBe('x.gif is not a PNG, JPEG or WebP image.');
  });
});

describe('request types offered for a video model', () => {
  const model = (capabilities: CatalogModel['record']['capabilities']) => ({ provider: 'local', record: { capabilities } }) as CatalogModel;
  it('follows requires_reference_image and request_types', () => {
    expect(requestTypesOf(model({ requires_reference_image: true }))).toEqual(['image-to-video']);
    expect(requestTypesOf(model({ request_types: ['text-to-video'] }))).toEqual(['text-to-video']);
    expect(requestTypesOf(model({}))).toEqual(['text-to-video', 'image-to-video']);
  });
});

describe('spend series', () => {
  it('fills the last days with zeros up to today', () => {
    const series = spendSeries([{ day: '2026-03-09', spend_usd: '0.25000000' }], new Date('2026-03-10T12:00:00Z'), 3);
    expect(series).toEqual([
      { day: '2026-03-08', usd: 0, raw: '0' },
      { day: '2026-03-09', usd: 0.25, raw: '0.25000000' },
      { day: '2026-03-10', usd: 0, raw: '0' },
    ]);
  });
});
