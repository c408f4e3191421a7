// Owner operations on a ComfyUI engine. The connection test reads GET /system_stats (server.py:
// system.comfyui_version, python_version, pytorch_version; devices[] with name, vram_total,
// vram_free in bytes). Discovery lists the checkpoints from GET /models/checkpoints (a list of
// file names, subfolders joined with the OS separator), or, on an engine without that route,
// from the ckpt_name input of GET /object_info/CheckpointLoaderSimple, which is either the old
// combo form [[names...], {options}] or the new one ["COMBO", {"options": [names...]}]
// (comfy_api/latest/_io.py Combo.Input.as_dict, add_to_dict_v1).
import { GatewayError } from '../../errors.js';
import type { ProviderTarget } from '../engine-kind.js';
import type { DiscoveredModel, ProviderCheck } from '../provider.js';
import { UpstreamStatusError } from '../upstream/upstream-errors.js';
import { isObject } from './comfyui-checks.js';
import { ComfyEngine } from './comfyui-engine.js';
import { cleanText } from './comfyui-errors.js';
import { BUILT_IN_MAX_REFERENCES } from './comfyui-workflow.js';

const ADMIN_TIMEOUT_MS = 15_000;
const CHECKPOINT_EXTENSIONS = /\.(safetensors|sft|ckpt|pt|pth|bin|gguf)$/i;

const engineOf = (target: ProviderTarget): ComfyEngine => new ComfyEngine(target.baseUrl.replace(/\/+$/, ''), target.http);

export async function checkComfy(target: ProviderTarget): Promise<ProviderCheck> {
  let stats: unknown;
  try {
    stats = await engineOf(target).systemStats(ADMIN_TIMEOUT_MS);
  } catch (error) {
    if (error instanceof UpstreamStatusError && error.upstreamStatus === 404) {
      return { ok: false, message: 'The server answered, but not as ComfyUI: it has no /system_stats.', models: [], facts: [] };
    }
    throw error;
  }
  if (!isObject(stats)) return { ok: false, message: 'The server answered /system_stats with something that is not ComfyUI\u2019s system stats.', models: [], facts: [] };
  const system = isObject(stats.system) ? stats.system : {};
  const devices = Array.isArray(stats.devices) ? stats.devices.filter(isObject) : [];
  const version = cleanText(system.comfyui_version, 40) || 'unknown version';
  const facts: ProviderCheck['facts'] = [{ label: 'ComfyUI', value: version }];
  const python = cleanText(system.python_version, 200).split(' ')[0];
  if (python) facts.push({ label: 'Python', value: python });
  const torch = cleanText(system.pytorch_version, 40);
  if (torch) facts.push({ label: 'PyTorch', value: torch });
  const gpus = devices.map((device) => deviceName(device.name));
  devices.forEach((device, i) => {
    const label = devices.length > 1 ? `GPU ${i + 1}` : 'GPU';
    facts.push({ label, value: gpus[i]! });
    if (typeof device.vram_total === 'number' && device.vram_total > 0) {
      const free = typeof device.vram_free === 'number' ? device.vram_free : 0;
      facts.push({ label: devices.length > 1 ? `VRAM ${i + 1}` : 'VRAM', value: `${bytes(free)} free of ${bytes(device.vram_total)}` });
    }
  });
  const models = await listCheckpoints(target).catch(() => []);
  facts.push({ label: 'Checkpoints', value: String(models.length) });
  const on = gpus.length > 0 ? gpus.join(', ') : 'an unknown device';
  return { ok: true, message: `Connected: ComfyUI ${version} on ${on}.`, models, facts };
}

export async function discoverComfy(target: ProviderTarget): Promise<DiscoveredModel[]> {
  const taken = new Set<string>();
  const models: DiscoveredModel[] = [];
  for (const checkpoint of await listCheckpoints(target)) {
    const base = modelName(checkpoint);
    if (!base) continue;
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base}-${n}`;
    taken.add(name);
    models.push({ upstreamModel: checkpoint, name, maxReferenceImages: BUILT_IN_MAX_REFERENCES });
  }
  return models;
}

/** The checkpoint file names, from /models/checkpoints or, failing that, CheckpointLoaderSimple's combo. */
export async function listCheckpoints(target: ProviderTarget): Promise<string[]> {
  const engine = engineOf(target);
  try {
    const listed = await engine.get('/models/checkpoints', ADMIN_TIMEOUT_MS);
    if (Array.isArray(listed)) return listed.filter((name): name is string => typeof name === 'string' && name !== '');
  } catch (error) {
    // An engine that is down is down for the fallback too.
    if (error instanceof GatewayError && error.code === 'upstream_unavailable' && !(error instanceof UpstreamStatusError)) throw error;
  }
  const info = await engine.get('/object_info/CheckpointLoaderSimple', ADMIN_TIMEOUT_MS);
  const names = comboOptions(info);
  if (!names) throw new GatewayError('upstream_invalid_response', 'ComfyUI did not list its checkpoints (no /models/checkpoints, and no ckpt_name choices on CheckpointLoaderSimple).');
  return names;
}

/** ckpt_name's choices in either combo form; null when neither is there. */
export function comboOptions(info: unknown): string[] | null {
  const node = isObject(info) && isObject(info.CheckpointLoaderSimple) ? info.CheckpointLoaderSimple : null;
  const input = node && isObject(node.input) ? node.input : null;
  const spec = input && isObject(input.required) ? input.required.ckpt_name : undefined;
  if (!Array.isArray(spec)) return null;
  const [type, options] = spec;
  // Old form: the type is the list of choices itself.
  if (Array.isArray(type)) return type.filter((name): name is string => typeof name === 'string' && name !== '');
  if (type === 'COMBO' && isObject(options) && Array.isArray(options.options)) return options.options.filter((name): name is string => typeof name === 'string' && name !== '');
  return null;
}

/**
 * A catalog-safe name for a checkpoint file: lowercase [a-z0-9._-], extension dropped, and the
 * subfolders joined with "-" ("SDXL/Juggernaut XL.safetensors" -> "sdxl-juggernaut-xl"), so two
 * files of one name in different folders stay two models.
 */
export function modelName(checkpoint: string): string {
  return checkpoint
    .replace(CHECKPOINT_EXTENSIONS, '')
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 120);
}

/** "cuda:0 NVIDIA GeForce RTX 4090 : cudaMallocAsync" (model_management.get_torch_device_name) -> "NVIDIA GeForce RTX 4090". */
function deviceName(value: unknown): string {
  const name = cleanText(value, 120)
    .replace(/\s+:\s*\S*$/, '')
    .replace(/^(cuda|xpu|npu|mlu):\d+\s+/i, '')
    .replace(/^CUDA \S+: /, '');
  return name || 'unknown device';
}

function bytes(value: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let amount = value;
  let unit = 0;
  while (amount >= 1024 && unit < units.length - 1) {
    amount /= 1024;
    unit++;
  }
  return `${amount >= 10 || unit === 0 ? Math.round(amount) : amount.toFixed(1)} ${units[unit]}`;
}
