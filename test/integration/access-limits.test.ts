// Access types x tiers x usage_based_only, who pays (allowance, then balance), the allowance
// period, daily token quotas with the UTC day rollover, each request window, the rate-limit
// headers, anonymous callers, and that refusals cost nothing. Time is an injected clock.
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelRecord } from '../../shared/api-types.js';
import { startTestGateway, USD, type TestGateway } from '../helpers/gateway.js';
import { errorOf, postForm, postJson, request, type RawResponse } from '../helpers/http.js';
import { makeImage } from '../helpers/images.js';
import { startOpenAIEmulator } from '../emulators/index.js';

let now = Date.parse('2026-11-21T10:00:00.000Z');
const clock = { now: () => now };
let t: TestGateway;

const QUOTA = 3_000;
beforeAll(async () => {
  t = await startTestGateway({ clock, allowAnonymous: true, background: false, limits: { dailyTokens: { anonymous: 100_000, free: QUOTA } } });
  const base = (await t.gateway.catalog.find('local-image'))!.record;
  const put = (record: ModelRecord) => t.gateway.catalog.put({ record, providerId: 'local', upstreamModel: record.id });
  await put({ ...base, id: 'turbo-paid', usage_based_only: true });
  await put({ ...base, id: 'pro-open', tier: 'pro', usage_based_only: false });
});
afterAll(() => t.close());

/** A fresh second for every request, so tests of access do not trip the request windows. */
function tick(ms = 1_000): void {
  now += ms;
}

const url = () => `${t.baseUrl}/images/generations`;
const gen = (token: string | undefined, model = 'local-image') => postJson(url(), { model, prompt: 'a cat', size: '256x256' }, token);

describe('access type x tier x usage_based_only', () => {
  const models = { 'local-image': 'turbo', 'turbo-paid': 'turbo, usage-based', 'pro-open': 'pro', 'local-image-pro': 'pro, usage-based' } as const;
  const open: Record<string, string[]> = {
    anonymous: ['local-image'],
    free: ['local-image'],
    pro: Object.keys(models),
    balance: Object.keys(models),
  };

  it.each(['anonymous', 'free', 'pro', 'balance'] as const)('%s', async (access) => {
    const token =
      access === 'anonymous' ? undefined : (await t.key(access, access === 'pro' ? { allowanceNano: 5 * USD } : access === 'balance' ? { balanceNano: 5 * USD } : {})).token;
    for (const model of Object.keys(models)) {
      tick();
      const response = await gen(token, model);
      if (open[access]!.includes(model)) {
        expect(response.status, `${access} -> ${model}`).toBe(200);
      } else {
        expect(response.status, `${access} -> ${model}`).toBe(402);
        expect(errorOf(response).code).toBe('insufficient_balance');
        expect(errorOf(response).message).toMatch(/Pro subscription or a topped-up balance|paid usage/);
      }
    }
  });

  it('pro and balance keys without funds get 402 even for turbo models; free ones pay nothing', async () => {
    const pro = await t.key('pro');
    const balance = await t.key('balance');
    const free = await t.key('free');
    tick();
    expect((await gen(pro.token)).status).toBe(402);
    expect((await gen(balance.token)).status).toBe(402);
    const ok = await gen(free.token);
    expect((ok.body as { usage: { cost_usd: string } }).usage.cost_usd).toBe('0.00000000');
  });
});

describe("the owner changes a key's access", () => {
  it('the next request of its token acts with the new access (a verified token is not remembered with the old one)', async () => {
    const key = await t.key('balance', { balanceNano: USD });
    tick();
    expect((await gen(key.token, 'pro-open')).status).toBe(200);
    await t.gateway.keys.update(key.id, { access: 'free' });
    tick();
    const refused = await gen(key.token, 'pro-open');
    expect(refused.status).toBe(402);
    expect(errorOf(refused).message).toMatch(/Pro subscription or a topped-up balance/);
    expect(refused.headers.get('x-ratelimit-limit-requests')).toBe('2');
    await t.gateway.keys.update(key.id, { access: 'balance' });
    tick();
    expect((await gen(key.token, 'pro-open')).status).toBe(200);
  });
});

