/**
 * Ground: layered ridges (mountains, hills, dunes) scrolling with parallax, tree
 * silhouettes on the near ridges, a city skyline with twinkling windows, and a plain
 * floor when nothing else covers the bottom. Each ridge is a precomputed table of
 * top edges wide enough for the whole pan, so a frame only interpolates and fills.
 */
import { clamp01, mix, sampleStops, scale, toYuv, type Rgb, type Yuv } from './color.js';
import { Noise1 } from './noise.js';
import type { Rng } from '../shared/random.js';
import type { VideoScene } from './scene-plan.js';
import { fillRows, fillSilhouette, plot, rowGradient, type RowColors, type YuvFrame } from './yuv-frame.js';

interface Ridge {
  /** Top edge (y in pixels) per world pixel. */
  table: Float32Array;
  /** Table offset at time 0 and scroll speed in pixels per second. */
  start: number;
  speed: number;
  rows: RowColors;
  bottom: number;
  windows: Windows | null;
}

interface Windows {
  x: Float32Array;
  y: Float32Array;
  phase: Float32Array;
  colors: Yuv[];
  size: number;
}

export class GroundLayer {
  private readonly ridges: Ridge[] = [];
  private readonly tops: Float32Array;
  private readonly floor: RowColors | null;
  private readonly floorTop: number;

  constructor(scene: VideoScene, private readonly w: number, h: number, seconds: number, frame: YuvFrame, rng: Rng) {
    this.tops = new Float32Array(w);
    const hy = scene.horizon * h;
    const onHorizon = scene.water || scene.grid || scene.city;
    const { palette } = scene;
    const haze = sampleStops(palette.sky, 0.95);
    const noise = new Noise1(rng.fork('noise'));
    const n = scene.ridgeLayers;
    const layerRng = rng.fork('ridges');
    const pending: { table: Float32Array; color: Rgb; speed: number }[] = [];
    for (let i = 0; i < n; i++) {
      const t = n === 1 ? 1 : i / (n - 1);
      // Nearer layers move faster: that difference is what reads as depth.
      const speed = scene.pan * w * (scene.city ? 0.1 + 0.4 * t : 0.12 + 0.88 * t * t);
      const table = new Float32Array(w + Math.ceil(Math.abs(speed) * seconds) + 3);
      const baseY = onHorizon ? hy : hy + (h - hy) * t * 0.55;
      const height = h * ridgeHeight(scene, t, onHorizon) * layerRng.range(0.8, 1.15);
      const freq = (scene.terrain === 'mountains' ? 1.4 + t * 1.2 : 0.8 + t * 0.8) * layerRng.range(0.85, 1.2);
      const off = layerRng.range(0, 200);
      for (let x = 0; x < table.length; x++) table[x] = baseY - height * ridgeShape(scene, noise, off + (x / h) * freq, t);
      const fromFront = n - 1 - i;
      if (scene.trees !== 'none' && fromFront <= 1) plantTrees(table, scene.trees, h * (fromFront === 0 ? 1 : 0.55) * (onHorizon ? 0.6 : 1), layerRng.fork(`trees${i}`));
      const color = mix(mix(palette.far, palette.near, Math.pow(t, 0.8)), haze, (1 - t) * 0.55);
      pending.push({ table, color, speed });
    }
    const cityRng = rng.fork('city');
    pending.forEach((p, i) => {
      const next = pending[i + 1];
      const bottom = onHorizon ? hy + 2 : next !== undefined ? Math.min(h, maxOf(next.table) + 1) : h;
      this.ridges.push(this.makeRidge(frame, p.table, p.color, haze, p.speed, bottom, h));
    });
    if (scene.city) {
      const speed = scene.pan * w * 0.55;
      const table = new Float32Array(w + Math.ceil(Math.abs(speed) * seconds) + 3);
      const windows = buildSkyline(table, hy, h, scene, cityRng);
      const ridge = this.makeRidge(frame, table, mix(palette.near, palette.far, 0.3), haze, speed, hy + 2, h);
      this.ridges.push({ ...ridge, windows });
    }
    const covered = !onHorizon && n > 0;
    this.floorTop = Math.floor(hy);
    this.floor = scene.water || scene.grid || covered || scene.kind !== 'landscape'
      ? null
      : rowGradient(frame, (fy) => mix(mix(palette.far, palette.near, 0.6), palette.near, clamp01((fy * h - hy) / Math.max(1, h - hy))));
  }

  private makeRidge(frame: YuvFrame, table: Float32Array, color: Rgb, haze: Rgb, speed: number, bottom: number, h: number): Ridge {
    const top = meanOf(table);
    const rows = rowGradient(frame, (fy) => {
      const k = clamp01((fy * h - top) / Math.max(1, bottom - top));
      return mix(mix(color, haze, 0.12), scale(color, 0.8), k);
    });
    const span = table.length - this.w - 2;
    return { table, start: speed < 0 ? span : 0, speed, rows, bottom, windows: null };
  }

  draw(f: YuvFrame, time: number): void {
    const { tops, w } = this;
    for (const r of this.ridges) {
      const span = r.table.length - w - 2;
      const off = Math.min(span, Math.max(0, r.start + r.speed * time));
      const base = Math.floor(off);
      const frac = off - base;
      const table = r.table;
      for (let x = 0; x < w; x++) {
        const a = table[base + x]!;
        tops[x] = a + (table[base + x + 1]! - a) * frac;
      }
      fillSilhouette(f, tops, r.rows, r.bottom);
      if (r.windows !== null) drawWindows(f, r.windows, off, time, tops);
    }
    if (this.floor !== null) fillRows(f, this.floor, this.floorTop, f.height);
  }
}

