/**
 * Below the horizon: water that mirrors what is painted above it (rippled, tinted and
 * streaked, with glitter under the sun or moon), or a scrolling synthwave grid floor.
 * Ripples use a sine lookup table in integer phase units, so there is no Math.sin per pixel.
 */
import { mix, sampleStops, scale, toYuv, type Yuv } from './color.js';
import type { Rng } from '../shared/random.js';
import type { VideoScene } from './scene-plan.js';
import { rowGradient, type RowColors, type YuvFrame } from './yuv-frame.js';

const TAU_STEPS = 1024;
const SIN = new Float32Array(TAU_STEPS);
for (let i = 0; i < TAU_STEPS; i++) SIN[i] = Math.sin((i / TAU_STEPS) * Math.PI * 2);

export interface SunSpot {
  x: number;
  r: number;
  strength: number;
}

interface PlaneRef {
  data: Uint8Array;
  w: number;
  h: number;
  s: number;
  rows: Uint8Array;
}

export class WaterLayer {
  private readonly rows: RowColors;
  private readonly lineColor: Yuv;
  private readonly phase: number;

  constructor(private readonly scene: VideoScene, frame: YuvFrame, rng: Rng) {
    const { palette } = scene;
    const hy = scene.horizon;
    if (scene.grid) {
      const far = mix(palette.glow, palette.near, 0.55);
      this.rows = rowGradient(frame, (fy) => mix(far, scale(palette.near, 0.7), Math.min(1, Math.max(0, (fy - hy) / (1 - hy)) ** 0.6)));
      this.lineColor = toYuv(palette.accents[0] ?? palette.glow);
    } else {
      const shallow = mix(palette.water, sampleStops(palette.sky, 1), 0.25);
      const deep = scale(palette.water, 0.6);
      this.rows = rowGradient(frame, (fy) => mix(shallow, deep, Math.pow(Math.min(1, Math.max(0, (fy - hy) / (1 - hy))), 0.7)));
      this.lineColor = toYuv(palette.sun);
    }
    this.phase = rng.range(0, TAU_STEPS);
  }

  draw(f: YuvFrame, time: number, sun: SunSpot | null): void {
    const planes: PlaneRef[] = [
      { data: f.y, w: f.width, h: f.height, s: 1, rows: this.rows.y },
      { data: f.u, w: f.cw, h: f.ch, s: 0.5, rows: this.rows.u },
      { data: f.v, w: f.cw, h: f.ch, s: 0.5, rows: this.rows.v },
    ];
    const hy = this.scene.horizon * f.height;
    planes.forEach((p, i) => {
      if (this.scene.grid) this.gridPlane(p, hy, time, this.lineColor[i]!);
      else this.reflectPlane(p, hy, time, i === 0, i === 0 ? sun : null);
    });
  }

  private reflectPlane(p: PlaneRef, horizon: number, time: number, luma: boolean, sun: SunSpot | null): void {
    const { data, w, s } = p;
    const fullH = p.h / s;
    const hyP = Math.floor(horizon * s);
    const rough = this.scene.waves;
    const drift = time * 1.2 * this.scene.tempo;
    const slide = time * 60 * this.scene.tempo;
    const span = Math.max(1, p.h - hyP);
    for (let y = hyP; y < p.h; y++) {
      const t = (y - hyP + 0.5) / span;
      const persp = 0.05 + 0.95 * t;
      // Ripples live in bands of equal depth (depth ~ 1/t): thin and dense near the
      // horizon, broad up close, rolling towards the viewer over time. Each band gets
      // its own phase and wavelength so the dashes never line up into rings or fans.
      const bandPos = 12 / (t + 0.04) - drift;
      const band = Math.floor(bandPos);
      const env = SIN[((bandPos - band) * 512) | 0]!;
      const hash = Math.imul(band ^ 0x5bd1e995, 0x27d4eb2d) >>> 0;
      const k = (TAU_STEPS / (fullH * 0.09 * persp * s)) * (0.7 + ((hash >>> 8) & 255) / 400);
      const a0 = (hash & 1023) + this.phase + slide * (hash & 1 ? 1 : -1);
      const amp = fullH * 0.006 * (0.4 + rough) * persp * s * env;
      const src = Math.max(0, Math.min(hyP - 1, Math.round(hyP - 1 - (y - hyP) * 0.92)));
      const reflect = (0.8 - 0.45 * t) * (1 - rough * 0.4);
      const base = p.rows[y]!;
      const srcRow = src * w;
      const streakAmp = luma ? (5 + 14 * rough) * (0.4 + t) * env : 0;
      let idx = y * w;
      for (let x = 0; x < w; x++, idx++) {
        const wave = SIN[((x * k + a0) | 0) & 1023]!;
        let sx = (x + amp * wave) | 0;
        sx = sx < 0 ? 0 : sx >= w ? w - 1 : sx;
        const v = base + (data[srcRow + sx]! - base) * reflect + streakAmp * wave;
        data[idx] = v < 16 ? 16 : v > 235 ? 235 : v;
      }
      if (sun !== null) this.glitterRow(data, y * w, w, sun, t, k * 2.6, a0 * 1.7, env);
    }
  }