describe('who pays: pro allowance, then balance; the period renews', () => {
  it('rolls over from allowance into balance, then 402; a new period renews the allowance', async () => {
    const record = (await t.gateway.catalog.find('local-image-pro'))!.record;
    const minimum = Math.round(record.pricing.minimum_request_price_usd! * USD);
    const key = await t.key('pro', { allowanceNano: 2 * minimum, balanceNano: minimum });
    const view = () => t.gateway.billing.view(key.accountId);
    for (const expected of [
      { allowance_remaining_usd: '0.01000000', balance_usd: '0.01000000' },
      { allowance_remaining_usd: '0.00000000', balance_usd: '0.01000000' },
      { allowance_remaining_usd: '0.00000000', balance_usd: '0.00000000' },
    ]) {
      tick();
      expect((await gen(key.token, 'local-image-pro')).status).toBe(200);
      expect(await view()).toMatchObject(expected);
    }
    tick();
    expect((await gen(key.token, 'local-image-pro')).status).toBe(402);
    now += 30 * 86_400_000; // the owner's period (30 days by default) ends
    expect((await view()).allowance_remaining_usd).toBe('0.02000000');
    expect((await gen(key.token, 'local-image-pro')).status).toBe(200);
  });
});

describe("who pays: the owner's billing period", () => {
  it('billingPeriodDays sets when the allowance renews: not a day before it, at once after it', async () => {
    const own = await startTestGateway({ clock, background: false, limits: { billingPeriodDays: 7 } });
    try {
      const record = (await own.gateway.catalog.find('local-image-pro'))!.record;
      const minimum = Math.round(record.pricing.minimum_request_price_usd! * USD);
      const key = await own.key('pro', { allowanceNano: minimum });
      const call = () => postJson(`${own.baseUrl}/images/generations`, { model: 'local-image-pro', prompt: 'a cat', size: '256x256' }, key.token);
      tick();
      expect((await call()).status).toBe(200);
      expect((await own.gateway.billing.view(key.accountId)).allowance_remaining_usd).toBe('0.00000000');
      now += 7 * 86_400_000 - 2_000; // just before the 7th day ends
      expect((await own.gateway.billing.view(key.accountId)).allowance_remaining_usd).toBe('0.00000000');
      expect((await call()).status).toBe(402);
      now += 2_000;
      expect((await own.gateway.billing.view(key.accountId)).allowance_remaining_usd).toBe('0.01000000');
      expect((await call()).status).toBe(200);
    } finally {
      await own.close();
    }
  });
});

describe('who pays: a balance key pays from its balance only', () => {
  it('an allowance left from pro access (or given at creation) is not spent once the key has balance access; back on pro it is', async () => {
    const record = (await t.gateway.catalog.find('local-image-pro'))!.record;
    const minimum = Math.round(record.pricing.minimum_request_price_usd! * USD);
    const key = await t.key('pro', { allowanceNano: 5 * minimum, balanceNano: minimum });
    await t.gateway.keys.update(key.id, { access: 'balance' });
    const view = () => t.gateway.billing.view(key.accountId);
    expect(await view()).toMatchObject({ allowance_remaining_usd: '0.00000000', available_usd: '0.01000000' });
    tick();
    expect((await gen(key.token, 'local-image-pro')).status).toBe(200);
    expect(await view()).toMatchObject({ balance_usd: '0.00000000', allowance_remaining_usd: '0.00000000' });
    tick();
    const refused = await gen(key.token, 'local-image-pro');
    expect(refused.status).toBe(402);
    expect(errorOf(refused).code).toBe('insufficient_balance');
    await t.gateway.keys.update(key.id, { access: 'pro' });
    expect((await view()).allowance_remaining_usd).toBe('0.05000000');
    tick();
    expect((await gen(key.token, 'local-image-pro')).status).toBe(200);
  });
});

describe('who pays: free and anonymous callers pay no money, videos included', () => {
  it('a turbo video model open to them holds and charges nothing, even when the key has a balance', async () => {
    const video = (await t.gateway.catalog.find('local-video'))!.record;
    await t.gateway.catalog.put({ record: { ...video, id: 'turbo-video', tier: 'turbo', usage_based_only: false }, providerId: 'local', upstreamModel: 'local-video' });
    for (const key of [await t.key('free', { balanceNano: 5 * USD }), await t.key('free')]) {
      tick();
      const before = await t.gateway.billing.view(key.accountId);
      const created = await postJson(`${t.baseUrl}/videos`, { model: 'turbo-video', prompt: 'waves', seconds: 2 }, key.token);
      expect(created.status).toBe(200);
      expect((created.body as { cost_usd: string }).cost_usd).toBe('0.00000000');
      expect(await t.gateway.billing.view(key.accountId)).toEqual(before);
    }
    tick();
    const anonymous = await postJson(`${t.baseUrl}/videos`, { model: 'turbo-video', prompt: 'waves', seconds: 2 }, undefined);
    expect(anonymous.status).toBe(200);
    expect((anonymous.body as { cost_usd: string }).cost_usd).toBe('0.00000000');
  });
});

