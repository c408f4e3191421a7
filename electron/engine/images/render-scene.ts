/** Paints a ScenePlan onto a canvas, back to front. */
import { Canvas } from './canvas.js';
import { mix, sampleStops } from '../shared/color.js';
import { paintBokeh, paintGeometric, paintGridFloor, paintMeshGradient, paintRibbons } from './paint-abstract.js';
import { paintCity } from './paint-city.js';
import { paintCelestial, paintClouds, paintRain, paintSkyGradient, paintStars } from './paint-sky.js';
import { paintAurora, paintNebula, paintPlanet } from './paint-space.js';
import { paintTerrain, paintTrees } from './paint-terrain.js';
import { paintWater } from './paint-water.js';
import { Rng } from '../shared/random.js';
import type { ScenePlan } from './scene-plan.js';

export function renderScene(plan: ScenePlan, width: number, height: number, seed: number): Canvas {
  const canvas = new Canvas(width, height);
  const rng = new Rng(seed);
  if (plan.kind === 'abstract') renderAbstract(canvas, plan, rng);
  else if (plan.kind === 'space') renderSpace(canvas, plan, rng);
  else renderLandscape(canvas, plan, rng);
  canvas.vignette(plan.kind === 'abstract' ? 0.18 : 0.24);
  return canvas;
}

function renderAbstract(canvas: Canvas, plan: ScenePlan, rng: Rng): void {
  paintMeshGradient(canvas, plan, rng.fork('mesh'));
  if (plan.ribbons) paintRibbons(canvas, plan, rng.fork('ribbons'));
  if (plan.geometric) paintGeometric(canvas, plan, rng.fork('geometric'));
  if (plan.bokeh > 0) paintBokeh(canvas, plan, rng.fork('bokeh'));
}

function renderSpace(canvas: Canvas, plan: ScenePlan, rng: Rng): void {
  paintSkyGradient(canvas, plan.palette.sky.slice(0, 3), canvas.height * 1.3);
  if (plan.nebula) paintNebula(canvas, plan, rng.fork('nebula'));
  paintStars(canvas, Math.max(plan.stars, 0.8) * 1.6, canvas.height, plan.palette.glow, rng.fork('stars'));
  if (plan.planet) paintPlanet(canvas, plan, rng.fork('planet'));
  if (plan.bokeh > 0) paintBokeh(canvas, plan, rng.fork('bokeh'));
}

function renderLandscape(canvas: Canvas, plan: ScenePlan, rng: Rng): void {
  const horizonY = plan.horizon * canvas.height;
  paintSkyGradient(canvas, plan.palette.sky, horizonY);
  if (plan.nebula) paintNebula(canvas, plan, rng.fork('nebula'));
  if (plan.aurora) paintAurora(canvas, horizonY, rng.fork('aurora'));
  if (plan.stars > 0) paintStars(canvas, plan.stars, horizonY, plan.palette.glow, rng.fork('stars'));
  if (plan.celestial !== null) paintCelestial(canvas, plan, plan.celestial, rng.fork('celestial'));
  if (plan.planet) paintPlanet(canvas, plan, rng.fork('planet'));
  if (plan.clouds > 0) paintClouds(canvas, plan, horizonY, rng.fork('clouds'));
  const terrain = paintTerrain(canvas, plan, horizonY, rng.fork('terrain'), rng.fork('trees'));
  if (plan.city) paintCity(canvas, plan, horizonY, rng.fork('city'));

  if (plan.water) paintWater(canvas, plan, horizonY, rng.fork('water'));
  else if (plan.grid) paintGridFloor(canvas, plan, horizonY, rng.fork('grid'));
  else if (terrain === null || plan.city) paintGround(canvas, plan, horizonY);

  if (plan.trees > 0 && terrain === null) {
    // No ridges (e.g. a city park): a row of trees along the horizon.
    const ground = new Float32Array(canvas.width).fill(horizonY);
    paintTrees(canvas, plan, ground, { color: plan.palette.near, density: 0.6, scale: 0.8, depth: canvas.unit * 0.05 }, rng.fork('trees'));
  }
  if (plan.bokeh > 0) paintBokeh(canvas, plan, rng.fork('bokeh'));
  if (plan.rain > 0) paintRain(canvas, plan.rain, mix(sampleStops(plan.palette.sky, 1), [1, 1, 1], 0.5), rng.fork('rain'));
}

/** Plain ground plane fading from hazy at the horizon to the foreground colour. */
function paintGround(canvas: Canvas, plan: ScenePlan, horizonY: number): void {
  const haze = sampleStops(plan.palette.sky, 1);
  const top = mix(plan.palette.near, haze, 0.35);
  const bottom = mix(plan.palette.near, [0, 0, 0], 0.3);
  const span = Math.max(1, canvas.height - horizonY);
  canvas.fillRows(Math.ceil(horizonY), canvas.height, (y) => mix(top, bottom, Math.pow((y - horizonY) / span, 0.6)));
}
