/**
 * I420 frame buffer plus the few drawing primitives the scene layers need. Every
 * primitive draws on the full-resolution luma plane and on the half-resolution chroma
 * planes, so a frame costs ~1.5 samples per pixel and needs no RGB->YUV pass.
 */
import type { Rgb, Yuv } from './color.js';
import { toYuv } from './color.js';

export interface YuvFrame {
  readonly width: number;
  readonly height: number;
  /** Chroma plane size (half width/height: dimensions are always even). */
  readonly cw: number;
  readonly ch: number;
  /** Y, then U, then V: exactly what the encoder's addFrameYuv expects. */
  readonly data: Uint8Array;
  readonly y: Uint8Array;
  readonly u: Uint8Array;
  readonly v: Uint8Array;
  /** Scratch column buffer for chroma-resolution silhouettes. */
  readonly scratch: Float32Array;
}

/** One plane and its scale relative to full-resolution coordinates. */
interface Plane {
  data: Uint8Array;
  w: number;
  h: number;
  s: number;
}

/** Per-row colours of a vertical gradient, at luma (h rows) and chroma (h/2 rows) resolution. */
export interface RowColors {
  y: Uint8Array;
  u: Uint8Array;
  v: Uint8Array;
}

export function createFrame(width: number, height: number): YuvFrame {
  const cw = width >> 1;
  const ch = height >> 1;
  const data = new Uint8Array(width * height + 2 * cw * ch);
  const lumaEnd = width * height;
  return {
    width, height, cw, ch, data,
    y: data.subarray(0, lumaEnd),
    u: data.subarray(lumaEnd, lumaEnd + cw * ch),
    v: data.subarray(lumaEnd + cw * ch),
    scratch: new Float32Array(cw),
  };
}

function planes(f: YuvFrame): readonly [Plane, Plane, Plane] {
  return [
    { data: f.y, w: f.width, h: f.height, s: 1 },
    { data: f.u, w: f.cw, h: f.ch, s: 0.5 },
    { data: f.v, w: f.cw, h: f.ch, s: 0.5 },
  ];
}

/** Sample a colour function (argument: 0..1 down the frame) once per luma and chroma row. */
export function rowGradient(f: YuvFrame, colorAt: (fy: number) => Rgb): RowColors {
  const rows: RowColors = { y: new Uint8Array(f.height), u: new Uint8Array(f.ch), v: new Uint8Array(f.ch) };
  for (let r = 0; r < f.height; r++) rows.y[r] = Math.round(toYuv(colorAt((r + 0.5) / f.height))[0]);
  for (let r = 0; r < f.ch; r++) {
    const c = toYuv(colorAt((2 * r + 1) / f.height));
    rows.u[r] = Math.round(c[1]);
    rows.v[r] = Math.round(c[2]);
  }
  return rows;
}

/** Fill whole rows [y0, y1) (full-resolution rows) with per-row colours. */
export function fillRows(f: YuvFrame, rows: RowColors, y0 = 0, y1 = f.height): void {
  for (let r = Math.max(0, y0); r < Math.min(f.height, y1); r++) f.y.fill(rows.y[r]!, r * f.width, (r + 1) * f.width);
  for (let r = Math.max(0, y0 >> 1); r < Math.min(f.ch, (y1 + 1) >> 1); r++) {
    f.u.fill(rows.u[r]!, r * f.cw, (r + 1) * f.cw);
    f.v.fill(rows.v[r]!, r * f.cw, (r + 1) * f.cw);
  }
}

/** Anti-aliased disc, blended with `alpha`; `feather` is the edge width in full-res pixels. */
export function blendDisc(f: YuvFrame, cx: number, cy: number, r: number, color: Yuv, alpha: number, feather = 1.2): void {
  if (alpha <= 0 || r <= 0) return;
  const ps = planes(f);
  for (let i = 0; i < 3; i++) discPlane(ps[i]!, cx, cy, r, color[i]!, alpha, feather);
}

