/**
 * Everything above the ground: sky gradient, nebulae, aurora, twinkling stars, a
 * drifting sun or moon, a rare shooting star and parallax clouds.
 */
import { mix, sampleStops, scale, toYuv, type Rgb, type Yuv } from './color.js';
import type { Rng } from '../shared/random.js';
import type { VideoScene } from './scene-plan.js';
import { blendDisc, blendGlow, fillRows, fillRowSpan, plot, rowGradient, shadeDisc, type RowColors, type YuvFrame } from './yuv-frame.js';

interface Glow {
  x: number;
  y: number;
  r: number;
  color: Yuv;
  alpha: number;
  phase: number;
  squash: number;
}

interface Cloud {
  x: number;
  y: number;
  speed: number;
  size: number;
  /** Puff offsets/radii relative to the cloud centre, in pixels. */
  puffs: { dx: number; dy: number; r: number }[];
  lit: Yuv;
  shade: Yuv;
  alpha: number;
}

export class SkyLayer {
  private readonly rows: RowColors;
  private readonly starX: Float32Array;
  private readonly starY: Float32Array;
  private readonly starLevel: Float32Array;
  private readonly starPhase: Float32Array;
  private readonly starColor: Yuv[];
  private readonly glows: Glow[] = [];
  private readonly clouds: Cloud[] = [];
  private readonly shootAt: number;
  private readonly craters: { dx: number; dy: number; r: number }[] = [];
  private readonly planet: { x: number; y: number; dx: number; r: number; lit: Yuv; dark: Yuv; band: number } | null;

