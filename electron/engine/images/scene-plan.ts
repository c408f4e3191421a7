/**
 * Prompt -> ScenePlan: which motifs to paint, where, and with which palette.
 * Words pick motifs and palette; the hash of prompt+seed picks the composition, so
 * unknown prompts still land on a distinct but coherent picture.
 */
import { choosePalette, nightify, type Palette } from './palettes.js';
import { Rng } from '../shared/random.js';

export type SceneKind = 'landscape' | 'space' | 'abstract';
export type Terrain = 'mountains' | 'hills' | 'dunes' | 'none';

export interface Celestial {
  kind: 'sun' | 'moon';
  /** Centre in fractions of width / height. */
  x: number;
  y: number;
  /** Radius as a fraction of the shorter side. */
  radius: number;
  /** Retro horizontal cut-outs (synthwave sun). */
  striped: boolean;
}

export interface ScenePlan {
  kind: SceneKind;
  palette: Palette;
  /** Horizon height as a fraction of the image height. */
  horizon: number;
  celestial: Celestial | null;
  stars: number;
  clouds: number;
  aurora: boolean;
  rain: number;
  nebula: boolean;
  planet: boolean;
  planetRing: boolean;
  terrain: Terrain;
  ridgeLayers: number;
  snowCaps: boolean;
  water: boolean;
  waves: number;
  trees: number;
  treeStyle: 'pine' | 'round';
  city: boolean;
  grid: boolean;
  mesh: boolean;
  bokeh: number;
  geometric: boolean;
  ribbons: boolean;
}

type Motif =
  | 'sun' | 'moon' | 'stars' | 'space' | 'mountains' | 'hills' | 'dunes' | 'water' | 'waves' | 'trees'
  | 'city' | 'clouds' | 'aurora' | 'bokeh' | 'grid' | 'geometric' | 'abstract' | 'ribbons' | 'snow' | 'rain';

const MOTIF_WORDS: Readonly<Record<Motif, readonly string[]>> = {
  sun: ['sun', 'sunny', 'sunset', 'sunrise', 'dawn', 'dusk', 'sunshine', 'golden'],
  moon: ['moon', 'moonlight', 'moonlit', 'lunar', 'crescent'],
  stars: ['star', 'starry', 'night', 'galaxy', 'cosmos', 'cosmic', 'universe', 'milky', 'constellation', 'starlight'],
  space: ['space', 'galaxy', 'nebula', 'cosmos', 'cosmic', 'universe', 'planet', 'astronaut', 'orbit', 'saturn'],
  mountains: ['mountain', 'peak', 'alps', 'alpine', 'range', 'summit', 'cliff', 'landscape', 'volcano', 'glacier', 'himalaya', 'rocky', 'ridge', 'canyon'],
  hills: ['hill', 'meadow', 'valley', 'countryside', 'field', 'farm', 'rolling', 'grass', 'prairie', 'pasture'],
  dunes: ['desert', 'dune', 'sand', 'sahara', 'sandy'],
  water: ['ocean', 'sea', 'lake', 'river', 'water', 'beach', 'coast', 'bay', 'harbor', 'harbour', 'reflection', 'pond', 'island', 'lagoon', 'shore'],
  waves: ['wave', 'surf', 'stormy', 'ripple'],
  trees: ['forest', 'tree', 'woods', 'pine', 'jungle', 'park', 'garden', 'oak', 'grove'],
  city: ['city', 'skyline', 'urban', 'building', 'downtown', 'tower', 'skyscraper', 'metropolis', 'cyberpunk', 'street', 'tokyo', 'town'],
  clouds: ['cloud', 'cloudy', 'sky', 'storm', 'stormy', 'rain', 'overcast', 'fluffy', 'weather', 'heaven'],
  aurora: ['aurora', 'borealis', 'northern', 'polar'],
  bokeh: ['bokeh', 'bubble', 'lights', 'glitter', 'sparkle', 'confetti', 'dots', 'particles', 'firefly', 'fireflies', 'lantern', 'festive', 'party'],
  grid: ['grid', 'synthwave', 'tron', 'vaporwave', 'outrun', 'retro'],
  geometric: ['geometric', 'geometry', 'shape', 'triangle', 'polygon', 'cube', 'circle', 'square', 'pattern', 'bauhaus', 'mosaic', 'minimal', 'minimalist'],
  abstract: ['abstract', 'gradient', 'background', 'wallpaper', 'texture', 'art', 'modern'],
  ribbons: ['swirl', 'fluid', 'flow', 'ribbon', 'silk', 'wavy', 'liquid', 'smoke'],
  rain: ['rain', 'rainy', 'raining', 'drizzle', 'downpour', 'rainfall'],
  snow: ['snow', 'snowy', 'ice', 'winter', 'frozen', 'glacier', 'arctic', 'alps', 'alpine'],
};

