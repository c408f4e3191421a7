/**
 * Layered ridges (mountains, hills, dunes) with atmospheric perspective, snow caps and
 * tree silhouettes. Far layers are hazy and light, near layers dark and saturated.
 */
import { Canvas } from './canvas.js';
import { clamp01, mix, sampleStops, smoothstep, WHITE, type Rgb } from '../shared/color.js';
import { ValueNoise } from './noise.js';
import type { Rng } from '../shared/random.js';
import type { ScenePlan } from './scene-plan.js';

export interface TerrainResult {
  /** Top edge (y in pixels) of the nearest ridge, per column: trees stand on it. */
  nearProfile: Float32Array;
}

export function paintTerrain(canvas: Canvas, plan: ScenePlan, horizonY: number, rng: Rng, treeRng: Rng): TerrainResult | null {
  const n = plan.ridgeLayers;
  if (plan.terrain === 'none' || n <= 0) return null;
  const { width: w, height: h, unit: u } = canvas;
  const noise = new ValueNoise(rng);
  const haze = sampleStops(plan.palette.sky, 0.95);
  const sunSide = plan.celestial !== null && plan.celestial.x > 0.5 ? 1 : -1;
  const onHorizon = plan.water || plan.grid || plan.city;
  const layers: { profile: Float32Array; style: RidgeStyle }[] = [];
  for (let layer = 0; layer < n; layer++) {
    const t = n === 1 ? 0.5 : layer / (n - 1);
    // Over water/grid/city every ridge stands on the horizon; on open land nearer ridges step down the frame.
    const baseY = onHorizon ? horizonY : horizonY + (h - horizonY) * t * 0.72;
    const height = u * layerHeight(plan, t, onHorizon) * rng.range(0.8, 1.15);
    const freq = (plan.terrain === 'mountains' ? 1.4 + t * 1.2 : 0.8 + t * 0.8) * rng.range(0.85, 1.2);
    const off = rng.range(0, 500);
    const profile = new Float32Array(w);
    for (let x = 0; x < w; x++) profile[x] = baseY - height * ridgeShape(plan, noise, off + (x / u) * freq, t);
    const snow = plan.snowCaps && plan.terrain === 'mountains' && t < 0.75;
    layers.push({
      profile,
      style: {
        color: mix(mix(plan.palette.far, plan.palette.near, Math.pow(t, 0.8)), haze, (1 - t) * 0.55),
        haze,
        mist: onHorizon ? 0.25 * (1 - t) : 0.4 * (1 - t * 0.8),
        shadeStrength: plan.terrain === 'dunes' ? 0.3 : 0.2,
        lightDepth: plan.terrain === 'dunes' ? 0.25 : 0.12,
        jitter: plan.terrain === 'mountains' ? 1 : plan.terrain === 'dunes' ? 0.15 : 0.35,
        sunSide,
        baseY,
        height,
        snow: snow ? mix(WHITE, haze, 0.1 + (1 - t) * 0.35) : null,
        noise,
      },
    });
  }
  // Each layer is filled only down to the ridge in front of it (the rest would be
  // overdrawn); the nearest goes to the bottom, or just past the horizon when water,
  // grid or ground will cover what lies below.
  const floor = onHorizon ? Math.min(h, Math.ceil(horizonY) + 1) : h;
  layers.forEach((layer, index) => {
    const front = layers[index + 1]?.profile ?? null;
    fillRidge(canvas, layer.profile, front, floor, layer.style);
    // Trees go on the two nearest ridges, planted before the next ridge is filled so
    // that ridge correctly hides their feet.
    const fromFront = layers.length - 1 - index;
    if (plan.trees > 0 && fromFront <= 1) {
      paintTrees(canvas, plan, layer.profile, {
        color: mix(layer.style.color, [0, 0, 0], fromFront === 0 ? 0.45 : 0.25),
        density: fromFront === 0 ? 1 : 0.7,
        scale: fromFront === 0 ? 1 : 0.55,
        depth: fromFront === 0 ? Math.max(0, floor - layerTop(layer.profile)) * 0.9 : u * 0.12,
      }, treeRng.fork(`trees${fromFront}`));
    }
  });
  const nearest = layers[layers.length - 1];
  return nearest === undefined ? null : { nearProfile: nearest.profile };
}

/** Mean ridge height of a profile (pixels). */
function layerTop(profile: Float32Array): number {
  let sum = 0;
  for (let x = 0; x < profile.length; x++) sum += profile[x]!;
  return sum / Math.max(1, profile.length);
}