  constructor(private readonly scene: VideoScene, private readonly w: number, private readonly h: number, private readonly seconds: number, frame: YuvFrame, rng: Rng) {
    const { palette } = scene;
    const skyEnd = scene.kind === 'landscape' ? scene.horizon : 1;
    this.rows = rowGradient(frame, (fy) => sampleStops(palette.sky, Math.min(1, fy / skyEnd)));

    const starRng = rng.fork('stars');
    const count = Math.round((scene.stars * (w * h)) / (scene.kind === 'space' ? 1000 : 2200));
    this.starX = new Float32Array(count);
    this.starY = new Float32Array(count);
    this.starLevel = new Float32Array(count);
    this.starPhase = new Float32Array(count);
    const tints: Rgb[] = [[1, 1, 1], [1, 1, 1], mix([1, 1, 1], palette.glow, 0.4), ...palette.accents.map((a) => mix([1, 1, 1], a, 0.35))];
    this.starColor = tints.map(toYuv);
    for (let i = 0; i < count; i++) {
      this.starX[i] = starRng.range(0, w);
      // Denser towards the zenith, fading out near the horizon haze.
      this.starY[i] = Math.pow(starRng.next(), 1.4) * skyEnd * h * 0.95;
      this.starLevel[i] = starRng.chance(0.08) ? starRng.range(0.85, 1) : starRng.range(0.25, 0.7);
      this.starPhase[i] = starRng.range(0, Math.PI * 2);
    }
    this.shootAt = scene.stars > 0 && starRng.chance(0.7) ? starRng.range(0.15, 0.75) : -1;

    const glowRng = rng.fork('glows');
    if (scene.nebula) {
      for (let i = 0; i < 6; i++) {
        const color = toYuv(glowRng.pick(palette.accents));
        this.glows.push({ x: glowRng.range(0.1, 0.9) * w, y: glowRng.range(0.15, 0.85) * h, r: glowRng.range(0.3, 0.55) * h, color, alpha: glowRng.range(0.45, 0.75), phase: glowRng.range(0, 6.28), squash: glowRng.range(0.5, 1) });
      }
    }
    if (scene.aurora) {
      const a = palette.accents;
      const green = toYuv(mix([0.3, 1, 0.6], a[2] ?? a[0] ?? [0.3, 1, 0.6], 0.3));
      const violet = toYuv(mix([0.6, 0.4, 1], a[1] ?? [0.6, 0.4, 1], 0.3));
      const wave = glowRng.range(0, 6.28);
      for (let i = 0; i < 24; i++) {
        this.glows.push({ x: (i / 23) * w * 1.1 - w * 0.05, y: h * (0.2 + 0.07 * Math.sin(i * 0.45 + wave)), r: h * 0.11, color: i % 4 === 3 ? violet : green, alpha: 0.24, phase: i * 0.6 + wave, squash: 2.2 });
      }
    }

    const cloudRng = rng.fork('clouds');
    const cloudCount = scene.clouds > 0 ? Math.round(2 + scene.clouds * 7) : 0;
    const lit = toYuv(palette.family === 'storm' ? mix(palette.sky[1] ?? [0.5, 0.5, 0.5], [1, 1, 1], 0.25) : mix([1, 1, 1], palette.glow, 0.25));
    const shade = toYuv(palette.family === 'storm' ? scale(palette.sky[0] ?? [0.3, 0.3, 0.3], 0.9) : mix(sampleStops(palette.sky, 0.5), palette.far, 0.35));
    for (let i = 0; i < cloudCount; i++) {
      const size = h * cloudRng.range(0.045, 0.08) * (palette.family === 'storm' ? 1.5 : 1);
      const n = cloudRng.int(5, 9);
      // Puffs overlap heavily and are biggest in the middle: a cumulus outline.
      const puffs = Array.from({ length: n }, (_, k) => {
        const u = (k / (n - 1)) * 2 - 1;
        const r = size * (1 - 0.45 * u * u) * cloudRng.range(0.75, 1.1);
        return { dx: u * size * 1.7 + cloudRng.range(-0.15, 0.15) * size, dy: -r * 0.35 + cloudRng.range(-0.1, 0.1) * size, r };
      });
      this.clouds.push({
        x: cloudRng.range(-0.1, 1.1) * w,
        y: cloudRng.range(0.1, Math.max(0.14, skyEnd - 0.22)) * h,
        size,
        speed: (scene.pan * 0.6 + cloudRng.range(-0.004, 0.004)) * w * (0.6 + (size / h) * 6),
        puffs, lit, shade,
        alpha: cloudRng.range(0.75, 0.95),
      });
    }
    const planetRng = rng.fork('planet');
    const body = planetRng.pick(palette.accents);
    this.planet = scene.planet
      ? { x: planetRng.range(0.2, 0.8), y: planetRng.range(0.25, 0.7), dx: planetRng.range(0.03, 0.06) * planetRng.sign(), r: planetRng.range(0.12, 0.22), lit: toYuv(mix(body, [1, 1, 1], 0.2)), dark: toYuv(scale(body, 0.08)), band: planetRng.range(0, 6.28) }
      : null;
    const moonRng = rng.fork('moon');
    for (let i = 0; i < 4; i++) this.craters.push({ dx: moonRng.range(-0.5, 0.5), dy: moonRng.range(-0.5, 0.5), r: moonRng.range(0.1, 0.24) });
  }

  /** time in seconds; progress 0..1 over the clip. */
  draw(f: YuvFrame, time: number, progress: number): void {
    const { scene, w, h } = this;
    const skyBottom = scene.kind === 'landscape' ? Math.ceil(scene.horizon * h) + 2 : h;
    fillRows(f, this.rows, 0, skyBottom);
    for (const g of this.glows) {
      const wobble = Math.sin(g.phase + time * 0.5 * scene.tempo);
      blendGlow(f, g.x + wobble * w * 0.03, g.y + Math.cos(g.phase + time * 0.3) * h * 0.02, g.r, g.color, g.alpha * (0.8 + 0.2 * wobble), g.squash);
    }
    this.drawStars(f, time);
    this.drawPlanet(f, progress);
    this.drawCelestial(f, time, progress);
    for (const c of this.clouds) {
      // Wrap around with a margin as wide as the cloud, so it never pops in or out.
      const margin = c.size * 3.4;
      const span = w + 2 * margin;
      const x = ((((c.x + c.speed * time + margin) % span) + span) % span) - margin;
      // A flat shaded base, then lit puffs (glow with alpha > 1 = solid core, soft rim).
      blendGlow(f, x, c.y + c.size * 0.25, c.size * 3.4, c.shade, c.alpha * 1.8, 0.32);
      for (const p of c.puffs) blendGlow(f, x + p.dx, c.y + p.dy, p.r * 1.6, c.lit, c.alpha * 2.6);
    }
  }

