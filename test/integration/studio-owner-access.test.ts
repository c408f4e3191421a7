// The studio acts as its owner key: when that key's access changes while the studio runs
// (`mgw keys update <owner> --access ...`, from another process or this one), studio requests
// follow it at once, as /v1 requests with that key would; its creations spend its request windows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStudio, type Studio } from '../../electron/core/studio/studio.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

let t: TestGateway;
let studio: Studio;

beforeAll(async () => {
  t = await startTestGateway({ background: false });
  studio = await createStudio(t.gateway, { version: 'test' });
});
afterAll(async () => {
  studio.dispose();
  await t.close();
});

const generate = (model: string) => studio.dispatch('images.generate', { model, prompt: 'a lantern', size: '256x256' });
const available = async () => ((await studio.dispatch('billing.summary', {})) as { balance: { available_usd: string } }).balance.available_usd;

describe('the studio owner key access', () => {
  it('a change of access applies to the next studio request, without restarting the studio', async () => {
    const ownerKey = studio.context.owner.keyId;
    await expect(generate('local-image-pro')).resolves.toMatchObject({ item: { model: 'local-image-pro' } });

    // Free access: pro models are refused, turbo ones cost nothing.
    await t.gateway.keys.update(ownerKey, { access: 'free' });
    await expect(generate('local-image-pro')).rejects.toMatchObject({ code: 'insufficient_balance', status: 402 });
    const before = await available();
    await expect(generate('local-image')).resolves.toMatchObject({ item: { cost_usd: '0.00000000' } });
    expect(await available()).toBe(before);

    // Back to a balance: pro models again, paid.
    await t.gateway.keys.update(ownerKey, { access: 'balance' });
    const paid = (await generate('local-image-pro')) as { item: { cost_usd: string } };
    expect(Number(paid.item.cost_usd)).toBeGreaterThan(0);
  });
});

describe("studio creations count against the owner's request windows", () => {
  it('images and videos spend a slot as over HTTP; the one over the window is refused 429 with Retry-After; reads spend none', async () => {
    const clock = { now: () => Date.parse('2026-11-21T10:00:00.000Z') }; // one second throughout
    const g = await startTestGateway({ background: false, clock, limits: { requests: { balance: { perSecond: 3 } } } });
    const s = await createStudio(g.gateway, { version: 'test' });
    try {
      await s.dispatch('billing.summary', {});
      await s.dispatch('gallery.list', {});
      await s.dispatch('images.generate', { model: 'local-image', prompt: 'a lantern', size: '256x256' });
      await s.dispatch('videos.create', { model: 'local-video', prompt: 'a lantern', seconds: 2 });
      await s.dispatch('images.generate', { model: 'local-image', prompt: 'a lantern', size: '256x256' });
      await expect(s.dispatch('images.generate', { model: 'local-image', prompt: 'a lantern', size: '256x256' })).rejects.toMatchObject({
        status: 429,
        code: 'rate_limit_exceeded',
        headers: expect.objectContaining({ 'retry-after': '1' }),
      });
      expect(g.gateway.access.peek(s.context.owner).remaining).toBe(0);
    } finally {
      s.dispose();
      await g.close();
    }
  });
});

describe('studio refusals cost no window slot', () => {
  it('a studio request refused 429 by the daily token quota gives its slot back, as over HTTP', async () => {
    const clock = { now: () => Date.parse('2026-11-21T10:00:00.000Z') }; // one second throughout
    const g = await startTestGateway({ background: false, clock, limits: { dailyTokens: { free: 10 } } });
    const s = await createStudio(g.gateway, { version: 'test' });
    try {
      await g.gateway.keys.update(s.context.owner.keyId, { access: 'free' });
      // Free access allows 2 creations per second; each of these is over the 10-token quota.
      for (let i = 0; i < 3; i++) {
        await expect(s.dispatch('images.generate', { model: 'local-image', prompt: 'a lantern', size: '256x256' }), `call ${i + 1}`).rejects.toMatchObject({
          status: 429,
          message: expect.stringMatching(/Daily token quota/),
        });
      }
      expect(g.gateway.access.peek({ ...s.context.owner, access: 'free' }).remaining).toBe(2);
    } finally {
      s.dispose();
      await g.close();
    }
  });
});
