/** Sky layers: gradient, sun/moon with halo, stars and fbm clouds. */
import { Canvas, Field } from './canvas.js';
import { luminance, mix, sampleStops, scale, smoothstep, WHITE, type Rgb } from '../shared/color.js';
import { ValueNoise } from './noise.js';
import type { Rng } from '../shared/random.js';
import type { Celestial, ScenePlan } from './scene-plan.js';

/** Vertical sky gradient down to `bottomY`; rows below keep the horizon colour. */
export function paintSkyGradient(canvas: Canvas, stops: readonly Rgb[], bottomY: number): void {
  const span = Math.max(1, bottomY);
  canvas.fillRows(0, canvas.height, (y) => sampleStops(stops, Math.pow(Math.min(1, (y + 0.5) / span), 0.85)));
}

export function paintCelestial(canvas: Canvas, plan: ScenePlan, body: Celestial, rng: Rng): void {
  const { palette } = plan;
  const cx = body.x * canvas.width;
  const cy = body.y * canvas.height;
  const r = body.radius * canvas.unit;
  if (body.kind === 'moon') {
    canvas.glow(cx, cy, r * 6, palette.glow, 0.22, 2.6);
    canvas.glow(cx, cy, r * 2, palette.sun, 0.25, 1.8);
    canvas.disc(cx, cy, r, scale(mix(palette.sun, WHITE, 0.5), 1.1), 1, 1);
    // A few faint maria make it read as a moon rather than a white dot.
    for (let i = 0; i < 5; i++) {
      const a = rng.range(0, Math.PI * 2);
      const cr = r * rng.range(0.12, 0.3);
      const dist = rng.range(0, r - cr * 1.1);
      canvas.disc(cx + Math.cos(a) * dist, cy + Math.sin(a) * dist, cr, mix(palette.sun, palette.far, 0.5), 0.18, cr * 0.6);
    }
    return;
  }
  // A bright daytime sky needs less halo, or the whole top of the frame burns out.
  const skyThere = luminance(sampleStops(palette.sky, body.y / Math.max(0.05, plan.horizon)));
  const halo = skyThere > 0.55 ? 0.55 : 1;
  canvas.glow(cx, cy, r * 8, palette.glow, 0.35 * halo, 2.8);
  canvas.glow(cx, cy, r * 2.6, palette.glow, 0.45 * halo, 1.7);
  // The disc is over-bright (clamped at encode) so it never reads darker than its own halo.
  const top = scale(palette.sun, 1.25);
  paintSunDisc(canvas, cx, cy, r, top, body.striped ? palette.glow : scale(mix(palette.sun, palette.glow, 0.25), 1.2), body.striped);
}

/** Sun disc with a vertical tint; the striped variant cuts retro bands into its lower half. */
function paintSunDisc(canvas: Canvas, cx: number, cy: number, r: number, top: Rgb, bottom: Rgb, striped: boolean): void {
  const x0 = Math.max(0, Math.floor(cx - r - 1));
  const x1 = Math.min(canvas.width - 1, Math.ceil(cx + r + 1));
  const y0 = Math.max(0, Math.floor(cy - r - 1));
  const y1 = Math.min(canvas.height - 1, Math.ceil(cy + r + 1));
  for (let y = y0; y <= y1; y++) {
    const dy = y + 0.5 - cy;
    const t = (dy / r + 1) / 2;
    if (striped && t > 0.55) {
      // Bands get thicker towards the bottom, like an 80s poster sun.
      const band = ((t - 0.55) * 9) % 1;
      const gap = 0.15 + (t - 0.55) * 1.1;
      if (band < gap) continue;
    }
    const c = mix(top, bottom, smoothstep(0, 1, t));
    for (let x = x0; x <= x1; x++) {
      const dx = x + 0.5 - cx;
      const edge = r - Math.sqrt(dx * dx + dy * dy);
      if (edge <= -1) continue;
      canvas.blendAt(y * canvas.width + x, c, edge >= 1 ? 1 : (edge + 1) / 2);
    }
  }
}