export function tokenize(prompt: string): string[] {
  return prompt.toLowerCase().split(/[^a-z0-9]+/).filter((t) => t.length > 0);
}

function singular(token: string): string {
  if (token.length > 4 && token.endsWith('ies')) return `${token.slice(0, -3)}y`;
  if (token.length > 3 && token.endsWith('s') && !token.endsWith('ss')) return token.slice(0, -1);
  return token;
}

function detectMotifs(tokens: readonly string[]): Set<Motif> {
  const found = new Set<Motif>();
  const forms = new Set<string>();
  for (const t of tokens) {
    forms.add(t);
    forms.add(singular(t));
  }
  for (const [motif, words] of Object.entries(MOTIF_WORDS) as [Motif, readonly string[]][]) {
    if (words.some((w) => forms.has(w))) found.add(motif);
  }
  return found;
}

const GROUND: readonly Motif[] = ['mountains', 'hills', 'dunes', 'water', 'waves', 'trees', 'city', 'grid'];

/** Family defaults used when the prompt names a mood but no scenery. */
function addDefaults(m: Set<Motif>, family: string, rng: Rng): void {
  const add = (...items: Motif[]): void => items.forEach((i) => m.add(i));
  switch (family) {
    case 'warm': add('sun', 'mountains'); if (rng.chance(0.5)) add('water'); break;
    case 'ocean': add('water', 'sun', 'clouds'); break;
    case 'forest': add('mountains', 'trees'); break;
    case 'night': add('stars', 'moon', 'mountains'); if (rng.chance(0.4)) add('water'); break;
    case 'desert': add('dunes', 'sun'); break;
    case 'snow': add('mountains', 'snow'); if (rng.chance(0.5)) add('clouds'); break;
    case 'neon': add('grid', 'sun'); if (rng.chance(0.5)) add('city'); break;
    case 'candy': add('hills', 'clouds', 'sun', 'trees'); break;
    case 'storm': add('clouds', 'mountains'); if (rng.chance(0.5)) add('water'); break;
    case 'magic': add('mountains', 'stars', 'bokeh'); break;
    default: {
      // Synthetic palette: let the hash pick a template.
      const template = rng.pick(['landscape', 'lake', 'abstract', 'geometric', 'hills', 'ribbons'] as const);
      if (template === 'landscape') add('mountains', 'sun');
      else if (template === 'lake') add('mountains', 'water', 'moon');
      else if (template === 'abstract') add('abstract', 'bokeh');
      else if (template === 'geometric') add('abstract', 'geometric');
      else if (template === 'hills') add('hills', 'clouds', 'sun', 'trees');
      else add('abstract', 'ribbons');
    }
  }
}

function treeStyle(tokens: readonly string[], family: string, rng: Rng): 'pine' | 'round' {
  if (tokens.some((t) => singular(t) === 'pine') || family === 'snow') return 'pine';
  if (family === 'candy' || tokens.some((t) => ['oak', 'park', 'garden', 'blossom', 'cherry'].includes(singular(t)))) return 'round';
  return rng.chance(0.6) ? 'pine' : 'round';
}

function cloudCover(m: Set<Motif>, family: string, night: boolean, kind: SceneKind, water: boolean, rng: Rng): number {
  if (family === 'storm') return rng.range(0.85, 1);
  if (m.has('clouds')) return rng.range(0.45, 0.8);
  if (night || kind !== 'landscape') return 0;
  return rng.chance(water ? 0.6 : 0.35) ? rng.range(0.2, 0.45) : 0;
}

