import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, USD, type TestGateway } from '../helpers/gateway.js';
import { errorOf, postJson } from '../helpers/http.js';

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t.close());

const body = { model: 'local-image', prompt: 'a lighthouse', size: '256x256' };
const url = () => `${t.baseUrl}/images/generations`;

describe('authentication', () => {
  it('401 missing_api_key without a token, invalid_api_key for a wrong or revoked one', async () => {
    const missing = await postJson(url(), body);
    expect(missing.status).toBe(401);
    expect(errorOf(missing)).toMatchObject({ code: 'missing_api_key', type: 'missing_api_key', param: null });

    const wrong = await postJson(url(), body, 'mgw_aaaaaaaaaaaa_' + 'A'.repeat(43));
    expect(wrong.status).toBe(401);
    expect(errorOf(wrong).code).toBe('invalid_api_key');

    const garbage = await postJson(url(), body, 'not-a-key');
    expect(errorOf(garbage).code).toBe('invalid_api_key');

    const key = await t.key('free');
    expect((await postJson(url(), body, key.token)).status).toBe(200);
    // A key that differs from a real one in its secret only is still invalid.
    const tampered = key.token.slice(0, -1) + (key.token.endsWith('A') ? 'B' : 'A');
    expect(errorOf(await postJson(url(), body, tampered)).code).toBe('invalid_api_key');

    await t.gateway.keys.revoke(key.id);
    const revoked = await postJson(url(), body, key.token);
    expect(revoked.status).toBe(401);
    expect(errorOf(revoked).code).toBe('invalid_api_key');
  });

  it('checks auth before reading the body', async () => {
    const response = await postJson(url(), '{not json');
    expect(response.status).toBe(401);
  });
});

describe('who pays', () => {
  it('a balance key with no funds gets 402 and is charged nothing', async () => {
    const key = await t.key('balance');
    const response = await postJson(url(), body, key.token);
    expect(response.status).toBe(402);
    expect(errorOf(response)).toMatchObject({ code: 'insufficient_balance', param: null });
    const view = await t.gateway.billing.view(key.accountId);
    expect(view).toMatchObject({ balance_usd: '0.00000000', holds_usd: '0.00000000', available_usd: '0.00000000' });
    const ledger = await t.gateway.billing.ledgerFor(key.accountId);
    expect(ledger).toHaveLength(0);
  });

  it('a free key uses turbo models at no charge but gets 402 for pro / usage-based models', async () => {
    const key = await t.key('free');
    const ok = await t.client(key.token).images.generate(body);
    expect((ok.usage as unknown as { cost_usd: string }).cost_usd).toBe('0.00000000');
    const refused = await postJson(url(), { ...body, model: 'local-image-pro' }, key.token);
    expect(refused.status).toBe(402);
    expect(errorOf(refused).message).toMatch(/Pro subscription or a topped-up balance/);
  });

  it('a pro key spends its allowance first, then its balance', async () => {
    const record = (await t.gateway.catalog.find('local-image-pro'))!.record;
    const minimum = Math.round(record.pricing.minimum_request_price_usd! * USD);
    const key = await t.key('pro', { allowanceNano: minimum, balanceNano: 1 * USD });
    const client = t.client(key.token);
    await client.images.generate({ ...body, model: 'local-image-pro' });
    let view = await t.gateway.billing.view(key.accountId);
    expect(view.allowance_remaining_usd).toBe('0.00000000');
    expect(view.balance_usd).toBe('1.00000000');
    await client.images.generate({ ...body, model: 'local-image-pro' });
    view = await t.gateway.billing.view(key.accountId);
    expect(Number(view.balance_usd)).toBeCloseTo(1 - minimum / USD, 9);
  });

  it('a balance that covers less than the request is refused whole, with nothing held', async () => {
    const key = await t.key('balance', { balanceNano: 1_000 });
    const response = await postJson(url(), { ...body, model: 'local-image-pro' }, key.token);
    expect(response.status).toBe(402);
    expect(await t.gateway.billing.view(key.accountId)).toMatchObject({ balance_usd: '0.00000100', holds_usd: '0.00000000' });
  });
});
