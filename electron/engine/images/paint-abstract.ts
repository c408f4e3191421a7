/** Abstract motifs: mesh gradient, bokeh, geometric shapes, silk ribbons and a retro grid floor. */
import { Canvas } from './canvas.js';
import { clamp01, mix, smoothstep, WHITE, type Rgb } from '../shared/color.js';
import type { Rng } from '../shared/random.js';
import type { ScenePlan } from './scene-plan.js';

/** Smooth blend of a handful of coloured control points (inverse-distance weights). */
export function paintMeshGradient(canvas: Canvas, plan: ScenePlan, rng: Rng): void {
  const colors = [...plan.palette.sky, ...plan.palette.accents.slice(0, 2)];
  const points = Array.from({ length: 5 }, (_, k) => ({
    x: rng.next(),
    y: rng.next(),
    c: colors[k % colors.length] ?? plan.palette.glow,
  }));
  const { width: w, height: h } = canvas;
  const d = canvas.data;
  for (let y = 0; y < h; y++) {
    const v = (y + 0.5) / h;
    for (let x = 0; x < w; x++) {
      const uu = (x + 0.5) / w;
      let r = 0;
      let g = 0;
      let b = 0;
      let sum = 0;
      for (const p of points) {
        const dx = uu - p.x;
        const dy = v - p.y;
        const q = dx * dx + dy * dy + 0.015;
        const wt = 1 / (q * q);
        r += p.c[0] * wt;
        g += p.c[1] * wt;
        b += p.c[2] * wt;
        sum += wt;
      }
      const i = (y * w + x) * 3;
      d[i] = r / sum;
      d[i + 1] = g / sum;
      d[i + 2] = b / sum;
    }
  }
}

/** Out-of-focus light discs with a slightly brighter rim, added as light. */
export function paintBokeh(canvas: Canvas, plan: ScenePlan, rng: Rng): void {
  // Over a scene the discs are sparser and fainter so they do not bury it.
  const overlay = plan.kind !== 'abstract';
  const count = Math.round(plan.bokeh * (overlay ? 26 : 45));
  const accents = plan.palette.accents.length > 0 ? plan.palette.accents : [plan.palette.glow];
  for (let k = 0; k < count; k++) {
    const cx = rng.next() * canvas.width;
    const cy = rng.next() * canvas.height;
    const r = canvas.unit * rng.range(0.015, 0.1) * (rng.chance(0.2) ? 1.6 : 1);
    const soft = r * rng.range(0.06, 0.35);
    const color = mix(rng.pick(accents), WHITE, rng.range(0, 0.3));
    const alpha = rng.range(0.1, 0.35) * (overlay ? 0.55 : 1);
    const x0 = Math.max(0, Math.floor(cx - r - soft));
    const x1 = Math.min(canvas.width - 1, Math.ceil(cx + r + soft));
    const y0 = Math.max(0, Math.floor(cy - r - soft));
    const y1 = Math.min(canvas.height - 1, Math.ceil(cy + r + soft));
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        const dist = Math.hypot(x + 0.5 - cx, y + 0.5 - cy);
        const cover = smoothstep(r + soft, r - soft, dist);
        if (cover <= 0) continue;
        canvas.addAt(y * canvas.width + x, color, cover * alpha * (0.75 + 0.35 * smoothstep(r * 0.6, r, dist)));
      }
    }
  }
}

/** Translucent flat shapes: discs, rings and rotated polygons. */
export function paintGeometric(canvas: Canvas, plan: ScenePlan, rng: Rng): void {
  const accents = [...plan.palette.accents, plan.palette.sun, plan.palette.near];
  const count = rng.int(5, 10);
  for (let k = 0; k < count; k++) {
    const cx = rng.next() * canvas.width;
    const cy = rng.next() * canvas.height;
    const size = canvas.unit * rng.range(0.08, 0.32);
    const color = rng.pick(accents);
    const alpha = rng.range(0.35, 0.85);
    const shape = rng.int(0, 4);
    if (shape === 0) canvas.disc(cx, cy, size, color, alpha);
    else if (shape === 1) paintRing(canvas, cx, cy, size, size * rng.range(0.06, 0.18), color, alpha);
    else paintPolygon(canvas, cx, cy, size, shape === 2 ? 3 : 4, rng.range(0, Math.PI), color, alpha);
  }
}

function paintRing(canvas: Canvas, cx: number, cy: number, r: number, thick: number, c: Rgb, alpha: number): void {
  const reach = r + thick;
  for (let y = Math.max(0, Math.floor(cy - reach)); y <= Math.min(canvas.height - 1, Math.ceil(cy + reach)); y++) {
    for (let x = Math.max(0, Math.floor(cx - reach)); x <= Math.min(canvas.width - 1, Math.ceil(cx + reach)); x++) {
      const edge = thick / 2 - Math.abs(Math.hypot(x + 0.5 - cx, y + 0.5 - cy) - r);
      const cover = clamp01(edge + 0.5);
      if (cover > 0) canvas.blendAt(y * canvas.width + x, c, cover * alpha);
    }
  }
}

