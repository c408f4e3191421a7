// Owner operations on Runway: the connection test proves the key with GET /v1/organization
// (free: {creditBalance, tier: {maxMonthlyCreditSpend, models: {<model>: {maxConcurrentGenerations,
// maxDailyGenerations}}}, usage}: the SDK's resources/organization.ts; 401 for a wrong key), and
// discovery, which Runway's credit-priced models do not lend themselves to: the owner puts each
// model with its price (mgw models put); the test lists the models the key's tier may run.
import { GatewayError, invalid } from '../../errors.js';
import type { ProviderTarget } from '../engine-kind.js';
import type { DiscoveredModel, ProviderCheck } from '../provider.js';
import { invalidResponse } from '../upstream/upstream-errors.js';
import { runwayError } from './runway-errors.js';
import { apiRoot, isObject, RUNWAY, RUNWAY_VERSION } from './runway-mapping.js';

const CHECK_TIMEOUT_MS = 15_000;

export async function checkRunway(target: ProviderTarget): Promise<ProviderCheck> {
  let body: unknown;
  try {
    try {
      ({ body } = await target.http.json<unknown>({
        method: 'GET',
        url: `${apiRoot(target.baseUrl)}/organization`,
        headers: { ...(target.apiKey ? { authorization: `Bearer ${target.apiKey}` } : {}), 'x-runway-version': RUNWAY_VERSION },
        timeoutMs: CHECK_TIMEOUT_MS,
      }));
    } catch (error) {
      throw runwayError(error, 'check');
    }
    if (!isObject(body) || typeof body.creditBalance !== 'number') throw invalidResponse('the organization has no credit balance');
  } catch (error) {
    const message = error instanceof GatewayError ? error.message : `${RUNWAY} could not be reached.`;
    return { ok: false, message, models: [], facts: [] };
  }
  const tier = isObject(body.tier) ? body.tier : {};
  const models = isObject(tier.models) ? Object.keys(tier.models).map(shown).sort() : [];
  const facts: ProviderCheck['facts'] = [{ label: 'Credit balance', value: `${body.creditBalance} credits` }];
  if (typeof tier.maxMonthlyCreditSpend === 'number') facts.push({ label: 'Monthly credit limit', value: `${tier.maxMonthlyCreditSpend} credits` });
  if (models.length > 0) facts.push({ label: 'Models of its tier', value: String(models.length) });
  return { ok: true, message: `Connected: the key works; its ${RUNWAY} organization has ${body.creditBalance} credits.`, models, facts };
}

export function discoverRunway(target: ProviderTarget): Promise<DiscoveredModel[]> {
  return Promise.reject(
    invalid(
      `Provider ${target.id} (runway) has no model listing the gateway can price; add each model with mgw models put ID --provider ${target.id} --upstream-model MODEL (gen4_image, gen4_turbo...) --json '<record with its price>' (mgw providers test ${target.id} lists the models its key may run).`,
      'id',
    ),
  );
}

/** A name as shown to the owner: printable, short. */
function shown(value: string): string {
  return value.replace(/[^\x20-\x7e]/g, '').slice(0, 60) || '(unnamed)';
}