function layerHeight(plan: ScenePlan, t: number, onHorizon: boolean): number {
  if (plan.terrain === 'mountains') return onHorizon ? 0.3 - t * 0.14 : 0.36 - t * 0.18;
  if (plan.terrain === 'dunes') return 0.12 - t * 0.04;
  return 0.16 - t * 0.06;
}

/** Profile height in 0..1 for a column coordinate. */
function ridgeShape(plan: ScenePlan, noise: ValueNoise, x: number, t: number): number {
  if (plan.terrain === 'mountains') {
    // Far ranges are jagged; the nearest ones soften into foothills.
    const jag = Math.pow(noise.ridged1(x, 5, 0.45), 1.25);
    const soft = noise.fbm1(x * 0.7, 4);
    const k = Math.min(1, t * 1.1);
    return clamp01((jag + (soft - jag) * k) * 1.15 - 0.05);
  }
  if (plan.terrain === 'dunes') {
    // Phase-warped sine: long windward slopes and steeper lee faces, like real dunes.
    const p = (x + noise.fbm1(x * 0.5, 2) * 0.8) * Math.PI * 2;
    const crest = 0.5 + 0.5 * Math.sin(p + 0.75 * Math.sin(p));
    return 0.2 + 0.8 * crest * (0.6 + 0.4 * noise.noise1(x * 0.3 + 9));
  }
  return noise.fbm1(x * 0.8, 4);
}

interface RidgeStyle {
  color: Rgb;
  haze: Rgb;
  mist: number;
  shadeStrength: number;
  lightDepth: number;
  /** How far (0..1) the light/shade boundary may wander: rocky for mountains, smooth for dunes. */
  jitter: number;
  sunSide: number;
  baseY: number;
  height: number;
  snow: Rgb | null;
  noise: ValueNoise;
}

function fillRidge(canvas: Canvas, profile: Float32Array, front: Float32Array | null, floor: number, s: RidgeStyle): void {
  const { width: w, unit: u } = canvas;
  const d = canvas.data;
  const band = u * 0.14;
  const decay = Math.exp(-1 / (u * s.lightDepth));
  const [cr, cg, cb] = s.color;
  const [hr, hg, hb] = s.haze;
  const { facing, capDepth } = columnLighting(profile, s, u);
  const fx = 10 / u;
  const fy = 6 / u;
  const reach = u * 0.15 * s.jitter;
  const textured = u * 0.5;
  for (let x = 0; x < w; x++) {
    const top = profile[x]!;
    const cap = capDepth[x]!;
    const y0 = Math.max(0, Math.floor(top));
    const y1 = front !== null ? Math.min(floor, Math.ceil(front[x]!) + 1) : floor;
    let fall = s.shadeStrength * Math.exp(-(y0 + 0.5 - top) / (u * s.lightDepth));
    for (let y = y0; y < y1; y++, fall *= decay) {
      const depth = y + 0.5 - top;
      const cover = depth >= 0.5 ? 1 : depth + 0.5;
      if (cover <= 0) continue;
      let light = 1;
      let snow = 0;
      if (depth < textured) {
        // The lit/shaded boundary wanders sideways with depth so faces read as rock
        // facets and gullies instead of straight vertical curtains below each peak.
        const n = s.noise.noise2(x * fx, y * fy);
        const sx = Math.round(x + (n - 0.5) * 2 * Math.min(depth, reach));
        const f = facing[sx < 0 ? 0 : sx >= w ? w - 1 : sx]!;
        light = (1 + f * fall) * (0.97 + 0.06 * n);
        if (cap > 0) {
          const line = cap * (0.7 + 0.6 * n);
          snow = depth >= line ? 0 : smoothstep(line, line * 0.8, depth) * (0.8 + 0.25 * f);
        }
      }
      let r = cr * light;
      let g = cg * light;
      let b = cb * light;
      if (snow > 0 && s.snow !== null) {
        r += (s.snow[0] - r) * snow;
        g += (s.snow[1] - g) * snow;
        b += (s.snow[2] - b) * snow;
      }
      const m = depth >= band ? 1 : depth / band;
      const mist = s.mist * m * m * (3 - 2 * m);
      r += (hr - r) * mist;
      g += (hg - g) * mist;
      b += (hb - b) * mist;
      const i = (y * w + x) * 3;
      d[i] = d[i]! + (r - d[i]!) * cover;
      d[i + 1] = d[i + 1]! + (g - d[i + 1]!) * cover;
      d[i + 2] = d[i + 2]! + (b - d[i + 2]!) * cover;
    }
  }
}

/**
 * Per-column slope facing (-1 shaded .. 1 lit) and snow-cap depth, both smoothed over a
 * window: raw per-column values from jagged noise would show up as vertical streaks.
 */
