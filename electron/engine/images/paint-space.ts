/** Night-sky specials: aurora curtains, nebula clouds and a shaded planet. */
import { Canvas, Field } from './canvas.js';
import { hex, hsl, mix, smoothstep, WHITE, type Rgb } from '../shared/color.js';
import { ValueNoise } from './noise.js';
import type { Rng } from '../shared/random.js';
import type { ScenePlan } from './scene-plan.js';

const AURORA_LOW: Rgb = hex('#3dffa8');
const AURORA_HIGH: Rgb = hex('#b15cff');

/** Two additive curtains whose base line and brightness wander with 1-D noise. */
export function paintAurora(canvas: Canvas, bottomY: number, rng: Rng): void {
  const noise = new ValueNoise(rng);
  const u = canvas.unit;
  const tail = bottomY * 0.5;
  for (let curtain = 0; curtain < 2; curtain++) {
    const off = curtain * 37.7 + rng.range(0, 50);
    const base = bottomY * (0.42 + curtain * 0.16);
    const strength = curtain === 0 ? 0.75 : 0.45;
    for (let x = 0; x < canvas.width; x++) {
      const nx = x / u;
      const yb = base + bottomY * 0.22 * (noise.fbm1(off + nx * 1.4, 3) - 0.5) * 2;
      const intensity = smoothstep(0.3, 0.75, noise.fbm1(off + 9 + nx * 2.5, 3)) * (0.55 + 0.45 * noise.noise1(off + nx * 45));
      if (intensity <= 0.01) continue;
      const top = Math.max(0, Math.floor(yb - tail));
      const bottom = Math.min(Math.floor(bottomY), Math.ceil(yb + u * 0.03));
      for (let y = top; y < bottom; y++) {
        const t = (yb - y) / tail;
        const f = t >= 0 ? Math.exp(-t * 3.2) : Math.exp(-((y - yb) * (y - yb)) / (u * u * 0.0002));
        canvas.addAt(y * canvas.width + x, mix(AURORA_LOW, AURORA_HIGH, smoothstep(0, 0.8, t)), f * intensity * strength);
      }
    }
  }
}

/** Domain-warped fbm on a coarse grid, added as two coloured gas layers. */
export function paintNebula(canvas: Canvas, plan: ScenePlan, rng: Rng): void {
  const cell = Math.max(2, Math.round(canvas.unit / 72));
  const fw = Math.ceil(canvas.width / cell) + 1;
  const fh = Math.ceil(canvas.height / cell) + 1;
  const field = new Field(fw, fh, 3);
  const noise = new ValueNoise(rng);
  const accents = plan.palette.accents;
  const c1 = accents[1 % accents.length] ?? plan.palette.glow;
  const c2 = accents[2 % accents.length] ?? plan.palette.glow;
  const k = 2.2 / canvas.unit;
  const ox = rng.range(0, 100);
  for (let j = 0; j < fh; j++) {
    for (let i = 0; i < fw; i++) {
      const x = ox + i * cell * k;
      const y = j * cell * k;
      const wx = noise.fbm2(x + 5.2, y + 1.3, 3);
      const wy = noise.fbm2(x + 1.7, y + 9.2, 3);
      const a = noise.fbm2(x + wx * 1.6, y + wy * 1.6, 5);
      const b = noise.fbm2(x * 1.3 + 20 + wy, y * 1.3 + wx, 4);
      const ia = Math.pow(smoothstep(0.38, 0.85, a), 1.6) * 0.75;
      const ib = Math.pow(smoothstep(0.45, 0.9, b), 2) * 0.55;
      const o = (j * fw + i) * 3;
      field.data[o] = c1[0] * ia + c2[0] * ib;
      field.data[o + 1] = c1[1] * ia + c2[1] * ib;
      field.data[o + 2] = c1[2] * ia + c2[2] * ib;
    }
  }
  const row = new Float32Array(canvas.width * 3);
  const d = canvas.data;
  const step = 1 / cell;
  for (let y = 0; y < canvas.height; y++) {
    field.sampleRow(y * step, step, canvas.width, row);
    const base = y * canvas.width * 3;
    for (let k = 0; k < row.length; k++) d[base + k] = d[base + k]! + row[k]!;
  }
}

