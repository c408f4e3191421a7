/**
 * Float RGB canvas (0..1 per channel) with the few anti-aliased primitives the painters
 * share. Painters loop over `data` directly for bulk work; these helpers cover shapes.
 */
import { type Rgb } from '../shared/color.js';

const GLOW_LUT_SIZE = 1024;
const glowLuts = new Map<number, Float32Array>();

/** Falloff table per exponent; only a handful of exponents are ever used. */
function glowLut(power: number): Float32Array {
  let lut = glowLuts.get(power);
  if (lut === undefined) {
    lut = new Float32Array(GLOW_LUT_SIZE + 1);
    for (let k = 0; k <= GLOW_LUT_SIZE; k++) lut[k] = Math.pow(1 - Math.sqrt(k / GLOW_LUT_SIZE), power);
    glowLuts.set(power, lut);
  }
  return lut;
}

export class Canvas {
  readonly data: Float32Array;
  /** Shorter side in pixels: sizes are expressed relative to it so scenes scale with resolution. */
  readonly unit: number;

  constructor(readonly width: number, readonly height: number) {
    this.data = new Float32Array(width * height * 3);
    this.unit = Math.min(width, height);
  }

  /** Alpha-blend a colour into pixel index (pixel number, not byte offset). */
  blendAt(pixel: number, c: Rgb, alpha: number): void {
    const d = this.data;
    const i = pixel * 3;
    d[i] = d[i]! + (c[0] - d[i]!) * alpha;
    d[i + 1] = d[i + 1]! + (c[1] - d[i + 1]!) * alpha;
    d[i + 2] = d[i + 2]! + (c[2] - d[i + 2]!) * alpha;
  }

  /** Additive light, used for glows, stars and neon. Clamped later at quantisation. */
  addAt(pixel: number, c: Rgb, amount: number): void {
    const d = this.data;
    const i = pixel * 3;
    d[i] = d[i]! + c[0] * amount;
    d[i + 1] = d[i + 1]! + c[1] * amount;
    d[i + 2] = d[i + 2]! + c[2] * amount;
  }

  /** Fill rows [y0, y1) with a per-row colour (gradients). */
  fillRows(y0: number, y1: number, colorAt: (y: number) => Rgb): void {
    const w = this.width;
    const d = this.data;
    for (let y = Math.max(0, y0); y < Math.min(this.height, y1); y++) {
      const c = colorAt(y);
      let i = y * w * 3;
      for (let x = 0; x < w; x++, i += 3) {
        d[i] = c[0];
        d[i + 1] = c[1];
        d[i + 2] = c[2];
      }
    }
  }

  /** Anti-aliased filled disc; `feather` widens the soft edge (pixels). */
  disc(cx: number, cy: number, r: number, c: Rgb, alpha = 1, feather = 1): void {
    const x0 = Math.max(0, Math.floor(cx - r - feather));
    const x1 = Math.min(this.width - 1, Math.ceil(cx + r + feather));
    const y0 = Math.max(0, Math.floor(cy - r - feather));
    const y1 = Math.min(this.height - 1, Math.ceil(cy + r + feather));
    for (let y = y0; y <= y1; y++) {
      const dy = y + 0.5 - cy;
      for (let x = x0; x <= x1; x++) {
        const dx = x + 0.5 - cx;
        const edge = r - Math.sqrt(dx * dx + dy * dy);
        if (edge <= -feather) continue;
        const cover = edge >= feather ? 1 : (edge + feather) / (2 * feather);
        this.blendAt(y * this.width + x, c, cover * alpha);
      }
    }
  }