export function planScene(prompt: string, seed: number): ScenePlan {
  const rng = new Rng(seed);
  const tokens = tokenize(prompt);
  const chosen = choosePalette(tokens, rng.fork('palette')).palette;
  const m = detectMotifs(tokens);
  // Night words over a daytime palette ("moonlit sea") darken it rather than putting stars in a blue sky.
  const palette = !chosen.night && (m.has('moon') || (m.has('stars') && !m.has('sun'))) ? nightify(chosen) : chosen;
  const comp = rng.fork('composition');

  const hasGround = GROUND.some((g) => m.has(g));
  const isSpace = m.has('space') && !hasGround;
  const isAbstract = !isSpace && !hasGround && (m.has('abstract') || m.has('geometric') || m.has('ribbons') || (m.has('bokeh') && m.size === 1));
  if (!hasGround && !isSpace && !isAbstract) addDefaults(m, palette.family, comp.fork('defaults'));

  // Defaults may have added scenery or, for synthetic palettes, an abstract template.
  const groundNow = GROUND.some((g) => m.has(g));
  const kind: SceneKind = isSpace ? 'space' : isAbstract || (m.has('abstract') && !groundNow) ? 'abstract' : 'landscape';
  const night = palette.night || m.has('stars') || m.has('moon');

  let terrain: Terrain = 'none';
  if (m.has('mountains')) terrain = 'mountains';
  else if (m.has('dunes')) terrain = 'dunes';
  else if (m.has('hills') || (m.has('trees') && !m.has('city'))) terrain = 'hills';

  const water = m.has('water') || m.has('waves');
  const horizon = kind === 'landscape' ? comp.range(water ? 0.5 : 0.55, water ? 0.66 : 0.72) : comp.range(0.45, 0.6);

  let celestial: Celestial | null = null;
  const wantsMoon = m.has('moon') || (night && !m.has('sun') && !m.has('grid') && kind === 'landscape' && comp.chance(0.6));
  const wantsSun = m.has('sun') || m.has('grid') || (!night && kind === 'landscape' && palette.family !== 'storm' && comp.chance(water ? 0.7 : 0.45));
  if (kind !== 'abstract' && (wantsMoon || wantsSun)) {
    const low = m.has('sun') && comp.chance(0.7);
    const radius = wantsMoon && !m.has('sun') ? comp.range(0.045, 0.08) : comp.range(0.07, 0.13);
    celestial = {
      kind: wantsMoon && !m.has('sun') ? 'moon' : 'sun',
      x: comp.range(0.22, 0.78),
      y: low ? horizon - comp.range(0.06, 0.16) : comp.range(0.16, Math.max(0.2, horizon - 0.22)),
      radius,
      striped: m.has('grid') || palette.family === 'neon',
    };
  }

  return {
    kind,
    palette,
    horizon,
    celestial,
    stars: night || isSpace ? comp.range(0.6, 1) : 0,
    clouds: cloudCover(m, palette.family, night, kind, water, comp),
    aurora: m.has('aurora'),
    rain: m.has('rain') ? comp.range(0.6, 1) : 0,
    nebula: isSpace || (m.has('space') && comp.chance(0.5)),
    planet: (isSpace && comp.chance(0.75)) || tokens.some((t) => ['planet', 'saturn', 'jupiter'].includes(singular(t))),
    planetRing: tokens.some((t) => ['saturn', 'ring'].includes(singular(t))) || comp.chance(0.5),
    terrain,
    ridgeLayers: terrain === 'none' ? 0 : comp.int(water ? 2 : 3, water ? 4 : 6),
    snowCaps: m.has('snow') || palette.family === 'snow',
    water,
    waves: m.has('waves') ? comp.range(0.6, 1) : comp.range(0.15, 0.45),
    trees: m.has('trees') ? comp.range(0.6, 1) : 0,
    treeStyle: treeStyle(tokens, palette.family, comp),
    city: m.has('city'),
    grid: m.has('grid'),
    mesh: kind === 'abstract',
    bokeh: m.has('bokeh') ? comp.range(0.6, 1) : kind === 'abstract' && comp.chance(0.4) ? comp.range(0.3, 0.6) : 0,
    geometric: m.has('geometric') || (kind === 'abstract' && !m.has('ribbons') && !m.has('bokeh') && comp.chance(0.5)),
    ribbons: m.has('ribbons') || (kind === 'abstract' && comp.chance(0.35)),
  };
}