describe('daily token quota (UTC day)', () => {
  it('refuses with 429 rate_limit_exceeded and Retry-After to midnight once used up; the next UTC day resets it', async () => {
    const key = await t.key('free');
    // 256x256 is 64 output tokens plus a few prompt tokens: about 46 requests fit in 3,000 tokens.
    let refused: RawResponse | null = null;
    let accepted = 0;
    for (let i = 0; i < 60 && !refused; i++) {
      // 2 s apart: at most 30 in any minute, under free access's 40/min whatever the clock's start.
      tick(2_000);
      const response = await gen(key.token);
      if (response.status === 429) refused = response;
      else {
        expect(response.status).toBe(200);
        accepted++;
      }
    }
    expect(accepted).toBeGreaterThan(30);
    expect(refused).not.toBeNull();
    // Refused before it would pass the quota, not once it has: every request costs the same tokens.
    const used = await t.gateway.access.usage.tokensToday(key.id, now);
    expect(used).toBeLessThanOrEqual(QUOTA);
    expect(used + used / accepted, errorOf(refused!).message).toBeGreaterThan(QUOTA);
    expect(errorOf(refused!)).toMatchObject({ code: 'rate_limit_exceeded' });
    expect(errorOf(refused!).message).toMatch(/Daily token quota/);
    const midnight = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), new Date(now).getUTCDate() + 1);
    expect(Number(refused!.headers.get('retry-after'))).toBe(Math.ceil((midnight - now) / 1000));
    now = midnight + 1_000;
    expect((await gen(key.token)).status).toBe(200);
  });

  it('a request that fails upstream gives its held tokens back: it used none of the quota', async () => {
    const upstream = await startOpenAIEmulator();
    try {
      await t.gateway.providerConfigs.add({ id: 'quota-up', kind: 'openai', baseUrl: upstream.baseUrl, apiKey: upstream.apiKey });
      const base = (await t.gateway.catalog.find('local-image'))!.record;
      await t.gateway.catalog.put({ record: { ...base, id: 'quota-up-image', owned_by: 'quota-up' }, providerId: 'quota-up', upstreamModel: 'gpt-image-1' });
      const key = await t.key('free');
      // 1536x1024 holds 1,538 of the 3,000 tokens while it runs: two held at once do not fit.
      const wide = () => postJson(url(), { model: 'quota-up-image', prompt: 'a cat', size: '1536x1024' }, key.token);
      upstream.inject('POST /v1/images/generations', { status: 400, times: 1 });
      tick();
      const failed = await wide();
      expect({ status: failed.status, code: errorOf(failed).code }).toEqual({ status: 400, code: 'upstream_bad_request' });
      expect(await t.gateway.access.usage.tokensToday(key.id, now)).toBe(0);
      tick();
      expect((await wide()).status).toBe(200);
    } finally {
      await upstream.close();
    }
  });

  it('counts the tokens of requests still in flight: concurrent requests cannot pass the quota together', async () => {
    const key = await t.key('free');
    tick();
    // 1536x1024 is 1,536 output tokens plus 2 prompt tokens: one fits in 3,000, two do not.
    const wide = () => postJson(url(), { model: 'local-image', prompt: 'a cat', size: '1536x1024' }, key.token);
    const statuses = (await Promise.all([wide(), wide()])).map((response) => response.status);
    expect(statuses.sort()).toEqual([200, 429]);
    const usage = await t.gateway.access.usage.tokensToday(key.id, now);
    expect(usage).toBe(1_538);
    tick();
    // A refused or finished request holds nothing: what is left of the quota is usable.
    expect((await gen(key.token)).status).toBe(200);
  });
});

