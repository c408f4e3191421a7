/** One sharp stage per parsed edit operation. */
import type { EditOp, ResizeSpec, TintColour } from './edit-parse.js';
import { clampSize, stage, type RawImage } from './raw-image.js';
import { EDIT_MAX_SIDE } from './types.js';

type Matrix3 = [[number, number, number], [number, number, number], [number, number, number]];

/** Rec. 709 luma in every row: R = G = B exactly, and the image stays 3-channel. */
const LUMA: Matrix3 = [
  [0.2126, 0.7152, 0.0722],
  [0.2126, 0.7152, 0.0722],
  [0.2126, 0.7152, 0.0722],
];

const SEPIA: Matrix3 = [
  [0.393, 0.769, 0.189],
  [0.349, 0.686, 0.168],
  [0.272, 0.534, 0.131],
];

/** The chroma each tint takes (sharp keeps the image's own lightness). */
const TINTS: Record<TintColour, { r: number; g: number; b: number }> = {
  red: { r: 220, g: 40, b: 40 },
  orange: { r: 240, g: 140, b: 30 },
  yellow: { r: 235, g: 215, b: 40 },
  gold: { r: 212, g: 170, b: 60 },
  green: { r: 40, g: 190, b: 60 },
  teal: { r: 20, g: 150, b: 140 },
  cyan: { r: 40, g: 200, b: 220 },
  blue: { r: 40, g: 90, b: 220 },
  purple: { r: 140, g: 60, b: 200 },
  pink: { r: 240, g: 120, b: 180 },
  magenta: { r: 220, g: 40, b: 200 },
  warm: { r: 255, g: 190, b: 120 },
  cool: { r: 120, g: 170, b: 255 },
};

const TRANSPARENT = { r: 0, g: 0, b: 0, alpha: 0 };

/** Saturation as a colour matrix: lerp between the luma-only matrix and identity. */
export function saturationMatrix(s: number): Matrix3 {
  const row = (i: number): [number, number, number] => {
    const l = LUMA[0];
    return [l[0] * (1 - s) + (i === 0 ? s : 0), l[1] * (1 - s) + (i === 1 ? s : 0), l[2] * (1 - s) + (i === 2 ? s : 0)];
  };
  return [row(0), row(1), row(2)];
}

/**
 * 3x3 unsharp mask (identity + amount * (identity - binomial blur)); sums to 1 so flat
 * areas are unchanged. sharp's sharpen() works in LAB and is ~3x slower.
 */
function unsharpKernel(amount: number): { width: number; height: number; kernel: number[] } {
  const a = Math.min(amount, 4);
  const corner = -a / 16;
  const edge = (-a * 2) / 16;
  return { width: 3, height: 3, kernel: [corner, edge, corner, edge, 1 + a * 0.75, edge, corner, edge, corner] };
}

export function applyOp(img: RawImage, op: EditOp): Promise<RawImage> {
  switch (op.kind) {
    case 'grayscale':
      return stage(img, (p) => p.recomb(LUMA));
    case 'negate':
      return stage(img, (p) => p.negate({ alpha: false }));
    case 'blur':
      return stage(img, (p) => p.blur(op.sigma));
    case 'sharpen':
      return stage(img, (p) => p.convolve(unsharpKernel(op.sigma)));
    case 'rotate':
      return rotate(img, op.angle);
    case 'flip':
      return stage(img, (p) => p.flip());
    case 'mirror':
      return stage(img, (p) => p.flop());
    case 'sepia':
      return stage(img, (p) => p.recomb(SEPIA));
    case 'brighten':
    case 'darken':
      // A plain RGB gain: ~4x faster than sharp's modulate(), which round-trips through LCH.
      return stage(img, (p) => p.linear([op.factor, op.factor, op.factor], [0, 0, 0]));
    case 'saturate':
    case 'desaturate':
      return stage(img, (p) => p.recomb(saturationMatrix(op.factor)));
    case 'contrast':
      // Pivot around mid-grey so contrast changes do not also shift brightness.
      return stage(img, (p) => p.linear(op.factor, 128 * (1 - op.factor)));
    case 'tint':
      return stage(img, (p) => p.tint(TINTS[op.colour]));
    case 'pixelate':
      return pixelate(img, op.block);
    case 'resize':
      return resize(img, op.spec);
  }
}

/**
 * Right angles are lossless. Other angles would enlarge the canvas, so the rotation and
 * a shrink-to-fit are done in one affine pass (transparent corners), then padded or
 * trimmed by a pixel or two to land exactly on the original size.
 */
async function rotate(img: RawImage, angle: number): Promise<RawImage> {
  if (angle === 0) return img;
  if (angle % 90 === 0) return stage(img, (p) => p.rotate(angle));
  const rad = (angle * Math.PI) / 180;
  const c = Math.cos(rad);
  const s = Math.sin(rad);
  const { width: w, height: h } = img;
  const k = Math.min(w / (w * Math.abs(c) + h * Math.abs(s)), h / (w * Math.abs(s) + h * Math.abs(c)));
  const turned = await stage(img, (p) =>
    p.ensureAlpha().affine([[k * c, -k * s], [k * s, k * c]], { background: TRANSPARENT, interpolator: 'bilinear' }),
  );
  return fitCanvas(turned, w, h);
}

/** Centre-crop and/or transparent-pad to exactly width x height (no resampling). */
async function fitCanvas(img: RawImage, width: number, height: number): Promise<RawImage> {
  let out = img;
  if (out.width > width || out.height > height) {
    const w = Math.min(out.width, width);
    const h = Math.min(out.height, height);
    const left = Math.floor((out.width - w) / 2);
    const top = Math.floor((out.height - h) / 2);
    out = await stage(out, (p) => p.extract({ left, top, width: w, height: h }));
  }
  if (out.width < width || out.height < height) {
    const dx = width - out.width;
    const dy = height - out.height;
    const pad = { left: Math.floor(dx / 2), right: Math.ceil(dx / 2), top: Math.floor(dy / 2), bottom: Math.ceil(dy / 2) };
    out = await stage(out, (p) => p.extend({ ...pad, background: TRANSPARENT }));
  }
  return out;
}

/** Average blocks down, then blow them back up with nearest-neighbour for crisp squares. */
async function pixelate(img: RawImage, block: number | null): Promise<RawImage> {
  const size = block ?? Math.max(4, Math.round(Math.max(img.width, img.height) / 64));
  const w = Math.max(1, Math.round(img.width / size));
  const h = Math.max(1, Math.round(img.height / size));
  const small = await stage(img, (p) => p.resize(w, h, { fit: 'fill' }));
  return stage(small, (p) => p.resize(img.width, img.height, { fit: 'fill', kernel: 'nearest' }));
}

export function resizeTarget(img: RawImage, spec: ResizeSpec): { width: number; height: number } {
  if (spec.type === 'exact') return clampSize(Math.round(spec.width), Math.round(spec.height), EDIT_MAX_SIDE);
  const k = spec.type === 'scale' ? spec.factor : spec.size / Math.max(img.width, img.height);
  return clampSize(Math.max(1, Math.round(img.width * k)), Math.max(1, Math.round(img.height * k)), EDIT_MAX_SIDE);
}

function resize(img: RawImage, spec: ResizeSpec): Promise<RawImage> {
  const target = resizeTarget(img, spec);
  if (target.width === img.width && target.height === img.height) return Promise.resolve(img);
  // Exact sizes crop to keep proportions (like the final output sizing); scales keep aspect anyway.
  return stage(img, (p) => p.resize(target.width, target.height, { fit: spec.type === 'exact' ? 'cover' : 'fill' }));
}
