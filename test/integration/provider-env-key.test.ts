// A provider whose key is read from an environment variable (--api-key-env) that is unset, empty
// or holds what `providers add --api-key` refuses (a line break, a space, non-ASCII; no variable
// can hold a NUL): the provider list and the connection test say what is wrong with the variable
// (never its value), and a request through the provider is a 503 saying the owner's key is not
// usable, sent nowhere and billed nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USD } from '../helpers/gateway.js';
import { errorOf, postJson } from '../helpers/http.js';
import { startUpstreams, type UpstreamSetup } from '../helpers/upstreams.js';

const VALUE_MARK = 'LEAKME77';
const cases: [string, string | undefined, RegExp][] = [
  ['a line break at its end', `sk-${VALUE_MARK}\n`, /not usable: a key must be printable ASCII without spaces or line breaks/],
  ['a space', `sk-${VALUE_MARK} x`, /not usable/],
  ['a non-ASCII letter', `sk-${VALUE_MARK}é`, /not usable/],
  ['nothing (unset)', undefined, /which is not set in this process's environment/],
  ['nothing (empty)', '', /which is empty in this process's environment/],
];

let u: UpstreamSetup;
let key: { id: string; token: string; accountId: string };

beforeAll(async () => {
  u = await startUpstreams();
  key = await u.t.key('balance', { balanceNano: 50 * USD });
});
afterAll(async () => {
  cases.forEach((_c, i) => delete process.env[`MGW_TEST_ENV_KEY_${i}`]);
  await u.close();
});

describe.each(cases.map((c, i) => [...c, i] as const))('an env-named key holding %s', (_label, value, problem, i) => {
  const name = `MGW_TEST_ENV_KEY_${i}`;
  const ids = { openai: `env-openai-${i}`, fal: `env-fal-${i}` };

  beforeAll(async () => {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
    await u.t.gateway.providerConfigs.add({ id: ids.openai, kind: 'openai', baseUrl: u.openai.baseUrl, apiKeyEnv: name });
    await u.t.gateway.providerConfigs.add({ id: ids.fal, kind: 'fal', baseUrl: u.fal.baseUrl, apiKeyEnv: name });
    const image = structuredClone((await u.t.gateway.catalog.find('up-image'))!.record);
    await u.t.gateway.catalog.put({ record: { ...image, id: `${ids.openai}/image`, owned_by: ids.openai }, providerId: ids.openai, upstreamModel: 'gpt-image-1' });
    await u.t.gateway.catalog.put({ record: { ...image, id: `${ids.fal}/image`, owned_by: ids.fal }, providerId: ids.fal, upstreamModel: 'fal-ai/flux/dev' });
    const video = structuredClone((await u.t.gateway.catalog.find('up-video'))!.record);
    await u.t.gateway.catalog.put({ record: { ...video, id: `${ids.openai}/video`, owned_by: ids.openai }, providerId: ids.openai, upstreamModel: 'sora-2' });
  });

  it('the provider list names the variable and what is wrong, never the value', async () => {
    const listed = (await u.t.gateway.providerConfigs.list()).filter((p) => p.id === ids.openai || p.id === ids.fal);
    expect(listed).toHaveLength(2);
    for (const provider of listed) {
      expect(provider.key_source).toBe(`env:${name}`);
      expect(provider.key_problem).toMatch(problem);
      expect(provider.key_problem).toContain(name);
      expect(provider.key_problem).not.toContain(VALUE_MARK);
    }
  });

  it('the connection test fails saying so, without calling the upstream', async () => {
    const before = { openai: u.openai.requests.length, fal: u.fal.requests.length };
    for (const id of [ids.openai, ids.fal]) {
      const check = await u.t.gateway.providerAdmin.check(id);
      expect(check).toMatchObject({ ok: false, models: [] });
      expect(check.message).toMatch(problem);
      expect(check.message).not.toContain(VALUE_MARK);
    }
    expect({ openai: u.openai.requests.length, fal: u.fal.requests.length }).toEqual(before);
  });

  it.each([
    ['an image (openai)', 'openai', '/images/generations', 'image', { size: '1024x1024' }],
    ['an image (fal)', 'fal', '/images/generations', 'image', { size: '1024x1024' }],
    ['a video (openai)', 'openai', '/videos', 'video', { seconds: '4', size: '1280x720' }],
  ] as const)('a request for %s: 503 upstream_unavailable saying the key is not usable, logged without the value', async (_what, kind, path, model, extra) => {
    const id = ids[kind];
    const before = { openai: u.openai.requests.length, fal: u.fal.requests.length, balance: await u.t.gateway.billing.view(key.accountId), logs: u.logs.length };
    const response = await postJson(`${u.t.baseUrl}${path}`, { model: `${id}/${model}`, prompt: 'a lighthouse', ...extra }, key.token);
    expect(response.status).toBe(503);
    const error = errorOf(response);
    expect(error).toMatchObject({ code: 'upstream_unavailable', type: 'upstream_unavailable', param: null });
    expect(error.message).toBe(`The provider "${id}" behind this model has no usable API key; the gateway's owner must fix it (the Providers list says why).`);
    expect(response.text).not.toContain(VALUE_MARK);
    // Nothing reached an upstream, nothing was billed.
    expect({ openai: u.openai.requests.length, fal: u.fal.requests.length }).toEqual({ openai: before.openai, fal: before.fal });
    expect(await u.t.gateway.billing.view(key.accountId)).toEqual(before.balance);
    const logged = u.logs.slice(before.logs);
    const line = logged.find((l) => l.message === 'provider key is not usable');
    expect(line?.fields).toMatchObject({ provider: id });
    expect(String(line?.fields.problem)).toMatch(problem);
    expect(JSON.stringify(logged)).not.toContain(VALUE_MARK);
  });
});