/** Regular convex polygon; coverage is the distance to the nearest edge (anti-aliased). */
function paintPolygon(canvas: Canvas, cx: number, cy: number, r: number, sides: number, rot: number, c: Rgb, alpha: number): void {
  const normals: { nx: number; ny: number; off: number }[] = [];
  const apothem = r * Math.cos(Math.PI / sides);
  for (let s = 0; s < sides; s++) {
    const a = rot + ((s + 0.5) / sides) * Math.PI * 2;
    normals.push({ nx: Math.cos(a), ny: Math.sin(a), off: apothem });
  }
  for (let y = Math.max(0, Math.floor(cy - r)); y <= Math.min(canvas.height - 1, Math.ceil(cy + r)); y++) {
    for (let x = Math.max(0, Math.floor(cx - r)); x <= Math.min(canvas.width - 1, Math.ceil(cx + r)); x++) {
      const dx = x + 0.5 - cx;
      const dy = y + 0.5 - cy;
      let inside = Number.POSITIVE_INFINITY;
      for (const n of normals) inside = Math.min(inside, n.off - (dx * n.nx + dy * n.ny));
      const cover = clamp01(inside + 0.5);
      if (cover > 0) canvas.blendAt(y * canvas.width + x, c, cover * alpha);
    }
  }
}

/** Flowing silk bands: sine-sum centre lines with soft shading across their width. */
export function paintRibbons(canvas: Canvas, plan: ScenePlan, rng: Rng): void {
  const { width: w, height: h, unit: u } = canvas;
  const accents = plan.palette.accents.length > 0 ? plan.palette.accents : [plan.palette.glow];
  const count = rng.int(3, 6);
  for (let k = 0; k < count; k++) {
    const base = rng.range(0.2, 0.8);
    const a1 = rng.range(0.05, 0.18);
    const f1 = rng.range(0.6, 1.6);
    const p1 = rng.range(0, 6.28);
    const a2 = rng.range(0.02, 0.06);
    const f2 = rng.range(2, 4);
    const thick = u * rng.range(0.03, 0.09);
    const c1 = rng.pick(accents);
    const c2 = mix(rng.pick(accents), WHITE, 0.25);
    const alpha = rng.range(0.45, 0.8);
    for (let x = 0; x < w; x++) {
      const t = x / w;
      const yc = h * (base + a1 * Math.sin(t * f1 * 6.28 + p1) + a2 * Math.sin(t * f2 * 6.28 + p1 * 2));
      const half = thick * (0.6 + 0.4 * Math.sin(t * 3.1 + p1));
      const color = mix(c1, c2, t);
      for (let y = Math.max(0, Math.floor(yc - half - 1)); y <= Math.min(h - 1, Math.ceil(yc + half + 1)); y++) {
        const v = (y + 0.5 - yc) / half;
        const cover = clamp01((1 - Math.abs(v)) * half + 0.5);
        if (cover <= 0) continue;
        const shade = 0.7 + 0.45 * (1 - v * v) - 0.15 * v;
        canvas.blendAt(y * w + x, [color[0] * shade, color[1] * shade, color[2] * shade], cover * alpha);
      }
    }
  }
}

/** Synthwave perspective grid on a dark floor below the horizon. */
export function paintGridFloor(canvas: Canvas, plan: ScenePlan, horizonY: number, rng: Rng): void {
  const { width: w, height: h } = canvas;
  const d = canvas.data;
  const hy = Math.floor(horizonY);
  const line: Rgb = plan.palette.accents[0] ?? plan.palette.glow;
  const floorTop = mix(plan.palette.glow, plan.palette.near, 0.55);
  const floorBottom = plan.palette.near;
  const cx = w * rng.range(0.4, 0.6);
  const spacing = h * 0.9;
  const cols = rng.range(9, 16);
  const phase = rng.next();
  for (let y = hy; y < h; y++) {
    const dy = y + 0.5 - horizonY;
    const t = dy / Math.max(1, h - horizonY);
    const z = spacing / dy;
    const dzdy = z / dy;
    const fz = (z * 0.25 + phase) % 1;
    const rowDist = Math.min(fz, 1 - fz) / (0.25 * dzdy);
    const base = mix(floorTop, floorBottom, Math.pow(t, 0.5));
    const dudx = (cols / w) * (1 / Math.max(t, 0.02)) * 0.25;
    const fade = smoothstep(0, 0.12, t);
    for (let x = 0; x < w; x++) {
      const uu = ((x + 0.5 - cx) * dudx) + 0.5;
      const fu = uu - Math.floor(uu);
      const colDist = Math.min(fu, 1 - fu) / dudx;
      const dist = Math.min(rowDist, colDist);
      const glow = (clamp01(1.2 - dist) + 0.35 * Math.exp(-dist / 3)) * (0.25 + 0.75 * fade);
      const i = (y * w + x) * 3;
      d[i] = base[0] + line[0] * glow;
      d[i + 1] = base[1] + line[1] * glow;
      d[i + 2] = base[2] + line[2] * glow;
    }
  }
}