/** Point stars with a few glowing bright ones; they fade out towards the horizon haze. */
export function paintStars(canvas: Canvas, density: number, bottomY: number, tint: Rgb, rng: Rng): void {
  const aspect = canvas.width / canvas.height;
  const count = Math.round(density * 420 * Math.max(aspect, 1 / aspect) * (bottomY / canvas.height));
  const px = Math.max(1, canvas.unit / 512);
  for (let i = 0; i < count; i++) {
    const x = rng.next() * canvas.width;
    const y = rng.next() * bottomY;
    const b = Math.pow(rng.next(), 2.6);
    const fade = smoothstep(bottomY, bottomY * 0.55, y);
    const c = rng.chance(0.25) ? mix(WHITE, tint, 0.6) : WHITE;
    canvas.disc(x, y, px * (0.45 + b * 0.9), c, (0.35 + 0.65 * b) * fade, 0.6);
    if (b > 0.55) canvas.glow(x, y, px * (3 + b * 5), c, 0.35 * b * fade, 3);
  }
}

/**
 * Clouds from thresholded fbm on a coarse grid: density plus a second sample towards
 * the light gives cheap top lighting.
 */
export function paintClouds(canvas: Canvas, plan: ScenePlan, bottomY: number, rng: Rng): void {
  const cell = Math.max(2, Math.round(canvas.unit / 128));
  const fw = Math.ceil(canvas.width / cell) + 1;
  const fh = Math.ceil(bottomY / cell) + 1;
  const field = new Field(fw, fh, 4);
  const noise = new ValueNoise(rng);
  const { palette } = plan;
  const threshold = 0.62 - plan.clouds * 0.26;
  const lit = palette.night ? mix(palette.glow, WHITE, 0.3) : mix(palette.sun, WHITE, 0.55);
  const shade = mix(sampleStops(palette.sky, 0.45), palette.near, palette.night ? 0.5 : 0.28);
  const ox = rng.range(0, 100);
  const scaleX = 2.2 / canvas.unit;
  const scaleY = 5.5 / canvas.unit;
  const lift = 0.06;
  for (let j = 0; j < fh; j++) {
    const py = j * cell;
    // Heavy cover reaches the top of the frame; light cover floats mid-sky.
    const vertical = smoothstep(bottomY, bottomY * 0.7, py) * (plan.clouds > 0.8 ? 1 : smoothstep(0, bottomY * 0.25, py));
    for (let i = 0; i < fw; i++) {
      const px = i * cell;
      const d = noise.fbm2(ox + px * scaleX, py * scaleY, 5);
      const a = smoothstep(threshold, threshold + 0.2, d) * vertical;
      const o = (j * fw + i) * 4;
      field.data[o + 3] = a;
      if (a <= 0) continue;
      const above = noise.fbm2(ox + px * scaleX, py * scaleY - lift * 5.5, 5);
      const light = smoothstep(-0.08, 0.1, d - above);
      const c = mix(shade, lit, 0.25 + 0.75 * light);
      // Premultiplied so bilinear sampling never drags black into cloud edges.
      field.data[o] = c[0] * a;
      field.data[o + 1] = c[1] * a;
      field.data[o + 2] = c[2] * a;
    }
  }
  const row = new Float32Array(canvas.width * 4);
  const step = 1 / cell;
  const d = canvas.data;
  for (let y = 0; y < Math.min(canvas.height, bottomY); y++) {
    field.sampleRow(y * step, step, canvas.width, row);
    let i = y * canvas.width * 3;
    for (let x = 0, o = 0; x < canvas.width; x++, o += 4, i += 3) {
      const cover = row[o + 3]!;
      if (cover <= 0.002) continue;
      const a = cover * 0.92;
      const inv = 1 / cover;
      d[i] = d[i]! + (row[o]! * inv - d[i]!) * a;
      d[i + 1] = d[i + 1]! + (row[o + 1]! * inv - d[i + 1]!) * a;
      d[i + 2] = d[i + 2]! + (row[o + 2]! * inv - d[i + 2]!) * a;
    }
  }
}

/** Thin slanted rain streaks over the whole frame. */
export function paintRain(canvas: Canvas, amount: number, tint: Rgb, rng: Rng): void {
  const count = Math.round(amount * 650 * (canvas.width / canvas.unit));
  const slant = rng.range(-0.25, 0.1);
  for (let k = 0; k < count; k++) {
    const x0 = rng.next() * canvas.width;
    const y0 = rng.next() * canvas.height;
    const len = canvas.unit * rng.range(0.02, 0.06);
    const alpha = rng.range(0.08, 0.22);
    const steps = Math.ceil(len);
    for (let s = 0; s < steps; s++) {
      const y = Math.floor(y0 + s);
      const x = Math.floor(x0 + s * slant);
      if (y < 0 || y >= canvas.height || x < 0 || x >= canvas.width) continue;
      canvas.blendAt(y * canvas.width + x, tint, alpha);
    }
  }
}