function columnLighting(profile: Float32Array, s: RidgeStyle, u: number): { facing: Float32Array; capDepth: Float32Array } {
  const w = profile.length;
  const k = Math.max(1, Math.round(u / 70));
  const facing = new Float32Array(w);
  const capDepth = new Float32Array(w);
  for (let x = 0; x < w; x++) {
    const left = profile[Math.max(0, x - k)]!;
    const right = profile[Math.min(w - 1, x + k)]!;
    facing[x] = Math.max(-1, Math.min(1, ((right - left) / (2 * k)) * s.sunSide * 1.6));
    if (s.snow !== null && s.height > 0) {
      const peak = (s.baseY - (left + right + 2 * profile[x]!) / 4) / s.height;
      capDepth[x] = Math.max(0, (peak - 0.4) * s.height * 0.55 * (0.6 + 0.8 * s.noise.fbm1((x / u) * 6, 3)));
    }
  }
  return { facing, capDepth };
}

interface Tree {
  x: number;
  y: number;
  size: number;
}

/** Tree silhouettes planted on (and just below) the nearest ridge, back to front. */
export interface TreeBand {
  color: Rgb;
  /** 0..1 share of the full tree count for this band. */
  density: number;
  /** Size multiplier (smaller on farther ridges). */
  scale: number;
  /** How far below the ridge line (pixels) trees may stand. */
  depth: number;
}

/** Tree silhouettes planted on (and below) a ridge line, drawn back to front. */
export function paintTrees(canvas: Canvas, plan: ScenePlan, ground: Float32Array, band: TreeBand, rng: Rng): void {
  const { width: w, unit: u } = canvas;
  const count = Math.round(plan.trees * band.density * 110 * (w / u));
  const trees: Tree[] = [];
  for (let i = 0; i < count; i++) {
    const x = rng.next() * w;
    const g = ground[Math.min(w - 1, Math.max(0, Math.floor(x)))]!;
    // Denser near the ridge line (far away), sparser and bigger towards the viewer.
    const spread = Math.pow(rng.next(), 1.8);
    const y = g + spread * band.depth;
    const depthK = 0.6 + 1.4 * spread * Math.min(1, band.depth / (u * 0.5));
    trees.push({ x, y, size: u * rng.range(0.045, 0.09) * depthK * band.scale });
  }
  trees.sort((a, b) => a.y - b.y);
  const highlight = mix(band.color, plan.palette.glow, 0.18);
  for (const tree of trees) {
    if (plan.treeStyle === 'pine') paintPine(canvas, tree, band.color);
    else paintRoundTree(canvas, tree, band.color, highlight);
  }
}

function paintPine(canvas: Canvas, t: Tree, color: Rgb): void {
  const top = t.y - t.size;
  canvas.rect(t.x - t.size * 0.03, t.y - t.size * 0.15, t.x + t.size * 0.03, t.y, color);
  for (let tier = 0; tier < 3; tier++) {
    const apex = top + tier * t.size * 0.24;
    const base = apex + t.size * 0.42;
    const half = t.size * (0.13 + tier * 0.05);
    const y0 = Math.max(0, Math.floor(apex));
    const y1 = Math.min(canvas.height - 1, Math.ceil(base));
    for (let y = y0; y <= y1; y++) {
      const f = (y + 0.5 - apex) / (base - apex);
      if (f < 0 || f > 1) continue;
      const hw = half * f;
      const x0 = Math.max(0, Math.floor(t.x - hw - 1));
      const x1 = Math.min(canvas.width - 1, Math.ceil(t.x + hw + 1));
      for (let x = x0; x <= x1; x++) {
        const cover = clamp01(hw - Math.abs(x + 0.5 - t.x) + 0.5);
        if (cover > 0) canvas.blendAt(y * canvas.width + x, color, cover);
      }
    }
  }
}

function paintRoundTree(canvas: Canvas, t: Tree, color: Rgb, highlight: Rgb): void {
  const r = t.size * 0.3;
  canvas.rect(t.x - t.size * 0.035, t.y - t.size * 0.45, t.x + t.size * 0.035, t.y, color);
  canvas.disc(t.x, t.y - t.size * 0.62, r, color);
  canvas.disc(t.x - r * 0.55, t.y - t.size * 0.5, r * 0.75, color);
  canvas.disc(t.x + r * 0.55, t.y - t.size * 0.52, r * 0.7, color);
  canvas.disc(t.x - r * 0.25, t.y - t.size * 0.72, r * 0.45, highlight, 0.5, r * 0.3);
}
