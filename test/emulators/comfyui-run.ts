// What each known node does when the ComfyUI emulator executes it: tensors are replaced by their
// sizes, and output nodes write real files named and reported as the real nodes do:
//  - latent sizes: EmptyLatentImage [b, 4, h//8, w//8]; EmptyHunyuanLatentVideo t=(length-1)//4+1
//    at /8; EmptyLTXVLatentVideo t=(length-1)//8+1 at /32; VAE decode gives (t-1)*k+1 frames of
//    (h//s)*s x (w//s)*s; VAEEncode crops pixels to multiples of 8 (vae_encode_crop_pixels);
//  - SaveImage: `${prefix}_${counter:05}_.png`, ui {images: [{filename, subfolder, type}]}
//    (PreviewImage: prefix + '_temp_xxxxx', type temp); SaveVideo / SaveWEBM: ui.PreviewVideo
//    {images: [...], animated: [true]}; VHS_VideoCombine: `${prefix}_${counter:05}.${ext}` plus the
//    first frame as .png, ui {gifs: [{filename, subfolder, type, format, frame_rate, workflow,
//    fullpath}]}, and a progress tick per frame.
import sharp from 'sharp';
import { posix } from 'node:path';
import type { NodeDef } from './comfyui-nodes.js';
import { VHS_FORMATS } from './comfyui-nodes.js';
import type { FileStore, FolderType } from './comfyui-files.js';
import { pngWithText, stillImage, videoMp4, webmBytes } from './comfyui-media.js';
import { PyError, pyRepr } from './comfyui-python.js';

export type Value =
  | { kind: 'MODEL' | 'CLIP' | 'VAE'; ckpt: string }
  | { kind: 'CONDITIONING'; text: string }
  | { kind: 'LATENT'; width: number; height: number; length: number; batch: number; spatial: number; temporal: number; seed: number }
  | { kind: 'IMAGE'; width: number; height: number; count: number; seed: number }
  | { kind: 'MASK'; width: number; height: number }
  | { kind: 'VIDEO'; width: number; height: number; frames: number; fps: number; seed: number }
  | { kind: 'VHS_FILENAMES'; saveOutput: boolean; files: string[] };

export interface NodeCall {
  id: string;
  def: NodeDef;
  /** Constants as validated, linked inputs as the upstream node's Value. */
  args: Record<string, unknown>;
  prompt: unknown;
  extraData: Record<string, unknown>;
  store: FileStore;
  /** The sampler loop: per-step delay, faults, progress and previews (comfy.utils.ProgressBar). */
  sample(steps: number, latent: Extract<Value, { kind: 'LATENT' }>): Promise<void>;
  /** ProgressBar.update_absolute(value, total) from a non-sampler node. */
  progress(value: number, total: number): Promise<void>;
  random: () => number;
}

export interface NodeResult {
  outputs: Value[];
  ui?: Record<string, unknown>;
}

type Latent = Extract<Value, { kind: 'LATENT' }>;
type Image = Extract<Value, { kind: 'IMAGE' }>;
const n = (value: unknown) => Number(value);
const pad5 = (counter: number) => String(counter).padStart(5, '0');

function latent(width: number, height: number, length: number, batch: number, spatial: number, temporal: number): NodeResult {
  return { outputs: [{ kind: 'LATENT', width, height, length, batch, spatial, temporal, seed: 0 }] };
}

function decode(value: Latent): Image {
  const frames = (value.length - 1) * value.temporal + 1;
  return { kind: 'IMAGE', width: value.width * value.spatial, height: value.height * value.spatial, count: value.batch * frames, seed: value.seed };
}

