// Owner operations on an AUTOMATIC1111 / Forge engine: the connection test (what it has loaded,
// what GPU memory it has left) and discovery (one image model per checkpoint it lists).
// Routes and shapes from modules/api/api.py: /sdapi/v1/options (get_config: the options' data),
// /sdapi/v1/sd-models ([{title, model_name, hash, sha256, filename, config}]),
// /sdapi/v1/memory ({ram, cuda: {system: {free, used, total}} or {error}}).
import { GatewayError } from '../../errors.js';
import type { ProviderTarget } from '../engine-kind.js';
import type { DiscoveredModel, ProviderCheck } from '../provider.js';
import { invalidResponse, UpstreamStatusError } from '../upstream/upstream-errors.js';
import { apiNotServed, credentialsRefused } from './a1111-errors.js';
import { A1111_MAX_REFERENCES, isObject } from './a1111-mapping.js';
import { basicAuth } from './a1111-provider.js';

const CHECK_TIMEOUT_MS = 15_000;

export async function checkA1111(target: ProviderTarget): Promise<ProviderCheck> {
  let options: unknown;
  try {
    options = await get(target, '/sdapi/v1/options');
  } catch (error) {
    return { ok: false, message: checkFailure(target, error), models: [], facts: [] };
  }
  const opts = isObject(options) ? options : {};
  const facts: ProviderCheck['facts'] = [];
  // Forge's options carry its own forge_* settings; A1111's have none.
  facts.push({ label: 'Engine', value: Object.keys(opts).some((k) => k.startsWith('forge_')) ? 'Forge' : 'AUTOMATIC1111' });
  if (typeof opts.sd_model_checkpoint === 'string' && opts.sd_model_checkpoint !== '') facts.push({ label: 'Loaded checkpoint', value: opts.sd_model_checkpoint });
  const models = await get(target, '/sdapi/v1/sd-models').then(checkpointsOf, () => null);
  if (models) facts.push({ label: 'Checkpoints', value: String(models.length) });
  const vram = await get(target, '/sdapi/v1/memory').then(freeVram, () => null);
  if (vram) facts.push({ label: 'Free VRAM', value: vram });
  const listed = models ? `; ${models.length} checkpoint${models.length === 1 ? '' : 's'}` : '';
  const keyed = target.apiKey ? ' with the key' : '';
  return { ok: true, message: `Connected: the engine answers its API${keyed}${listed}.`, models: (models ?? []).map((m) => m.title), facts };
}

export async function discoverA1111(target: ProviderTarget): Promise<DiscoveredModel[]> {
  let listed: unknown;
  try {
    listed = await get(target, '/sdapi/v1/sd-models');
  } catch (error) {
    throw refusal(error);
  }
  const taken = new Set<string>();
  return checkpointsOf(listed).map((checkpoint, index) => {
    let name = checkpointName(checkpoint.model_name ?? fileStem(checkpoint.title)) || `checkpoint-${index + 1}`;
    for (let n = 2; taken.has(name); n++) name = `${checkpointName(checkpoint.model_name ?? fileStem(checkpoint.title))}-${n}`;
    taken.add(name);
    // The title is what sd_model_checkpoint takes (and stays one of its aliases once hashed).
    return { upstreamModel: checkpoint.title, name, maxReferenceImages: A1111_MAX_REFERENCES };
  });
}

/** A checkpoint's model_name as the tail of a catalog id: lowercase, [a-z0-9._-], starting with a letter or digit. */
export function checkpointName(modelName: string): string {
  return modelName
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .replace(/[^a-z0-9]+$/, '')
    .slice(0, 100)
    .replace(/[^a-z0-9]+$/, '');
}

/** "sub/name.safetensors [0123abcd]" -> "name". */
function fileStem(title: string): string {
  const base = title.replace(/\s*\[[0-9a-f]+\]\s*$/i, '').split(/[\\/]/).at(-1) ?? '';
  return base.replace(/\.[a-z0-9]+$/i, '');
}

interface Checkpoint {
  title: string;
  model_name: string | null;
}

function checkpointsOf(body: unknown): Checkpoint[] {
  if (!Array.isArray(body)) throw invalidResponse('the checkpoint list is not a list');
  return body
    .filter((item): item is Record<string, unknown> => isObject(item) && typeof item.title === 'string' && item.title !== '')
    .map((item) => ({ title: item.title as string, model_name: typeof item.model_name === 'string' ? item.model_name : null }));
}

/** "7.8 GiB of 24.0 GiB" from the CUDA system figures; null without a CUDA GPU (or an older engine). */
function freeVram(body: unknown): string | null {
  const system = isObject(body) && isObject(body.cuda) && isObject(body.cuda.system) ? body.cuda.system : null;
  if (!system || typeof system.free !== 'number' || typeof system.total !== 'number' || system.total <= 0) return null;
  const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GiB`;
  return `${gib(system.free)} of ${gib(system.total)}`;
}

async function get(target: ProviderTarget, path: string): Promise<unknown> {
  const url = `${target.baseUrl.replace(/\/+$/, '')}${path}`;
  return (await target.http.json<unknown>({ method: 'GET', url, headers: basicAuth(target.apiKey), timeoutMs: CHECK_TIMEOUT_MS })).body;
}

/** A failed call of an owner operation in plain words (the shared client's errors carry the status). */
function refusal(error: unknown): unknown {
  if (error instanceof UpstreamStatusError) {
    if (error.upstreamStatus === 401 || error.upstreamStatus === 403) return credentialsRefused();
    if (error.upstreamStatus === 404) return apiNotServed();
  }
  return error;
}

function checkFailure(target: ProviderTarget, error: unknown): string {
  if (error instanceof UpstreamStatusError) {
    if ((error.upstreamStatus === 401 || error.upstreamStatus === 403) && !target.apiKey) {
      return 'The engine asks for credentials (it runs with --api-auth): give the provider key as USER:PASS.';
    }
    const mapped = refusal(error);
    return mapped instanceof GatewayError ? mapped.message : error.message;
  }
  if (error instanceof GatewayError && error.code === 'upstream_unavailable') {
    // The shared client says why in brackets: "could not connect", "timed out"...
    const why = /\(([^()]*)\)\.?$/.exec(error.message)?.[1] ?? 'no answer';
    return `Could not reach the engine at ${target.baseUrl} (${why}): is it running?`;
  }
  return error instanceof GatewayError ? error.message : 'The engine could not be reached.';
}
