// Owner operations on a stable-diffusion.cpp server: the connection test (what it reports about
// itself) and discovery (its one loaded model). Both read GET /sdcpp/v1/capabilities
// (routes_sdcpp.cpp, make_capabilities_json): {model: {name, stem, path}, supported_modes:
// ["img_gen", "vid_gen"], defaults_by_mode, output_formats_by_mode, features_by_mode: {img_gen:
// {init_image, ref_images, ...}, vid_gen: {...}}, limits: {max_queue_size, ...}}. A build without
// the native API lists a fixed "sd-cpp-local" at GET /v1/models (routes_openai.cpp): that is the
// fallback.
import { invalid } from '../../errors.js';
import type { ProviderTarget } from '../engine-kind.js';
import type { DiscoveredModel, ProviderCheck } from '../provider.js';
import { invalidResponse, UpstreamStatusError } from '../upstream/upstream-errors.js';
import { ENGINE } from './sdcpp-errors.js';
import { isObject, SDCPP_MAX_REFERENCES } from './sdcpp-mapping.js';

const CHECK_TIMEOUT_MS = 15_000;
/** The model id a server without the native API lists (routes_openai.cpp). */
const LEGACY_MODEL = 'sd-cpp-local';

/** What the server says about itself. */
interface Capabilities {
  model: string;
  /** null: a build without the native API, which says nothing of its modes. */
  modes: string[] | null;
  references: number;
  facts: ProviderCheck['facts'];
}

export async function checkSdcpp(target: ProviderTarget): Promise<ProviderCheck> {
  let caps: Capabilities;
  try {
    caps = await capabilities(target);
  } catch (error) {
    const message = error instanceof Error && error.name === 'GatewayError' ? error.message : `${ENGINE} could not be reached.`;
    return { ok: false, message, models: [], facts: [] };
  }
  const what = caps.modes === null ? 'an older build without its native API' : describeModes(caps.modes);
  return { ok: true, message: `Connected: ${ENGINE} has ${caps.model} loaded (${what}).`, models: [caps.model], facts: caps.facts };
}

/** Its one loaded model, as an image model; a server whose model only makes videos offers none to discover. */
export async function discoverSdcpp(target: ProviderTarget): Promise<DiscoveredModel[]> {
  const caps = await capabilities(target);
  if (caps.modes !== null && !caps.modes.includes('img_gen')) {
    throw invalid(
      `${ENGINE} has ${caps.model} loaded, which generates videos only: discovery adds image models; add its video model with mgw models put ID --provider ${target.id} --json '<video record>'.`,
      'id',
    );
  }
  // The file name without its extension, as the other engines' checkpoints are named.
  return [{ upstreamModel: caps.model, name: modelName(caps.model.replace(/\.(gguf|safetensors|ckpt|pth?|bin)$/i, '')) || LEGACY_MODEL, maxReferenceImages: caps.references }];
}

/** A model's file name as the tail of a catalog id: lowercase, [a-z0-9._-], starting and ending with a letter or digit. */
export function modelName(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, 100)
    .replace(/[^a-z0-9]+$/, '');
}

async function capabilities(target: ProviderTarget): Promise<Capabilities> {
  const base = target.baseUrl.replace(/\/+$/, '');
  let body: unknown;
  try {
    ({ body } = await target.http.json<unknown>({ method: 'GET', url: `${base}/sdcpp/v1/capabilities`, timeoutMs: CHECK_TIMEOUT_MS }));
  } catch (error) {
    if (error instanceof UpstreamStatusError && error.upstreamStatus === 404) return legacy(target, base);
    throw error;
  }
  if (!isObject(body) || !Array.isArray(body.supported_modes)) throw invalidResponse('the capabilities are not an object with supported_modes');
  const model = isObject(body.model) ? body.model : {};
  const name = [model.name, model.stem].find((v): v is string => typeof v === 'string' && v.trim() !== '') ?? LEGACY_MODEL;
  const modes = body.supported_modes.filter((m): m is string => typeof m === 'string');
  const features = isObject(body.features_by_mode) && isObject(body.features_by_mode.img_gen) ? body.features_by_mode.img_gen : {};
  const references = features.ref_images === true ? SDCPP_MAX_REFERENCES : features.init_image === true ? 1 : 0;
  const facts: ProviderCheck['facts'] = [{ label: 'Model', value: name }, { label: 'Generates', value: describeModes(modes) }];
  const defaults = isObject(body.defaults_by_mode) ? body.defaults_by_mode : {};
  const imageDefaults = isObject(defaults.img_gen) ? defaults.img_gen : isObject(defaults.vid_gen) ? defaults.vid_gen : {};
  if (typeof imageDefaults.width === 'number' && typeof imageDefaults.height === 'number') facts.push({ label: 'Default size', value: `${imageDefaults.width}x${imageDefaults.height}` });
  const steps = isObject(imageDefaults.sample_params) ? imageDefaults.sample_params.sample_steps : undefined;
  if (typeof steps === 'number') facts.push({ label: 'Default steps', value: String(steps) });
  if (modes.includes('img_gen')) facts.push({ label: 'Edit references', value: String(references) });
  const formats = isObject(body.output_formats_by_mode) ? body.output_formats_by_mode.vid_gen : undefined;
  if (Array.isArray(formats)) facts.push({ label: 'Video formats', value: formats.filter((f) => typeof f === 'string').join(', ') || 'none' });
  const limits = isObject(body.limits) ? body.limits : {};
  if (typeof limits.max_queue_size === 'number') facts.push({ label: 'Job queue', value: `${limits.max_queue_size} jobs` });
  return { model: name, modes, references, facts };
}

/** A build without /sdcpp/v1: its model list proves it answers; it says nothing more. */
async function legacy(target: ProviderTarget, base: string): Promise<Capabilities> {
  const { body } = await target.http.json<unknown>({ method: 'GET', url: `${base}/v1/models`, timeoutMs: CHECK_TIMEOUT_MS });
  const listed = isObject(body) && Array.isArray(body.data) ? body.data.find((m) => isObject(m) && typeof m.id === 'string') : undefined;
  if (!isObject(listed)) throw invalidResponse('the model list is malformed');
  const model = listed.id as string;
  return { model, modes: null, references: 1, facts: [{ label: 'Model', value: model }, { label: 'Native API', value: 'not served (an older build)' }] };
}

function describeModes(modes: string[]): string {
  const words = [modes.includes('img_gen') ? 'images' : null, modes.includes('vid_gen') ? 'videos' : null].filter((w) => w !== null);
  return words.length > 0 ? words.join(' and ') : 'nothing it reports';
}