function maxOf(a: Float32Array): number {
  let m = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < a.length; i++) m = Math.max(m, a[i]!);
  return m;
}

function meanOf(a: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]!;
  return s / Math.max(1, a.length);
}

function ridgeHeight(scene: VideoScene, t: number, onHorizon: boolean): number {
  if (scene.terrain === 'mountains') return onHorizon ? 0.28 - t * 0.12 : 0.34 - t * 0.16;
  if (scene.terrain === 'dunes') return 0.12 - t * 0.04;
  return 0.15 - t * 0.05;
}

function ridgeShape(scene: VideoScene, noise: Noise1, x: number, t: number): number {
  if (scene.terrain === 'mountains') {
    // Far ranges are jagged; the nearest ones soften into foothills.
    const jag = Math.pow(noise.ridged(x, 5, 0.45), 1.25);
    const soft = noise.fbm(x * 0.7, 4);
    return clamp01((jag + (soft - jag) * Math.min(1, t * 1.1)) * 1.15 - 0.05);
  }
  if (scene.terrain === 'dunes') {
    // Phase-warped sine: long windward slopes, steeper lee faces.
    const p = (x + noise.fbm(x * 0.5, 2) * 0.8) * Math.PI * 2;
    return 0.2 + 0.8 * (0.5 + 0.5 * Math.sin(p + 0.75 * Math.sin(p))) * (0.6 + 0.4 * noise.noise(x * 0.3 + 9));
  }
  return noise.fbm(x * 0.8, 4);
}

/** Raise the table into pine or round tree silhouettes standing on the ridge. */
function plantTrees(table: Float32Array, style: 'pine' | 'round', size: number, rng: Rng): void {
  const ground = table.slice();
  let x = rng.range(0, size * 0.05);
  while (x < table.length) {
    const xc = Math.floor(x);
    const base = ground[xc]!;
    const th = size * rng.range(0.05, 0.11);
    if (style === 'pine') {
      const hw = th * 0.28;
      for (let px = Math.max(0, Math.floor(xc - hw)); px <= Math.min(table.length - 1, Math.ceil(xc + hw)); px++) {
        const d = Math.abs(px - xc) / hw;
        if (d < 1) table[px] = Math.min(table[px]!, base - th * (1 - d));
      }
    } else {
      const r = th * 0.36;
      const cy = base - th + r;
      for (let px = Math.max(0, Math.floor(xc - r)); px <= Math.min(table.length - 1, Math.ceil(xc + r)); px++) {
        const dx = px - xc;
        if (dx * dx < r * r) table[px] = Math.min(table[px]!, cy - Math.sqrt(r * r - dx * dx));
      }
    }
    x += size * rng.range(0.02, 0.06) * (rng.chance(0.15) ? 3 : 1);
  }
}

/** Blocky skyline heights (taller towards the middle of the world) plus its window grid. */
function buildSkyline(table: Float32Array, hy: number, h: number, scene: VideoScene, rng: Rng): Windows {
  const wx: number[] = [];
  const wy: number[] = [];
  const ph: number[] = [];
  const size = Math.max(1, Math.round(h / 260));
  const step = size * 3 + 1;
  let x = 0;
  while (x < table.length) {
    const bw = Math.round(h * rng.range(0.035, 0.08));
    const centre = 1 - Math.abs(x / table.length - 0.5);
    const bh = h * rng.range(0.05, 0.2) * (0.6 + centre * 0.8);
    const top = hy - bh;
    for (let px = x; px < Math.min(table.length, x + bw); px++) table[px] = top;
    if (rng.chance(0.15)) {
      const ax = x + Math.floor(bw / 2);
      const ah = bh * rng.range(0.1, 0.25);
      for (let px = ax; px < Math.min(table.length, ax + Math.max(1, size)); px++) table[px] = top - ah;
    }
    for (let cx = x + step - size; cx < x + bw - step + size; cx += step) {
      for (let cy = top + step; cy < hy - step; cy += step * 1.4) {
        if (!rng.chance(0.32)) continue;
        wx.push(cx);
        wy.push(cy);
        ph.push(rng.range(0, 1000));
      }
    }
    // Occasional alleys between buildings drop to street level.
    const gap = rng.chance(0.2) ? Math.round(h * 0.01) : 0;
    for (let px = x + bw; px < Math.min(table.length, x + bw + gap); px++) table[px] = hy;
    x += bw + gap;
  }
  const { palette } = scene;
  const colors: Yuv[] = [toYuv([1, 0.86, 0.55]), toYuv([1, 0.95, 0.8]), ...palette.accents.map((a) => toYuv(mix(a, [1, 1, 1], 0.3)))];
  return { x: Float32Array.from(wx), y: Float32Array.from(wy), phase: Float32Array.from(ph), colors, size };
}

function drawWindows(f: YuvFrame, win: Windows, off: number, time: number, tops: Float32Array): void {
  const n = win.x.length;
  const w = f.width;
  for (let i = 0; i < n; i++) {
    const x = win.x[i]! - off;
    if (x < 0 || x >= w - win.size) continue;
    const y = win.y[i]!;
    if (y < tops[x | 0]! + 1) continue;
    const phase = win.phase[i]!;
    // Each window switches on/off now and then: a slow, irregular city twinkle.
    const slot = Math.floor(time * 0.6 + phase);
    if ((Math.imul(slot ^ (i * 0x9e3779b1), 0x85ebca6b) >>> 28) === 0) continue;
    const color = win.colors[i % win.colors.length]!;
    for (let dy = 0; dy < win.size + 1; dy++) for (let dx = 0; dx < win.size; dx++) plot(f, x + dx, y + dy, color, 0.85);
  }
}
