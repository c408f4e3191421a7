/**
 * Water below the horizon: a rippled mirror of everything already painted above it,
 * tinted towards the water colour with depth, plus wave streaks and sun glitter.
 */
import { Canvas } from './canvas.js';
import { mix, scale, smoothstep, type Rgb } from '../shared/color.js';
import { ValueNoise } from './noise.js';
import type { Rng } from '../shared/random.js';
import type { ScenePlan } from './scene-plan.js';

export function paintWater(canvas: Canvas, plan: ScenePlan, horizonY: number, rng: Rng): void {
  const { width: w, height: h, unit: u } = canvas;
  const d = canvas.data;
  const noise = new ValueNoise(rng);
  const hy = Math.floor(horizonY);
  const span = Math.max(1, h - hy);
  const shallow: Rgb = mix(plan.palette.water, plan.palette.sky[plan.palette.sky.length - 1] ?? plan.palette.water, 0.25);
  const deep: Rgb = scale(plan.palette.water, 0.55);
  const sun = plan.celestial;
  const sunX = sun !== null ? sun.x * w : -1;
  const sunR = sun !== null ? sun.radius * u : 0;
  const glitter: Rgb = sun !== null && sun.kind === 'moon' ? mix(plan.palette.sun, plan.palette.glow, 0.3) : mix(plan.palette.sun, plan.palette.glow, 0.5);
  const rough = plan.waves;
  const ox = rng.range(0, 100);
  const row = new Float32Array(w * 3);
  for (let y = hy; y < h; y++) {
    const t = (y + 0.5 - hy) / span;
    // Perspective: ripples are thin and dense at the horizon, broad up close.
    const persp = 0.04 + t * 0.96;
    const mirrorY = hy - 1 - (y - hy) * 0.9;
    const reflect = (0.82 - 0.45 * t) * (1 - rough * 0.45);
    const base = mix(shallow, deep, Math.pow(t, 0.7));
    const wobble = u * 0.03 * (0.3 + rough) * persp;
    // Ripples also stretch the reflection vertically: sample a slightly shifted row.
    const rowJitter = (noise.noise2(ox * 0.5, (y / u) * 40) - 0.5) * u * 0.02 * persp;
    const srcY = Math.max(0, Math.min(hy - 1, Math.round(mirrorY + rowJitter)));
    const fy = (y / u) * (14 / persp);
    // Copy the source row first: the same row buffer is read while displacing.
    row.set(d.subarray(srcY * w * 3, (srcY + 1) * w * 3));
    for (let x = 0; x < w; x++) {
      const nx = (x / u) * (1.6 / persp);
      const ripple = noise.noise2(ox + nx, fy);
      const sx = Math.max(0, Math.min(w - 1, Math.round(x + (ripple - 0.5) * 2 * wobble)));
      const si = sx * 3;
      const streak = noise.noise2(ox + nx * 0.35 + 40, fy * 1.3);
      const light = 1 + (streak - 0.5) * (0.3 + rough * 0.6);
      let r = (base[0] + (row[si]! - base[0]) * reflect) * light;
      let g = (base[1] + (row[si + 1]! - base[1]) * reflect) * light;
      let b = (base[2] + (row[si + 2]! - base[2]) * reflect) * light;
      if (sunR > 0) {
        const dx = (x - sunX) / (sunR * (0.8 + t * 2.2));
        const column = Math.exp(-dx * dx);
        if (column > 0.01) {
          const sparkle = Math.max(0, streak - 0.52) * 4.5 * column * (1 - t * 0.5);
          r += glitter[0] * sparkle;
          g += glitter[1] * sparkle;
          b += glitter[2] * sparkle;
        }
      }
      if (rough > 0.5) {
        // Whitecaps on the brightest streak crests of rough water.
        const foam = smoothstep(0.7, 0.85, streak) * (rough - 0.4) * (0.25 + 0.75 * t);
        r += (0.95 - r) * foam;
        g += (0.97 - g) * foam;
        b += (1 - b) * foam;
      }
      const i = (y * w + x) * 3;
      d[i] = r;
      d[i + 1] = g;
      d[i + 2] = b;
    }
  }
  // A faint bright line sells the horizon where sky meets water.
  if (hy >= 0 && hy < h) {
    for (let x = 0; x < w; x++) canvas.addAt(hy * w + x, plan.palette.glow, 0.06);
  }
}