/** folder_paths.get_save_image_path: %width%/%height%/%year%... then subfolder and basename. */
function savePath(prefix: string, width: number, height: number): { subfolder: string; filename: string } {
  const now = new Date();
  const two = (v: number) => String(v).padStart(2, '0');
  const computed = prefix.includes('%')
    ? prefix.replaceAll('%width%', String(width)).replaceAll('%height%', String(height)).replaceAll('%year%', String(now.getFullYear()))
        .replaceAll('%month%', two(now.getMonth() + 1)).replaceAll('%day%', two(now.getDate())).replaceAll('%hour%', two(now.getHours()))
        .replaceAll('%minute%', two(now.getMinutes())).replaceAll('%second%', two(now.getSeconds()))
    : prefix;
  const normal = posix.normalize(computed || '.').replace(/(.)\/$/, '$1');
  const subfolder = posix.dirname(normal) === '.' ? '' : posix.dirname(normal);
  if (normal.startsWith('/') || subfolder === '..' || subfolder.startsWith('../')) {
    throw new PyError('Exception', `**** ERROR: Saving image outside the output folder is not allowed.\n full_output_folder: ${posix.join('/opt/ComfyUI/output', subfolder)}\n         output_dir: /opt/ComfyUI/output`);
  }
  return { subfolder, filename: posix.basename(normal) };
}

function pngText(call: NodeCall): Record<string, unknown> {
  const text: Record<string, unknown> = { prompt: call.prompt };
  const extra = call.extraData.extra_pnginfo;
  if (extra && typeof extra === 'object' && !Array.isArray(extra)) Object.assign(text, extra);
  return text;
}

function saveImages(call: NodeCall, type: FolderType, prefix: string): NodeResult {
  const images = call.args.images as Image;
  const { subfolder, filename } = savePath(prefix, images.width, images.height);
  let counter = call.store.nextCounter(type, subfolder, filename);
  const results = [];
  for (let batch = 0; batch < images.count; batch++) {
    const file = `${filename.replaceAll('%batch_num%', String(batch))}_${pad5(counter)}_.png`;
    call.store.put(type, subfolder ? `${subfolder}/${file}` : file, pngWithText(images.width, images.height, images.seed + batch, pngText(call)));
    results.push({ filename: file, subfolder, type });
    counter++;
  }
  return { outputs: [], ui: { images: results } };
}

function saveVideoFile(call: NodeCall, prefix: string, width: number, height: number, extension: string, bytes: () => Buffer): Record<string, unknown> {
  const { subfolder, filename } = savePath(prefix, width, height);
  const counter = call.store.nextCounter('output', subfolder, filename);
  const file = `${filename}_${pad5(counter)}_.${extension}`;
  call.store.put('output', subfolder ? `${subfolder}/${file}` : file, bytes());
  return { images: [{ filename: file, subfolder, type: 'output' }], animated: [true] };
}

const TEMP_LETTERS = 'abcdefghijklmnopqrstupvxyz';

