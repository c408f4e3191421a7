/** City skyline: two rows of buildings on the horizon with lit window grids. */
import { Canvas } from './canvas.js';
import { mix, sampleStops, type Rgb } from '../shared/color.js';
import type { Rng } from '../shared/random.js';
import type { ScenePlan } from './scene-plan.js';

export function paintCity(canvas: Canvas, plan: ScenePlan, horizonY: number, rng: Rng): void {
  const { palette } = plan;
  const haze = sampleStops(palette.sky, 0.9);
  const windowColors: Rgb[] = palette.night ? palette.accents.map((a) => mix(a, [1, 0.9, 0.6], 0.35)) : [mix(haze, [1, 1, 1], 0.5)];
  const rows = [
    { depth: 0, color: mix(palette.far, haze, 0.45), tall: 0.42, lit: palette.night ? 0.25 : 0.12 },
    { depth: 1, color: mix(palette.near, [0, 0, 0], 0.2), tall: 0.3, lit: palette.night ? 0.4 : 0.2 },
  ];
  for (const row of rows) {
    let x = -rng.range(0, canvas.unit * 0.05);
    while (x < canvas.width) {
      const bw = canvas.unit * rng.range(0.035, 0.09) * (row.depth === 0 ? 0.85 : 1);
      // Taller towers cluster around a random downtown centre.
      const centre = Math.exp(-Math.pow((x / canvas.width - 0.5) * 2.2, 2));
      const bh = canvas.unit * row.tall * rng.range(0.25, 1) * (0.45 + 0.55 * centre);
      const top = horizonY - bh;
      canvas.rect(x, top, x + bw, horizonY + 1, row.color);
      if (rng.chance(0.3)) {
        // Stepped crown or antenna for a less blocky silhouette.
        canvas.rect(x + bw * 0.25, top - bh * 0.08, x + bw * 0.75, top, row.color);
        if (rng.chance(0.5)) canvas.rect(x + bw * 0.48, top - bh * 0.22, x + bw * 0.52, top - bh * 0.08, row.color);
      }
      paintWindows(canvas, x, top, bw, horizonY, row.lit, windowColors, rng);
      x += bw + canvas.unit * rng.range(0, 0.012);
    }
  }
}

function paintWindows(canvas: Canvas, x0: number, top: number, bw: number, bottom: number, lit: number, colors: readonly Rgb[], rng: Rng): void {
  const cell = Math.max(2, canvas.unit / 110);
  const cols = Math.floor((bw - cell) / cell);
  const rowsN = Math.floor((bottom - top - cell) / (cell * 1.4));
  if (cols < 1 || rowsN < 1) return;
  const color = rng.pick(colors);
  for (let r = 0; r < rowsN; r++) {
    for (let c = 0; c < cols; c++) {
      if (!rng.chance(lit)) continue;
      const wx = x0 + cell * 0.75 + c * cell;
      const wy = top + cell + r * cell * 1.4;
      canvas.rect(wx, wy, wx + cell * 0.55, wy + cell * 0.7, color, rng.range(0.55, 1));
    }
  }
}