describe('request windows', () => {
  it('anonymous: 1/s, 10/min, 60/h, each window with its Retry-After; headers on every response', async () => {
    now = Date.parse('2026-11-22T12:00:00.000Z');
    const first = await gen(undefined);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit-requests')).toBe('1');
    expect(first.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(first.headers.get('x-ratelimit-reset-requests')).toBe('1s');
    const second = await gen(undefined);
    expect(second.status).toBe(429);
    expect(errorOf(second).code).toBe('rate_limit_exceeded');
    expect(second.headers.get('retry-after')).toBe('1');

    for (let i = 1; i < 10; i++) {
      now += 1_000;
      expect((await gen(undefined)).status).toBe(200);
    }
    now += 1_000; // 11th in this minute
    const minute = await gen(undefined);
    expect(minute.status).toBe(429);
    expect(Number(minute.headers.get('retry-after'))).toBe(Math.ceil((60_000 - (now % 60_000)) / 1000));

    for (let m = 1; m < 6; m++) {
      now = Date.parse('2026-11-22T12:00:00.000Z') + m * 60_000;
      for (let i = 0; i < 10; i++) {
        now += 1_000;
        expect((await gen(undefined)).status, `minute ${m} request ${i}`).toBe(200);
      }
    }
    now = Date.parse('2026-11-22T12:06:30.000Z'); // 60 used this hour
    const hour = await gen(undefined);
    expect(hour.status).toBe(429);
    expect(Number(hour.headers.get('retry-after'))).toBe(Math.ceil((Date.parse('2026-11-22T13:00:00.000Z') - now) / 1000));
    now = Date.parse('2026-11-22T13:00:01.000Z');
    expect((await gen(undefined)).status).toBe(200);
  });

  it('free: 2/s, 40/min and 100/h; paid access has its owner-set higher windows', async () => {
    now = Date.parse('2026-11-23T08:00:00.000Z');
    // A gateway with the default daily quota: 100 requests pass this file's 3,000 tokens.
    const own = await startTestGateway({ clock, background: false });
    try {
      const free = await own.key('free');
      const call = () => postJson(`${own.baseUrl}/images/generations`, { model: 'local-image', prompt: 'a cat', size: '256x256' }, free.token);
      expect((await call()).headers.get('x-ratelimit-limit-requests')).toBe('2');
      expect((await call()).status).toBe(200);
      expect((await call()).status).toBe(429);
      // Two a second fill the minute's 40 in 20 s; the 41st waits for the next minute.
      for (let i = 2; i < 40; i += 2) {
        now += 1_000;
        for (const n of [i, i + 1]) expect((await call()).status, `request ${n + 1} of the minute`).toBe(200);
      }
      now += 1_000;
      const minute = await call();
      expect(minute.status).toBe(429);
      expect(Number(minute.headers.get('retry-after'))).toBe(Math.ceil((60_000 - (now % 60_000)) / 1000));
      // 40 more in the next minute and 20 in the one after: the hour's 100 are used.
      for (const [m, cap] of [[1, 40], [2, 20]] as const) {
        now = Date.parse('2026-11-23T08:00:00.000Z') + m * 60_000;
        for (let i = 0; i < cap; i += 2) {
          now += 1_000;
          for (const n of [i, i + 1]) expect((await call()).status, `minute ${m} request ${n + 1}`).toBe(200);
        }
      }
      now += 1_000;
      const hour = await call();
      expect(hour.status).toBe(429);
      expect(Number(hour.headers.get('retry-after'))).toBe(Math.ceil((Date.parse('2026-11-23T09:00:00.000Z') - now) / 1000));
    } finally {
      await own.close();
    }
    // Pro and topped-up keys alike: 20 a second (the docs' access table), the 21st waits.
    for (const access of ['pro', 'balance'] as const) {
      now = Date.parse('2026-11-23T08:30:00.000Z');
      const paid = await t.key(access, access === 'pro' ? { allowanceNano: USD } : { balanceNano: USD });
      for (let i = 0; i < 20; i++) {
        const response = await gen(paid.token);
        expect(response.status, `${access} request ${i + 1}`).toBe(200);
        expect(response.headers.get('x-ratelimit-limit-requests')).toBe('20');
      }
      const over = await gen(paid.token);
      expect(over.status, `${access} request 21`).toBe(429);
      expect(over.headers.get('retry-after')).toBe('1');
    }
  });

  it('paid defaults at the server: 600 a minute and 10,000 an hour, for pro and topped-up keys alike', async () => {
    // An instant provider: 10,000 real requests then take seconds, not the engine's minutes.
    const png = await makeImage(8, 8);
    t.gateway.providers.register({
      id: 'instant',
      kind: 'test',
      estimateImageUsage: () => ({ input_tokens: 1, output_tokens: 1 }),
      generateImage: async () => ({ bytes: png, usage: { input_tokens: 1, output_tokens: 1 } }),
      editImage: async () => ({ bytes: png, usage: { input_tokens: 1, output_tokens: 1 } }),
    });
    const base = (await t.gateway.catalog.find('local-image'))!;
    await t.gateway.catalog.put({ record: { ...base.record, id: 'instant-image' }, providerId: 'instant', upstreamModel: 'x' });
    for (const access of ['pro', 'balance'] as const) {
      const hourStart = Date.parse(access === 'pro' ? '2026-11-25T08:00:00.000Z' : '2026-11-25T10:00:00.000Z');
      const paid = await t.key(access, access === 'pro' ? { allowanceNano: 100 * USD } : { balanceNano: 100 * USD });
      const call = () => gen(paid.token, 'instant-image');
      // 20 a second for 30 s fills the minute's 600; the 601st waits for the next minute.
      now = hourStart;
      for (let second = 0; second < 30; second++, now += 1_000) {
        for (let i = 0; i < 20; i++) expect((await call()).status, `${access} second ${second} request ${i + 1}`).toBe(200);
      }
      const minute = await call();
      expect(minute.status, `${access} request 601 of the minute`).toBe(429);
      expect(minute.headers.get('x-ratelimit-limit-requests')).toBe('600');
      expect(Number(minute.headers.get('retry-after'))).toBe(Math.ceil((60_000 - (now % 60_000)) / 1000));
      // 600 in each of the next 15 minutes and 400 in the one after: the hour's 10,000.
      for (let m = 1; m <= 16; m++) {
        now = hourStart + m * 60_000;
        for (let n = 0; n < (m === 16 ? 400 : 600); n += 20, now += 1_000) {
          for (let i = 0; i < 20; i++) expect((await call()).status, `${access} minute ${m} request ${n + i + 1}`).toBe(200);
        }
      }
      const hour = await call();
      expect(hour.status, `${access} request 10,001 of the hour`).toBe(429);
      expect(hour.headers.get('x-ratelimit-limit-requests')).toBe('10000');
      expect(Number(hour.headers.get('retry-after'))).toBe(Math.ceil((hourStart + 3_600_000 - now) / 1000));
      now = hourStart + 3_600_000;
      expect((await call()).status, `${access} the next hour`).toBe(200);
    }
    // 20,000 real requests: ~20 s on a quiet 2-core machine, more when it is shared; the windows
    // run on the injected clock, so the wall time bounds nothing the test checks.
  }, 180_000);

  it('paid access meets the windows its owner set (config.json "limits"), each access type its own', async () => {
    now = Date.parse('2026-11-24T08:00:00.000Z');
    const own = await startTestGateway({ clock, background: false, limits: { requests: { pro: { perSecond: 3, perMinute: 4 }, balance: { perSecond: 2 } } } });
    try {
      const pro = await own.key('pro', { allowanceNano: 5 * USD });
      const balance = await own.key('balance', { balanceNano: 5 * USD });
      const call = (token: string) => postJson(`${own.baseUrl}/images/generations`, { model: 'local-image', prompt: 'a cat', size: '256x256' }, token);
      const first = await call(pro.token);
      expect(first.status).toBe(200);
      expect(first.headers.get('x-ratelimit-limit-requests')).toBe('3');
      for (let n = 2; n <= 3; n++) expect((await call(pro.token)).status, `pro request ${n} of the second`).toBe(200);
      const second = await call(pro.token);
      expect(second.status).toBe(429);
      expect(errorOf(second).code).toBe('rate_limit_exceeded');
      expect(second.headers.get('retry-after')).toBe('1');
      now += 1_000;
      expect((await call(pro.token)).status).toBe(200); // the minute's 4th
      const minute = await call(pro.token);
      expect(minute.status).toBe(429);
      expect(Number(minute.headers.get('retry-after'))).toBe(59);
      // balance keeps the default minute and hour but its own second.
      for (let n = 1; n <= 2; n++) expect((await call(balance.token)).status, `balance request ${n}`).toBe(200);
      const refused = await call(balance.token);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('x-ratelimit-limit-requests')).toBe('2');
    } finally {
      await own.close();
    }
  });

  it('anonymous callers are told apart by client address', async () => {
    now = Date.parse('2026-11-23T09:00:00.000Z');
    // Linux routes all of 127.0.0.0/8 to loopback, so a request can come from 127.0.0.2 or .3.
    const call = (localAddress: string) =>
      new Promise<number>((resolve, reject) => {
        const body = JSON.stringify({ model: 'local-image', prompt: 'x', size: '256x256' });
        const req = httpRequest(url(), { method: 'POST', localAddress, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end(body);
      });
    expect(await call('127.0.0.2'), 'first from 127.0.0.2').toBe(200);
    expect(await call('127.0.0.2'), 'second from 127.0.0.2').toBe(429);
    expect(await call('127.0.0.3'), 'first from 127.0.0.3').toBe(200);
  });

  it('refusals cost nothing: a 400 or 402 gives its window slot back and counts no tokens', async () => {
    now = Date.parse('2026-11-23T10:00:00.000Z');
    const bad = await postJson(url(), { model: 'local-image', prompt: 'x', size: 'huge' }, undefined);
    expect(bad.status).toBe(400);
    expect(bad.headers.get('x-ratelimit-limit-requests')).toBe('1');
    // The header counts the slot given back.
    expect(bad.headers.get('x-ratelimit-remaining-requests')).toBe('1');
    const refused = await gen(undefined, 'local-image-pro');
    expect(refused.status).toBe(402);
    expect(refused.headers.get('x-ratelimit-remaining-requests')).toBe('1');
    // Same second: the slot is still free.
    expect((await gen(undefined)).status).toBe(200);
  });

  it('refusals cost nothing: a 413 (reference image over the model limit) gives its slot back too', async () => {
    now = Date.parse('2026-11-23T10:30:00.000Z');
    const base = (await t.gateway.catalog.find('local-image'))!.record;
    await t.gateway.catalog.put({
      record: { ...base, id: 'tiny-refs', capabilities: { ...base.capabilities, max_reference_image_bytes: 100 } },
      providerId: 'local',
      upstreamModel: 'local-image',
    });
    const form = new FormData();
    form.set('model', 'tiny-refs');
    form.set('prompt', 'x');
    form.append('image', new Blob([new Uint8Array(await makeImage(64, 64))], { type: 'image/png' }), 'ref.png');
    const tooLarge = await postForm(`${t.baseUrl}/images/edits`, form, undefined);
    expect(tooLarge.status).toBe(413);
    expect(errorOf(tooLarge).code).toBe('reference_image_too_large');
    expect(tooLarge.headers.get('x-ratelimit-remaining-requests')).toBe('1');
    expect((await gen(undefined)).status).toBe(200);
  });

  it('polls and lists of video tasks carry the headers without spending a slot', async () => {
    now = Date.parse('2026-11-23T11:00:00.000Z');
    const key = await t.key('free');
    for (let i = 0; i < 3; i++) {
      const list = await request(`${t.baseUrl}/videos`, { headers: { authorization: `Bearer ${key.token}` } });
      expect(list.status).toBe(200);
      expect(list.headers.get('x-ratelimit-limit-requests')).toBe('2');
      expect(list.headers.get('x-ratelimit-remaining-requests')).toBe('2');
    }
  });
});

describe('per-key usage', () => {
  it('counts requests, tokens and spend by day and model', async () => {
    now = Date.parse('2026-11-24T10:00:00.000Z');
    const key = await t.key('balance', { balanceNano: USD });
    await gen(key.token);
    tick();
    await gen(key.token, 'local-image-pro');
    const { keyUsage } = await import('../../electron/core/access/key-usage.js');
    const usage = await keyUsage(t.gateway, key.id);
    expect(usage.totals.requests).toBe(2);
    expect(usage.by_day.map((r) => r.model).sort()).toEqual(['local-image', 'local-image-pro']);
    expect(usage.by_day.every((r) => r.day === '2026-11-24' && r.output_tokens === 64)).toBe(true);
    expect(Number(usage.totals.spend_usd)).toBeCloseTo(1 - Number((await t.gateway.billing.view(key.accountId)).balance_usd), 8);
    expect(usage.daily_token_quota).toBeNull();
  });
});
