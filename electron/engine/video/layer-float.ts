/**
 * Things that drift in front of the scene: bokeh, fireflies, snow, rain, petals, leaves
 * and bubbles, plus the large slowly orbiting colour blobs of abstract scenes.
 * Positions are closed-form functions of time (no simulation state), so any frame can
 * be rendered on its own and the result is deterministic.
 */
import { hex, mix, toYuv, type Rgb, type Yuv } from './color.js';
import type { Rng } from '../shared/random.js';
import type { Floaters, VideoScene } from './scene-plan.js';
import { blendDisc, blendGlow, plot, type YuvFrame } from './yuv-frame.js';

interface Particle {
  x: number;
  y: number;
  size: number;
  speed: number;
  phase: number;
  color: Yuv;
  alpha: number;
}

interface Blob {
  ax: number;
  ay: number;
  fx: number;
  fy: number;
  px: number;
  py: number;
  r: number;
  color: Yuv;
}

const STYLE_COLORS: Partial<Record<Floaters, Rgb[]>> = {
  snow: [[1, 1, 1], hex('#e8f1ff')],
  rain: [hex('#c9d6e3'), hex('#aebfd0')],
  petals: [hex('#ffb7c5'), hex('#ffd1dc'), hex('#fff0f5')],
  leaves: [hex('#e07a2f'), hex('#c9482b'), hex('#f2b134')],
  fireflies: [hex('#fff6a0'), hex('#d8ff7a')],
};

export class FloatLayer {
  private readonly particles: Particle[] = [];
  private readonly blobs: Blob[] = [];

  constructor(private readonly scene: VideoScene, private readonly w: number, private readonly h: number, rng: Rng) {
    const style = scene.floaters;
    const colors = (STYLE_COLORS[style] ?? scene.palette.accents).map(toYuv);
    const base = style === 'rain' ? 160 : style === 'snow' ? 140 : style === 'bokeh' ? 22 : style === 'fireflies' ? 40 : 50;
    const count = Math.round(base * scene.floaterDensity * Math.sqrt((w * h) / (854 * 480)));
    const pr = rng.fork('particles');
    for (let i = 0; i < count; i++) {
      const depth = pr.range(0.3, 1);
      this.particles.push({
        x: pr.next(),
        y: pr.next(),
        size: depth,
        speed: pr.range(0.7, 1.3),
        phase: pr.range(0, Math.PI * 2),
        color: pr.pick(colors),
        alpha: pr.range(0.5, 0.9),
      });
    }
    const br = rng.fork('blobs');
    const accents = scene.palette.accents;
    for (let i = 0; i < scene.blobs; i++) {
      this.blobs.push({
        ax: br.range(0.2, 0.4), ay: br.range(0.15, 0.35),
        fx: br.range(0.12, 0.3), fy: br.range(0.1, 0.25),
        px: br.range(0, 6.28), py: br.range(0, 6.28),
        r: br.range(0.35, 0.6),
        color: toYuv(mix(accents[i % accents.length] ?? [1, 1, 1], scene.palette.glow, br.range(0, 0.3))),
      });
    }
  }

  /** Abstract blobs sit behind everything else, so they are drawn separately. */
  drawBlobs(f: YuvFrame, time: number): void {
    const { w, h } = this;
    const t = time * this.scene.tempo;
    for (const b of this.blobs) {
      const x = w * (0.5 + b.ax * Math.sin(b.px + t * b.fx * 2));
      const y = h * (0.5 + b.ay * Math.sin(b.py + t * b.fy * 2));
      blendGlow(f, x, y, b.r * h * (1 + 0.08 * Math.sin(b.px + t)), b.color, 1.3);
    }
  }

  draw(f: YuvFrame, time: number): void {
    const { w, h } = this;
    const t = time * this.scene.tempo;
    const unit = h / 480;
    const wrap = (v: number): number => v - Math.floor(v);
    for (const p of this.particles) {
      switch (this.scene.floaters) {
        case 'snow': {
          const y = wrap(p.y + t * 0.08 * p.speed * p.size) * (h + 8) - 4;
          const x = wrap(p.x + 0.015 * Math.sin(p.phase + t * 1.3) + t * 0.01 * Math.sign(this.scene.pan)) * w;
          blendDisc(f, x, y, (0.8 + p.size * 1.8) * unit, p.color, p.alpha * p.size, 1.5);
          break;
        }
        case 'rain': {
          const y = wrap(p.y + t * 1.4 * p.speed) * (h + 40) - 20;
          const x = wrap(p.x + t * 0.05) * w;
          const len = 18 * unit * p.size;
          for (let s = 0; s < len; s++) plot(f, x - s * 0.25, y - s, p.color, 0.55 * p.size * (1 - s / len));
          break;
        }
        case 'fireflies': {
          const x = wrap(p.x + 0.04 * Math.sin(p.phase + t * 0.6 * p.speed)) * w;
          const y = (0.45 + 0.5 * p.y + 0.03 * Math.cos(p.phase * 1.3 + t * 0.8)) * h;
          const blink = Math.max(0, Math.sin(p.phase + t * 1.7 * p.speed));
          blendGlow(f, x, y, 7 * unit * p.size, p.color, 0.5 * blink);
          plot(f, x, y, p.color, blink);
          break;
        }
        case 'petals':
        case 'leaves': {
          const y = wrap(p.y + t * 0.07 * p.speed) * (h + 10) - 5;
          const x = wrap(p.x + t * 0.04 + 0.03 * Math.sin(p.phase + t * 1.6)) * w;
          blendDisc(f, x, y, (2.2 + 3 * p.size) * unit * (0.75 + 0.25 * Math.sin(p.phase + t * 3)), p.color, p.alpha, 1.2);
          break;
        }
        case 'bubbles': {
          const y = (1 - wrap(p.y + t * 0.06 * p.speed)) * (h + 20) - 10;
          const x = wrap(p.x + 0.01 * Math.sin(p.phase + t * 2)) * w;
          const r = (2 + 5 * p.size) * unit;
          blendDisc(f, x, y, r, p.color, 0.18, 1.5);
          plot(f, x - r * 0.4, y - r * 0.4, p.color, 0.8);
          break;
        }
        case 'bokeh': {
          const y = (1 - wrap(p.y + t * 0.015 * p.speed)) * (h * 1.2) - h * 0.1;
          const x = wrap(p.x + 0.02 * Math.sin(p.phase + t * 0.5)) * w;
          const r = (10 + 26 * p.size) * unit;
          blendDisc(f, x, y, r, p.color, 0.22 * p.alpha * (0.75 + 0.25 * Math.sin(p.phase + t)), r * 0.6);
          break;
        }
        case 'none':
          return;
      }
    }
  }
}