function discPlane(p: Plane, cx: number, cy: number, radius: number, value: number, alpha: number, feather: number): void {
  const x = cx * p.s;
  const y = cy * p.s;
  const fe = Math.max(0.7, feather * p.s);
  const outer = radius * p.s + fe * 0.5;
  const inner = Math.max(0, outer - fe);
  const x0 = Math.max(0, Math.floor(x - outer));
  const x1 = Math.min(p.w - 1, Math.ceil(x + outer));
  const y0 = Math.max(0, Math.floor(y - outer));
  const y1 = Math.min(p.h - 1, Math.ceil(y + outer));
  const o2 = outer * outer;
  const i2 = inner * inner;
  const d = p.data;
  for (let py = y0; py <= y1; py++) {
    const dy = py + 0.5 - y;
    const dy2 = dy * dy;
    if (dy2 >= o2) continue;
    let idx = py * p.w + x0;
    for (let px = x0; px <= x1; px++, idx++) {
      const dx = px + 0.5 - x;
      const d2 = dx * dx + dy2;
      if (d2 >= o2) continue;
      const a = d2 <= i2 ? alpha : (alpha * (outer - Math.sqrt(d2))) / fe;
      const c = d[idx]!;
      d[idx] = (c + (value - c) * a + 0.5) | 0;
    }
  }
}

/**
 * Soft radial glow, alpha * (1 - d/r)^2 clamped to 1, looked up by squared distance (no
 * sqrt per pixel). alpha > 1 gives a solid core with a soft rim: cloud puffs, blobs.
 */
const GLOW_STEPS = 1024;
const GLOW = new Float32Array(GLOW_STEPS + 1);
for (let i = 0; i <= GLOW_STEPS; i++) GLOW[i] = (1 - Math.sqrt(i / GLOW_STEPS)) ** 2;

export function blendGlow(f: YuvFrame, cx: number, cy: number, r: number, color: Yuv, alpha: number, squashY = 1): void {
  if (alpha <= 0 || r <= 0) return;
  const ps = planes(f);
  for (let i = 0; i < 3; i++) glowPlane(ps[i]!, cx, cy, r, color[i]!, alpha, squashY);
}

function glowPlane(p: Plane, cx: number, cy: number, radius: number, value: number, alpha: number, squashY: number): void {
  const x = cx * p.s;
  const y = cy * p.s;
  const r = radius * p.s;
  const ry = r * squashY;
  const x0 = Math.max(0, Math.floor(x - r));
  const x1 = Math.min(p.w - 1, Math.ceil(x + r));
  const y0 = Math.max(0, Math.floor(y - ry));
  const y1 = Math.min(p.h - 1, Math.ceil(y + ry));
  const k = GLOW_STEPS / (r * r);
  const ky = 1 / (squashY * squashY);
  const d = p.data;
  for (let py = y0; py <= y1; py++) {
    const dy = py + 0.5 - y;
    const dy2 = dy * dy * ky;
    let idx = py * p.w + x0;
    for (let px = x0; px <= x1; px++, idx++) {
      const dx = px + 0.5 - x;
      const q = ((dx * dx + dy2) * k) | 0;
      if (q >= GLOW_STEPS) continue;
      const g = alpha * GLOW[q]!;
      const a = g > 1 ? 1 : g;
      const c = d[idx]!;
      d[idx] = (c + (value - c) * a + 0.5) | 0;
    }
  }
}

/**
 * Disc shaded per pixel: `shade(nx, ny, nz)` gets the sphere normal and returns 0..1,
 * which mixes `dark` -> `lit`. Anti-aliased rim. Used for planets.
 */
export function shadeDisc(f: YuvFrame, cx: number, cy: number, r: number, dark: Yuv, lit: Yuv, shade: (nx: number, ny: number, nz: number) => number): void {
  const ps = planes(f);
  for (let i = 0; i < 3; i++) {
    const p = ps[i]!;
    const x = cx * p.s;
    const y = cy * p.s;
    const rr = r * p.s;
    const d0 = dark[i]!;
    const d1 = lit[i]! - d0;
    for (let py = Math.max(0, Math.floor(y - rr)); py <= Math.min(p.h - 1, Math.ceil(y + rr)); py++) {
      const ny = (py + 0.5 - y) / rr;
      for (let px = Math.max(0, Math.floor(x - rr)); px <= Math.min(p.w - 1, Math.ceil(x + rr)); px++) {
        const nx = (px + 0.5 - x) / rr;
        const q = nx * nx + ny * ny;
        if (q >= 1) continue;
        const cover = Math.min(1, (1 - Math.sqrt(q)) * rr);
        const value = d0 + d1 * shade(nx, ny, Math.sqrt(1 - q));
        const idx = py * p.w + px;
        const c = p.data[idx]!;
        p.data[idx] = (c + (value - c) * cover + 0.5) | 0;
      }
    }
  }
}