export const NODE_RUNS: Record<string, (call: NodeCall) => Promise<NodeResult>> = {
  CheckpointLoaderSimple: async ({ args }) => {
    const ckpt = String(args.ckpt_name);
    return { outputs: [{ kind: 'MODEL', ckpt }, { kind: 'CLIP', ckpt }, { kind: 'VAE', ckpt }] };
  },
  CLIPTextEncode: async ({ args }) => ({ outputs: [{ kind: 'CONDITIONING', text: String(args.text) }] }),
  EmptyLatentImage: async ({ args }) => latent(Math.floor(n(args.width) / 8), Math.floor(n(args.height) / 8), 1, n(args.batch_size ?? 1), 8, 1),
  EmptyHunyuanLatentVideo: async ({ args }) =>
    latent(Math.floor(n(args.width) / 8), Math.floor(n(args.height) / 8), Math.floor((n(args.length) - 1) / 4) + 1, n(args.batch_size ?? 1), 8, 4),
  EmptyLTXVLatentVideo: async ({ args }) =>
    latent(Math.floor(n(args.width) / 32), Math.floor(n(args.height) / 32), Math.floor((n(args.length) - 1) / 8) + 1, n(args.batch_size ?? 1), 32, 8),
  KSampler: async (call) => {
    const input = call.args.latent_image as Latent;
    const denoise = n(call.args.denoise ?? 1);
    await call.sample(denoise > 0 ? n(call.args.steps) : 0, input);
    return { outputs: [{ ...input, seed: n(call.args.seed) }] };
  },
  VAEDecode: async ({ args }) => ({ outputs: [decode(args.samples as Latent)] }),
  VAEEncode: async ({ args }) => {
    const pixels = args.pixels as Image;
    return { outputs: [{ kind: 'LATENT', width: Math.floor(pixels.width / 8), height: Math.floor(pixels.height / 8), length: 1, batch: pixels.count, spatial: 8, temporal: 1, seed: pixels.seed }] };
  },
  ImageScale: async ({ args }) => {
    // nodes.py ImageScale.upscale: 0 keeps the aspect ratio from the other side; both 0 keep the image.
    const image = args.image as Image;
    let width = n(args.width);
    let height = n(args.height);
    if (width === 0 && height === 0) return { outputs: [image] };
    if (width === 0) width = Math.max(1, Math.round((image.width * height) / image.height));
    else if (height === 0) height = Math.max(1, Math.round((image.height * width) / image.width));
    return { outputs: [{ ...image, width, height }] };
  },
  LatentBlend: async ({ args }) => {
    // samples_out = samples1.copy(): the blend has the first latent's shape.
    const [first, second] = [args.samples1 as Latent, args.samples2 as Latent];
    return { outputs: [{ ...first, seed: (first.seed * 31 + second.seed) >>> 0 }] };
  },
  LoadImage: async ({ args, store }) => {
    const name = String(args.image);
    const file = store.resolveAnnotated(name);
    const path = `/opt/ComfyUI/input/${name}`;
    if (!file) throw new PyError('FileNotFoundError', `[Errno 2] No such file or directory: ${pyRepr(path)}`);
    let meta;
    try {
      meta = await sharp(file.bytes).metadata();
    } catch {
      throw new PyError('PIL.UnidentifiedImageError', `cannot identify image file ${pyRepr(path)}`);
    }
    // ImageOps.exif_transpose: orientations 5-8 swap width and height.
    const swap = (meta.orientation ?? 1) >= 5;
    const width = swap ? meta.height! : meta.width!;
    const height = swap ? meta.width! : meta.height!;
    const seed = file.bytes.reduce((acc, byte) => (acc * 31 + byte) >>> 0, 7);
    return { outputs: [{ kind: 'IMAGE', width, height, count: 1, seed }, { kind: 'MASK', width: 64, height: 64 }] };
  },
  SaveImage: async (call) => saveImages(call, 'output', String(call.args.filename_prefix ?? 'ComfyUI')),
  PreviewImage: async (call) => {
    const suffix = Array.from({ length: 5 }, () => TEMP_LETTERS[Math.floor(call.random() * TEMP_LETTERS.length)]).join('');
    return saveImages(call, 'temp', `ComfyUI_temp_${suffix}`);
  },
  CreateVideo: async ({ args }) => {
    const images = args.images as Image;
    return { outputs: [{ kind: 'VIDEO', width: images.width, height: images.height, frames: images.count, fps: n(args.fps), seed: images.seed }] };
  },
  SaveVideo: async (call) => {
    const video = call.args.video as Extract<Value, { kind: 'VIDEO' }>;
    const format = String(call.args.format ?? 'auto');
    if (!['auto', 'mp4'].includes(format)) throw new PyError('ValueError', `${pyRepr(format)} is not a valid VideoContainer`);
    if (!['auto', 'h264'].includes(String(call.args.codec ?? 'auto'))) throw new PyError('ValueError', 'Only H264 codec is supported for now');
    const ui = saveVideoFile(call, String(call.args.filename_prefix ?? 'video/ComfyUI'), video.width, video.height, 'mp4', () => videoMp4(video.width, video.height, video.frames, video.fps));
    return { outputs: [], ui };
  },
  SaveWEBM: async (call) => {
    const images = call.args.images as Image;
    const codec = String(call.args.codec);
    if (codec !== 'vp9' && codec !== 'av1') throw new PyError('KeyError', pyRepr(codec));
    const ui = saveVideoFile(call, String(call.args.filename_prefix ?? 'ComfyUI'), images.width, images.height, 'webm', () =>
      webmBytes(images.width, images.height, images.count, n(call.args.fps), codec === 'av1' ? 'V_AV1' : 'V_VP9'));
    return { outputs: [], ui };
  },
  VHS_VideoCombine: async (call) => {
    const input = call.args.images as Image | Latent | undefined;
    const saveOutput = call.args.save_output !== false;
    if (!input) return { outputs: [{ kind: 'VHS_FILENAMES', saveOutput, files: [] }] };
    const images = input.kind === 'LATENT' ? decode(input) : input;
    const format = String(call.args.format ?? 'image/gif');
    const spec = VHS_FORMATS[format] ?? { extension: format.split('/')[1] ?? 'bin', kind: 'other' as const };
    const frameRate = n(call.args.frame_rate);
    const type: FolderType = saveOutput ? 'output' : 'temp';
    const { subfolder, filename } = savePath(String(call.args.filename_prefix ?? 'AnimateDiff'), 0, 0);
    const counter = call.store.vhsCounter(type, subfolder, filename);
    const at = (file: string) => (subfolder ? `${subfolder}/${file}` : file);
    const firstFrame = `${filename}_${pad5(counter)}.png`;
    call.store.put(type, at(firstFrame), pngWithText(images.width, images.height, images.seed, pngText(call)));
    for (let frame = 1; frame <= images.count; frame++) await call.progress(frame, images.count);
    const file = `${filename}_${pad5(counter)}.${spec.extension}`;
    const bytes =
      spec.kind === 'mp4' ? videoMp4(images.width, images.height, images.count, frameRate)
      : spec.kind === 'webm' ? webmBytes(images.width, images.height, images.count, frameRate)
      : spec.kind === 'gif' || spec.kind === 'webp' ? await stillImage(spec.kind, images.width, images.height, images.seed)
      : Buffer.from(`emulator placeholder for ${format}\n`);
    call.store.put(type, at(file), bytes);
    const fullpath = call.store.fullPath(type, at(file));
    const preview = { filename: file, subfolder, type, format, frame_rate: frameRate, workflow: firstFrame, fullpath };
    return { outputs: [{ kind: 'VHS_FILENAMES', saveOutput, files: [call.store.fullPath(type, at(firstFrame)), fullpath] }], ui: { gifs: [preview] } };
  },
};

/** execution.py format_value for a Value: str() of the Python object it stands for. */
export function formatValue(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'object' || !('kind' in (value as object))) return typeof value === 'object' ? pyRepr(value) : value;
  const v = value as Value;
  const address = '0x7f3a5c1e2b90';
  switch (v.kind) {
    case 'MODEL': return `<comfy.model_patcher.ModelPatcher object at ${address}>`;
    case 'CLIP': return `<comfy.sd.CLIP object at ${address}>`;
    case 'VAE': return `<comfy.sd.VAE object at ${address}>`;
    case 'CONDITIONING': return '[[tensor([[[-0.3884,  0.0229, -0.0522,  ..., -0.4899, -0.3066,  0.0675]]]), {\'pooled_output\': tensor([[ 0.0230, -0.1233, ...]])}]]';
    case 'LATENT': return `{'samples': tensor([[[[0., 0., 0.,  ..., 0., 0., 0.]]]])}`;
    default: return `tensor([[[[0.5020, 0.5020, 0.5020], ...]]])`;
  }
}
