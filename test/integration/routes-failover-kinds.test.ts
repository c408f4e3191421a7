// Failover reads every adapter's errors the same way. The Gemini API, AUTOMATIC1111 and the
// stable-diffusion.cpp server each say a refusal again in their own words; a 429, a 5xx or the
// provider's own unavailability must still pass the request to the next route (and count against
// the first's health), while a refusal of the request itself is answered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startA1111Emulator, type A1111Emulator } from '../emulators/a1111-emulator.js';
import { startGeminiEmulator, type GeminiEmulator } from '../emulators/gemini-emulator.js';
import { startOpenAIEmulator, type OpenAIEmulator } from '../emulators/openai-emulator.js';
import { startSdcppEmulator, type SdcppEmulator } from '../emulators/sdcpp-emulator.js';
import { startTestGateway, USD, type TestGateway } from '../helpers/gateway.js';
import { decodeB64 } from '../helpers/images.js';
import { postJson } from '../helpers/http.js';
import type { Fault, FaultRoute } from '../emulators/types.js';

let t: TestGateway;
let gemini: GeminiEmulator;
let a1111: A1111Emulator;
let sdcpp: SdcppEmulator;
let second: OpenAIEmulator;
let key: { id: string; token: string; accountId: string };

const injectors: Record<string, (route: FaultRoute, fault: Fault) => void> = {};
const posts = () => second.requests.filter((r) => r.method === 'POST' && r.path === '/v1/images/generations').length;

beforeAll(async () => {
  t = await startTestGateway({ circuitBreaker: { failures: 3, skipSeconds: 30 } });
  [gemini, a1111, sdcpp, second] = await Promise.all([startGeminiEmulator(), startA1111Emulator({ flavor: 'forge' }), startSdcppEmulator(), startOpenAIEmulator({ exactSize: true })]);
  injectors.gem = (route, fault) => gemini.inject(route as never, fault);
  injectors.a1 = (route, fault) => a1111.inject(route as never, fault);
  injectors.sd = (route, fault) => sdcpp.inject(route as never, fault);
  await t.gateway.providerConfigs.add({ id: 'gem', kind: 'gemini', baseUrl: gemini.origin, apiKey: gemini.apiKey });
  await t.gateway.providerConfigs.add({ id: 'a1', kind: 'a1111', baseUrl: a1111.origin });
  await t.gateway.providerConfigs.add({ id: 'sd', kind: 'sdcpp', baseUrl: sdcpp.origin });
  await t.gateway.providerConfigs.add({ id: 'second', kind: 'openai', baseUrl: second.baseUrl, apiKey: second.apiKey });
  const [checkpoint] = (await t.gateway.providerAdmin.discover('a1')).added;
  const a1Upstream = (await t.gateway.catalog.find(checkpoint!))!.routes[0]!.upstreamModel;
  const base = structuredClone((await t.gateway.catalog.find('local-image'))!.record);
  const record = { ...base, owned_by: 'routes', capabilities: { ...base.capabilities, supported_sizes: ['1024x1024'] } };
  const upstream: Record<string, string> = { gem: 'gemini-2.5-flash-image', a1: a1Upstream, sd: 'sd_xl_base_1.0' };
  for (const id of ['gem', 'a1', 'sd']) {
    await t.gateway.catalog.put({ record: { ...record, id: `via-${id}` }, routes: [{ providerId: id, upstreamModel: upstream[id]! }, { providerId: 'second', upstreamModel: 'gpt-image-1' }] });
  }
  key = await t.key('balance', { balanceNano: 100 * USD });
}, 30_000);

afterAll(async () => {
  await t?.close();
  await Promise.all([gemini?.close(), a1111?.close(), sdcpp?.close(), second?.close()]);
});

const generate = (model: string) => postJson(`${t.baseUrl}/images/generations`, { model, prompt: 'a lighthouse at dusk', size: '1024x1024' }, key.token);