  /** A lit sphere with soft bands, drifting slowly across the frame. */
  private drawPlanet(f: YuvFrame, progress: number): void {
    const p = this.planet;
    if (p === null) return;
    const x = (p.x + p.dx * progress) * this.w;
    shadeDisc(f, x, p.y * this.h, p.r * this.h, p.dark, p.lit, (nx, ny, nz) => {
      const light = Math.max(0, nx * -0.6 + ny * -0.45 + nz * 0.66);
      return light * (0.85 + 0.15 * Math.sin(ny * 11 + p.band));
    });
  }

  private drawStars(f: YuvFrame, time: number): void {
    const n = this.starX.length;
    if (n === 0) return;
    const drift = time * this.w * 0.004 * Math.sign(this.scene.pan);
    const colors = this.starColor;
    for (let i = 0; i < n; i++) {
      const level = this.starLevel[i]!;
      const phase = this.starPhase[i]!;
      const twinkle = level * (0.6 + 0.4 * Math.sin(phase + time * (2 + (phase % 1.7) * 2)));
      const x = (((this.starX[i]! + drift) % this.w) + this.w) % this.w;
      const y = this.starY[i]!;
      const color = colors[i % colors.length]!;
      plot(f, x, y, color, twinkle);
      if (level > 0.8) {
        const arm = twinkle * 0.45;
        plot(f, x - 1, y, color, arm);
        plot(f, x + 1, y, color, arm);
        plot(f, x, y - 1, color, arm);
        plot(f, x, y + 1, color, arm);
      }
    }
    // A shooting star crosses the sky once during ~0.7 s of the clip.
    if (this.shootAt >= 0) {
      const start = this.shootAt * this.seconds;
      const k = (time - start) / 0.7;
      if (k >= 0 && k <= 1) {
        const x0 = this.w * (0.2 + this.shootAt * 0.6);
        const y0 = this.h * 0.12;
        const len = this.h * 0.25;
        const white = this.starColor[0]!;
        for (let s = 0; s < len; s++) {
          const along = k * this.h * 0.5 - s;
          if (along < 0) break;
          plot(f, x0 + along * 0.9, y0 + along * 0.45, white, (1 - s / len) * (1 - k) * 0.9);
        }
      }
    }
  }

  private drawCelestial(f: YuvFrame, time: number, progress: number): void {
    const c = this.scene.celestial;
    if (c === null) return;
    const { palette } = this.scene;
    const { w, h } = this;
    const x = (c.x + c.dx * progress) * w;
    const y = (c.y + c.dy * progress) * h;
    const r = c.radius * h;
    const pulse = 1 + 0.04 * Math.sin(time * 1.3);
    blendGlow(f, x, y, r * 5 * pulse, toYuv(palette.glow), c.kind === 'sun' ? 0.55 : 0.3);
    blendGlow(f, x, y, r * 2.2, toYuv(mix(palette.sun, palette.glow, 0.3)), c.kind === 'sun' ? 0.5 : 0.25);
    blendDisc(f, x, y, r, toYuv(c.kind === 'sun' ? palette.sun : mix(palette.sun, [0.95, 0.95, 0.9], 0.5)), 1, 1.5);
    if (c.kind === 'moon') {
      const crater = toYuv(mix(palette.sun, palette.far, 0.35));
      for (const k of this.craters) blendDisc(f, x + k.dx * r, y + k.dy * r, k.r * r, crater, 0.25, 2);
    } else if (c.striped) {
      // Synthwave sun: horizontal cut-outs in the lower half that slide downwards.
      const gap = Math.max(2, r * 0.12);
      const shift = (time * gap * 1.2) % (gap * 2);
      for (let sy = y + shift; sy < y + r; sy += gap * 2) {
        const band = gap * (0.35 + 0.6 * ((sy - y) / r));
        const dy = sy - y;
        const half = Math.sqrt(Math.max(0, r * r - dy * dy)) + 2;
        fillRowSpan(f, this.rows, sy, sy + band, x - half, x + half);
      }
    }
  }
}