/**
 * Fill everything below a per-column top edge (full-res y per column) down to `bottom`,
 * with per-row colours and an anti-aliased top edge. Used for ridges, skylines, trees.
 */
export function fillSilhouette(f: YuvFrame, tops: Float32Array, rows: RowColors, bottom: number): void {
  silhouettePlane({ data: f.y, w: f.width, h: f.height, s: 1 }, tops, rows.y, bottom);
  const ct = f.scratch;
  for (let i = 0; i < f.cw; i++) ct[i] = (tops[2 * i]! + tops[2 * i + 1]!) * 0.25;
  silhouettePlane({ data: f.u, w: f.cw, h: f.ch, s: 0.5 }, ct, rows.u, bottom);
  silhouettePlane({ data: f.v, w: f.cw, h: f.ch, s: 0.5 }, ct, rows.v, bottom);
}

function silhouettePlane(p: Plane, tops: Float32Array, rows: Uint8Array, bottom: number): void {
  let minTop = Number.POSITIVE_INFINITY;
  for (let x = 0; x < p.w; x++) minTop = Math.min(minTop, tops[x]!);
  const y0 = Math.max(0, Math.floor(minTop));
  const y1 = Math.min(p.h, Math.ceil(bottom * p.s));
  const d = p.data;
  for (let y = y0; y < y1; y++) {
    const value = rows[y]!;
    const below = y + 1;
    let idx = y * p.w;
    for (let x = 0; x < p.w; x++, idx++) {
      const t = tops[x]!;
      if (t <= y) d[idx] = value;
      else if (t < below) {
        const c = d[idx]!;
        d[idx] = (c + (value - c) * (below - t) + 0.5) | 0;
      }
    }
  }
}

/** Overwrite a horizontal span of rows with per-row colours (cut-outs, e.g. a striped sun). */
export function fillRowSpan(f: YuvFrame, rows: RowColors, y0: number, y1: number, x0: number, x1: number): void {
  const ya = Math.max(0, Math.floor(y0));
  const yb = Math.min(f.height, Math.ceil(y1));
  const xa = Math.max(0, Math.floor(x0));
  const xb = Math.min(f.width, Math.ceil(x1));
  if (xa >= xb) return;
  for (let r = ya; r < yb; r++) f.y.fill(rows.y[r]!, r * f.width + xa, r * f.width + xb);
  for (let r = ya >> 1; r < (yb + 1) >> 1 && r < f.ch; r++) {
    f.u.fill(rows.u[r]!, r * f.cw + (xa >> 1), r * f.cw + ((xb + 1) >> 1));
    f.v.fill(rows.v[r]!, r * f.cw + (xa >> 1), r * f.cw + ((xb + 1) >> 1));
  }
}

/** Blend a single luma pixel (plus a weaker touch on its chroma sample): stars, sparks. */
export function plot(f: YuvFrame, x: number, y: number, color: Yuv, alpha: number): void {
  const px = x | 0;
  const py = y | 0;
  if (px < 0 || py < 0 || px >= f.width || py >= f.height || alpha <= 0) return;
  const i = py * f.width + px;
  const c = f.y[i]!;
  f.y[i] = (c + (color[0] - c) * alpha + 0.5) | 0;
  const ci = (py >> 1) * f.cw + (px >> 1);
  const a = alpha * 0.35;
  const u = f.u[ci]!;
  const v = f.v[ci]!;
  f.u[ci] = (u + (color[1] - u) * a + 0.5) | 0;
  f.v[ci] = (v + (color[2] - v) * a + 0.5) | 0;
}

/** Scale the whole picture towards black by `k` (1 = unchanged): fades in and out. */
export function fadeFrame(f: YuvFrame, k: number): void {
  if (k >= 1) return;
  const luma = new Uint8Array(256);
  const chroma = new Uint8Array(256);
  for (let i = 0; i < 256; i++) {
    luma[i] = Math.round(16 + (i - 16) * k);
    chroma[i] = Math.round(128 + (i - 128) * k);
  }
  const { y, u, v } = f;
  for (let i = 0; i < y.length; i++) y[i] = luma[y[i]!]!;
  for (let i = 0; i < u.length; i++) {
    u[i] = chroma[u[i]!]!;
    v[i] = chroma[v[i]!]!;
  }
}