/** Lambert-shaded banded planet with an optional tilted ring and an atmospheric rim. */
export function paintPlanet(canvas: Canvas, plan: ScenePlan, rng: Rng): void {
  const noise = new ValueNoise(rng);
  const r = canvas.unit * rng.range(0.16, 0.3);
  const cx = canvas.width * rng.pick([rng.range(0.22, 0.4), rng.range(0.6, 0.78)]);
  const cy = canvas.height * rng.range(0.35, 0.65);
  const accents = plan.palette.accents.length > 0 ? plan.palette.accents : [plan.palette.glow];
  const base = mix(rng.pick(accents), hsl(rng.range(0, 360), 0.5, 0.6), rng.range(0.1, 0.5));
  const band = mix(plan.palette.far, rng.pick(accents), rng.range(0.3, 0.7));
  const la = rng.range(-2.6, -0.6);
  const lx = Math.cos(la);
  const ly = Math.sin(la);
  const ringed = plan.planetRing;
  const tilt = rng.range(-0.45, 0.45);
  const ct = Math.cos(tilt);
  const st = Math.sin(tilt);
  const reach = ringed ? r * 2.3 : r * 1.15;
  // Band pattern and ring density are 1-D functions: tabulate once instead of per pixel.
  const stripes = new Float32Array(257);
  for (let k = 0; k <= 256; k++) stripes[k] = smoothstep(0.3, 0.7, noise.fbm1((k / 128 - 1) * 7, 3));
  const ringDensity = new Float32Array(257);
  for (let k = 0; k <= 256; k++) ringDensity[k] = 0.45 + 0.55 * noise.noise1((0.6 + (k / 256) * 0.4) * 40);
  canvas.glow(cx, cy, r * 1.6, plan.palette.glow, 0.25, 2);
  const x0 = Math.max(0, Math.floor(cx - reach));
  const x1 = Math.min(canvas.width - 1, Math.ceil(cx + reach));
  // The tilted ring is wide but flat: its vertical reach is far smaller than its width.
  const reachY = ringed ? Math.max(r * 1.15, r * Math.hypot(2.2 * st, 0.42 * ct) + 2) : reach;
  const y0 = Math.max(0, Math.floor(cy - reachY));
  const y1 = Math.min(canvas.height - 1, Math.ceil(cy + reachY));
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      const dx = (x + 0.5 - cx) / r;
      const dy = (y + 0.5 - cy) / r;
      const d2 = dx * dx + dy * dy;
      const p = y * canvas.width + x;
      const edge = (1 - Math.sqrt(d2)) * r;
      if (edge > -1) {
        const nz = Math.sqrt(Math.max(0, 1 - d2));
        const diffuse = Math.max(0, dx * lx + dy * ly + nz * 0.35);
        const lat = Math.max(-1, Math.min(1, dy * ct - dx * st + Math.sin(dx * 3) * 0.04));
        const surface = mix(base, band, stripes[((lat + 1) * 128) | 0]!);
        const lightK = 0.06 + 0.94 * Math.pow(diffuse, 0.8);
        const rim = Math.pow(1 - nz, 3) * diffuse * 0.8;
        const c: Rgb = [surface[0] * lightK + rim * 0.6, surface[1] * lightK + rim * 0.7, surface[2] * lightK + rim];
        canvas.blendAt(p, c, edge >= 1 ? 1 : (edge + 1) / 2);
      }
      if (ringed) {
        const rx = (dx * ct + dy * st) / 2.2;
        const ry = (-dx * st + dy * ct) / 0.42;
        const e = Math.sqrt(rx * rx + ry * ry);
        const behind = ry < 0 && d2 < 1;
        if (e > 0.6 && e < 1 && !behind) {
          const ringBand = ringDensity[((e - 0.6) * 640) | 0]!;
          const fade = smoothstep(0.6, 0.66, e) * smoothstep(1, 0.95, e);
          canvas.blendAt(p, mix(band, WHITE, 0.4), 0.7 * ringBand * fade);
        }
      }
    }
  }
}
