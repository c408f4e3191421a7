// Owner operations on Replicate: the connection test proves the key with GET /v1/account (free;
// answers {type, username, name, github_url} for the key's account, 401 for a wrong key:
// lib/accounts.js and the OpenAPI document), and discovery, which Replicate's catalogue of
// thousands of priced-per-run models does not lend itself to: the owner puts each model with its
// price (mgw models put).
import { GatewayError, invalid } from '../../errors.js';
import type { ProviderTarget } from '../engine-kind.js';
import type { DiscoveredModel, ProviderCheck } from '../provider.js';
import { invalidResponse } from '../upstream/upstream-errors.js';
import { isObject, REPLICATE } from './replicate-mapping.js';

const CHECK_TIMEOUT_MS = 15_000;

/** The API root of a base URL given with or without its /v1. */
export const apiRoot = (baseUrl: string): string => `${baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '')}/v1`;

export async function checkReplicate(target: ProviderTarget): Promise<ProviderCheck> {
  let body: unknown;
  try {
    ({ body } = await target.http.json<unknown>({
      method: 'GET',
      url: `${apiRoot(target.baseUrl)}/account`,
      headers: target.apiKey ? { authorization: `Bearer ${target.apiKey}` } : {},
      timeoutMs: CHECK_TIMEOUT_MS,
    }));
    if (!isObject(body) || typeof body.username !== 'string') throw invalidResponse('the account has no username');
  } catch (error) {
    const message = error instanceof GatewayError ? error.message : `${REPLICATE} could not be reached.`;
    return { ok: false, message, models: [], facts: [] };
  }
  const username = shown(body.username);
  const facts: ProviderCheck['facts'] = [{ label: 'Account', value: username }];
  if (typeof body.type === 'string') facts.push({ label: 'Account type', value: shown(body.type) });
  if (typeof body.name === 'string' && body.name.trim() !== '') facts.push({ label: 'Name', value: shown(body.name) });
  return { ok: true, message: `Connected: the key belongs to ${REPLICATE} account ${username}.`, models: [], facts };
}

export function discoverReplicate(target: ProviderTarget): Promise<DiscoveredModel[]> {
  return Promise.reject(
    invalid(
      `Provider ${target.id} (replicate) has no model listing the gateway can price; add each model with mgw models put ID --provider ${target.id} --upstream-model OWNER/NAME --json '<record with its price>'.`,
      'id',
    ),
  );
}

/** An account field as shown to the owner: printable, short. */
function shown(value: string): string {
  return value.replace(/[^\x20-\x7e\u00a0-\uffff]/g, '').trim().slice(0, 100) || '(unnamed)';
}
