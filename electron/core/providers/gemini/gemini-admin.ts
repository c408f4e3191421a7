// Owner operations on the Gemini API: the connection test proves the key with a free call,
// GET {api}/models?pageSize=1 (models.list: {models: [{name, ...}], nextPageToken}; a wrong key
// is a 400 API_KEY_INVALID, no key a 403), and discovery, which a catalogue of models priced per
// token or per second does not lend itself to: the owner puts each model with its price.
import { GatewayError, invalid } from '../../errors.js';
import type { ProviderTarget } from '../engine-kind.js';
import type { DiscoveredModel, ProviderCheck } from '../provider.js';
import { invalidResponse } from '../upstream/upstream-errors.js';
import { GEMINI, geminiError } from './gemini-errors.js';
import { apiRoot } from './gemini-mapping.js';
import { isJsonObject } from './gemini-templates.js';

const CHECK_TIMEOUT_MS = 15_000;

export async function checkGemini(target: ProviderTarget): Promise<ProviderCheck> {
  let body: unknown;
  try {
    try {
      ({ body } = await target.http.json<unknown>({
        method: 'GET',
        url: `${apiRoot(target.baseUrl)}/models?pageSize=1`,
        headers: target.apiKey ? { 'x-goog-api-key': target.apiKey } : {},
        timeoutMs: CHECK_TIMEOUT_MS,
      }));
    } catch (error) {
      throw geminiError(error, 'check');
    }
    if (!isJsonObject(body) || !Array.isArray(body.models)) throw invalidResponse('the model list has no models');
  } catch (error) {
    const message = error instanceof GatewayError ? error.message : `${GEMINI} could not be reached.`;
    return { ok: false, message, models: [], facts: [] };
  }
  return { ok: true, message: `Connected: ${GEMINI} accepted the key.`, models: [], facts: [{ label: 'API version', value: 'v1beta' }] };
}

export function discoverGemini(target: ProviderTarget): Promise<DiscoveredModel[]> {
  return Promise.reject(
    invalid(
      `Provider ${target.id} (gemini) has no model listing the gateway can price; add each model with mgw models put ID --provider ${target.id} --upstream-model gemini-2.5-flash-image --json '<record with its price>' (a Veo model with capabilities.video_generation).`,
      'id',
    ),
  );
}