  /**
   * Additive radial glow with a smooth (1 - d/r)^power falloff. The falloff comes from a
   * small lookup table indexed by d^2, so big halos cost no sqrt/pow per pixel.
   */
  glow(cx: number, cy: number, r: number, c: Rgb, strength: number, power = 2.2): void {
    const lut = glowLut(power);
    const y0 = Math.max(0, Math.floor(cy - r));
    const y1 = Math.min(this.height - 1, Math.ceil(cy + r));
    const inv = 1 / r;
    const d = this.data;
    const [cr, cg, cb] = c;
    for (let y = y0; y <= y1; y++) {
      const dy = (y + 0.5 - cy) * inv;
      const span = 1 - dy * dy;
      if (span <= 0) continue;
      // Only visit the chord of the circle on this row.
      const half = Math.sqrt(span) * r;
      const x0 = Math.max(0, Math.floor(cx - half));
      const x1 = Math.min(this.width - 1, Math.ceil(cx + half));
      let i = (y * this.width + x0) * 3;
      for (let x = x0; x <= x1; x++, i += 3) {
        const dx = (x + 0.5 - cx) * inv;
        const d2 = dx * dx + dy * dy;
        if (d2 >= 1) continue;
        const f = lut[(d2 * GLOW_LUT_SIZE) | 0]! * strength;
        d[i] = d[i]! + cr * f;
        d[i + 1] = d[i + 1]! + cg * f;
        d[i + 2] = d[i + 2]! + cb * f;
      }
    }
  }

  /** Axis-aligned rectangle with fractional (anti-aliased) edges. */
  rect(x0: number, y0: number, x1: number, y1: number, c: Rgb, alpha = 1): void {
    const ix0 = Math.max(0, Math.floor(x0));
    const ix1 = Math.min(this.width - 1, Math.ceil(x1) - 1);
    const iy0 = Math.max(0, Math.floor(y0));
    const iy1 = Math.min(this.height - 1, Math.ceil(y1) - 1);
    for (let y = iy0; y <= iy1; y++) {
      const cy = Math.min(y + 1, y1) - Math.max(y, y0);
      if (cy <= 0) continue;
      for (let x = ix0; x <= ix1; x++) {
        const cx = Math.min(x + 1, x1) - Math.max(x, x0);
        if (cx <= 0) continue;
        this.blendAt(y * this.width + x, c, cx * cy * alpha);
      }
    }
  }

  /** Multiply every pixel by a radial vignette (1 at centre, 1-strength in the corners). */
  vignette(strength: number): void {
    const w = this.width;
    const h = this.height;
    const d = this.data;
    const cx = w / 2;
    const cy = h / 2;
    const inv = 1 / Math.sqrt(cx * cx + cy * cy);
    for (let y = 0; y < h; y++) {
      const dy = (y + 0.5 - cy) * inv;
      let i = y * w * 3;
      for (let x = 0; x < w; x++, i += 3) {
        const dx = (x + 0.5 - cx) * inv;
        const r2 = dx * dx + dy * dy;
        const k = 1 - strength * r2 * r2 * 1.6;
        d[i] = d[i]! * k;
        d[i + 1] = d[i + 1]! * k;
        d[i + 2] = d[i + 2]! * k;
      }
    }
  }
}

/**
 * Coarse multi-channel field sampled bilinearly: soft things (clouds, nebulae) are
 * computed on a few thousand cells instead of every pixel.
 */
export class Field {
  readonly data: Float32Array;

  constructor(readonly width: number, readonly height: number, readonly channels: number) {
    this.data = new Float32Array(width * height * channels);
  }

  /**
   * Fill `out` (outWidth * channels) with bilinear samples along field row `fy`, one
   * sample every `step` cells: the per-pixel path of clouds and nebulae, kept tight.
   */
  sampleRow(fy: number, step: number, outWidth: number, out: Float32Array): void {
    const w = this.width;
    const ch = this.channels;
    const d = this.data;
    const y = Math.min(Math.max(fy, 0), this.height - 1);
    const y0 = Math.floor(y);
    const y1 = Math.min(y0 + 1, this.height - 1);
    const ty = y - y0;
    const r0 = y0 * w * ch;
    const r1 = y1 * w * ch;
    for (let x = 0, o = 0; x < outWidth; x++) {
      const fx = Math.min(x * step, w - 1);
      const x0 = fx | 0;
      const x1 = x0 + 1 < w ? x0 + 1 : x0;
      const tx = fx - x0;
      for (let k = 0; k < ch; k++, o++) {
        const a = d[r0 + x0 * ch + k]!;
        const b = d[r0 + x1 * ch + k]!;
        const c = d[r1 + x0 * ch + k]!;
        const e = d[r1 + x1 * ch + k]!;
        const top = a + (b - a) * tx;
        out[o] = top + (c + (e - c) * tx - top) * ty;
      }
    }
  }
}