async function lastActivity() {
  await t.gateway.activity.flush();
  const [entry] = await t.gateway.activity.recent(1);
  return entry!;
}

// First, while every breaker is closed: three failures in a row below open the Gemini route's.
describe('a refusal of the request itself, from another kind', () => {
  it('is answered, and the second route is never asked', async () => {
    injectors.gem!('POST generateContent', { status: 400, body: JSON.stringify({ error: { code: 400, status: 'INVALID_ARGUMENT', message: 'Invalid value at contents' } }), times: 1 });
    const before = posts();
    const response = await generate('via-gem');
    expect(response.status).toBe(400);
    expect((response.body as { error: { code: string } }).error.code).toBe('upstream_bad_request');
    expect(posts()).toBe(before);
  });
});

describe('the first route, of another kind, fails before doing any work: the second serves', () => {
  it.each([
    ['the Gemini API', 'gem', 'POST generateContent', { status: 429, body: JSON.stringify({ error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: 'quota' } }) }, 'rate limited (429)'],
    ['the Gemini API', 'gem', 'POST generateContent', { status: 503, body: JSON.stringify({ error: { code: 503, status: 'UNAVAILABLE', message: 'overloaded' } }) }, 'unavailable (503)'],
    ['the Gemini API', 'gem', 'POST generateContent', { status: 400, body: JSON.stringify({ error: { code: 400, status: 'FAILED_PRECONDITION', message: 'User location is not supported' } }) }, 'unavailable (400)'],
    // An exception in the engine: A1111 and Forge answer 500 with their exception body.
    ['AUTOMATIC1111/Forge', 'a1', 'POST /sdapi/v1/txt2img', { status: 503 }, 'unavailable (500)'],
    ['AUTOMATIC1111/Forge', 'a1', 'POST /sdapi/v1/txt2img', { status: 429 }, 'rate limited (429)'],
    ['stable-diffusion.cpp', 'sd', 'POST /v1/images/generations', { status: 429, body: JSON.stringify({ error: 'queue full' }) }, 'rate limited (429)'],
    ['stable-diffusion.cpp', 'sd', 'POST /v1/images/generations', { status: 500, body: JSON.stringify({ error: 'generate_image returned no results' }) }, 'unavailable (500)'],
  ] as const)('%s (%s: %s %j)', async (_name, provider, route, fault, reason) => {
    injectors[provider]!(route, { ...fault, times: 1 });
    const before = posts();
    const response = await generate(`via-${provider}`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const body = response.body as { data: { b64_json: string }[]; usage: { cost_usd: string } };
    expect(await decodeB64(body.data[0]!.b64_json)).toMatchObject({ format: 'png', width: 1024, height: 1024 });
    expect(posts()).toBe(before + 1);
    expect(await lastActivity()).toMatchObject({ model: `via-${provider}`, status: 200, route: 'second', failed_routes: [{ provider, reason }] });
    expect((await t.gateway.billing.activeHolds(key.accountId)).length).toBe(0);
  });
});

describe('health', () => {
  it('three failures in a row of another kind open its breaker: the next request goes straight to the second', async () => {
    // A success of its own first: the count starts from zero.
    const served = await generate('via-sd');
    expect(await lastActivity()).toMatchObject({ status: 200, route: 'sd' });
    expect(served.status).toBe(200);
    for (let i = 0; i < 3; i++) {
      injectors.sd!('POST /v1/images/generations', { status: 503, times: 1 });
      expect((await generate('via-sd')).status).toBe(200);
    }
    const sdCalls = () => sdcpp.requests.filter((r) => r.method === 'POST' && r.path === '/v1/images/generations').length;
    const before = sdCalls();
    expect((await generate('via-sd')).status).toBe(200);
    expect(sdCalls()).toBe(before);
    expect(t.gateway.health.report().find((p) => p.provider === 'sd')).toMatchObject({ state: 'skipped', consecutive_failures: 3 });
  });
});