  /** Sparkles under the sun or moon: bright only where the streak pattern peaks. */
  private glitterRow(data: Uint8Array, rowStart: number, w: number, sun: SunSpot, t: number, k: number, ph: number, env: number): void {
    const half = sun.r * (0.8 + t * 2.4);
    const x0 = Math.max(0, Math.floor(sun.x - half));
    const x1 = Math.min(w - 1, Math.ceil(sun.x + half));
    const gain = sun.strength * 170 * (1 - t * 0.5) * env;
    for (let x = x0; x <= x1; x++) {
      const d = 1 - Math.abs(x - sun.x) / half;
      if (d <= 0) continue;
      const spark = SIN[((x * k + ph) | 0) & 1023]! - 0.45;
      if (spark <= 0) continue;
      const i = rowStart + x;
      const v = data[i]! + spark * gain * d * d;
      data[i] = v > 235 ? 235 : v;
    }
  }

  /** Perspective grid: horizontal lines rush towards the viewer, verticals converge. */
  private gridPlane(p: PlaneRef, horizon: number, time: number, line: number): void {
    const { data, w, s } = p;
    const fullH = p.h / s;
    const hyP = Math.floor(horizon * s);
    const depth = fullH * 0.35;
    const gap = fullH * 0.09;
    const cx = w / s / 2 + Math.sin(time * 0.35) * w / s * 0.04;
    const scroll = time * 1.6 * this.scene.tempo;
    for (let y = hyP; y < p.h; y++) {
      const dy = (y + 0.5) / s - horizon;
      if (dy <= 0) continue;
      const z = depth / dy;
      const fz = z + scroll;
      const dz = Math.abs(fz - Math.round(fz));
      // Fade lines out where they crowd together near the horizon (avoids moire).
      const rowSpacing = (dy * dy) / depth;
      const horizontal = Math.min(1, Math.max(0, 1.4 - dz * rowSpacing * 0.9)) * Math.min(1, Math.max(0, (rowSpacing - 2) / 8));
      const spacing = (dy * gap * 4) / fullH;
      const base = p.rows[y]!;
      const invDy = 1 / dy;
      let idx = y * w;
      for (let x = 0; x < w; x++, idx++) {
        const rx = (x + 0.5) / s - cx;
        const u = rx / spacing;
        // Perpendicular distance to the converging line (not just horizontal), and fade
        // where neighbouring lines crowd closer than a few pixels.
        const slant = Math.sqrt(1 + rx * invDy * (rx * invDy));
        const perp = spacing / slant;
        let a = (1.4 - Math.abs(u - Math.round(u)) * perp * 0.7) * Math.min(1, Math.max(0, (perp - 4) / 14));
        if (a < horizontal) a = horizontal;
        if (a > 1) a = 1;
        data[idx] = a > 0 ? (base + (line - base) * a + 0.5) | 0 : base;
      }
    }
  }
}
