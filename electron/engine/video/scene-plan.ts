/**
 * Prompt -> VideoScene: which layers to animate, with which palette and how they move.
 * Words pick motifs and palette; the hash of prompt+seed picks composition and motion,
 * so unknown prompts still land on a distinct but coherent animated scene.
 */
import { choosePalette, type Palette } from './palette.js';
import { Rng } from '../shared/random.js';

export type SceneKind = 'landscape' | 'space' | 'abstract';
export type Terrain = 'mountains' | 'hills' | 'dunes' | 'none';
export type Floaters = 'none' | 'bokeh' | 'fireflies' | 'snow' | 'rain' | 'petals' | 'leaves' | 'bubbles';

export interface Celestial {
  kind: 'sun' | 'moon';
  /** Start centre in fractions of width / height, and drift over the clip (same units). */
  x: number;
  y: number;
  dx: number;
  dy: number;
  /** Radius as a fraction of the frame height. */
  radius: number;
  /** Retro horizontal cut-outs (synthwave sun). */
  striped: boolean;
}

export interface VideoScene {
  kind: SceneKind;
  palette: Palette;
  /** Horizon height as a fraction of the frame height. */
  horizon: number;
  celestial: Celestial | null;
  stars: number;
  nebula: boolean;
  planet: boolean;
  aurora: boolean;
  clouds: number;
  terrain: Terrain;
  ridgeLayers: number;
  trees: 'none' | 'pine' | 'round';
  city: boolean;
  water: boolean;
  /** Water roughness 0..1. */
  waves: number;
  grid: boolean;
  floaters: Floaters;
  floaterDensity: number;
  /** Drifting colour blobs of abstract scenes. */
  blobs: number;
  /** Camera pan: nearest-layer speed in frame widths per second (signed). */
  pan: number;
  /** Overall motion tempo multiplier (calm vs lively prompts). */
  tempo: number;
}

type Motif =
  | 'sun' | 'moon' | 'stars' | 'space' | 'mountains' | 'hills' | 'dunes' | 'water' | 'waves' | 'trees'
  | 'city' | 'clouds' | 'aurora' | 'bokeh' | 'grid' | 'abstract' | 'snow' | 'rain' | 'fireflies'
  | 'petals' | 'leaves' | 'bubbles' | 'calm' | 'fast';

const MOTIF_WORDS: Readonly<Record<Motif, string>> = {
  sun: 'sun sunny sunset sunrise dawn dusk sunshine golden',
  moon: 'moon moonlight moonlit lunar crescent',
  stars: 'star starry night galaxy cosmos cosmic universe milky constellation starlight',
  space: 'space galaxy nebula cosmos cosmic universe planet astronaut orbit saturn',
  mountains: 'mountain peak alps alpine range summit cliff landscape volcano glacier himalaya rocky ridge canyon',
  hills: 'hill meadow valley countryside field farm rolling grass prairie pasture',
  dunes: 'desert dune sand sahara sandy',
  water: 'ocean sea lake river water beach coast bay harbor harbour reflection pond island lagoon shore',
  waves: 'wave surf stormy ripple',
  trees: 'forest tree woods pine jungle park garden oak grove',
  city: 'city skyline urban building downtown tower skyscraper metropolis cyberpunk street tokyo town',
  clouds: 'cloud cloudy sky storm stormy rain overcast fluffy weather heaven',
  aurora: 'aurora borealis northern polar',
  bokeh: 'bokeh lights glitter sparkle confetti dots particles lantern festive party',
  grid: 'grid synthwave tron vaporwave outrun retro',
  abstract: 'abstract gradient background wallpaper texture art modern geometric shape pattern fluid swirl liquid flow minimal',
  snow: 'snow snowy snowfall winter blizzard snowflake',
  rain: 'rain rainy drizzle downpour',
  fireflies: 'firefly fireflies magic magical fairy enchanted',
  petals: 'petal blossom cherry sakura flower spring',
  leaves: 'autumn fall leaf leaves',
  bubbles: 'bubble underwater aquarium fish',
  calm: 'calm peaceful serene quiet slow gentle tranquil relaxing still',
  fast: 'fast speed rush dynamic energetic action race wild',
};

const WORDS = Object.entries(MOTIF_WORDS).map(([motif, words]) => [motif as Motif, new Set(words.split(' '))] as const);

export function tokenize(prompt: string): string[] {
  return prompt.toLowerCase().split(/[^a-z0-9]+/).filter((t) => t.length > 0);
}

function detectMotifs(tokens: readonly string[]): Set<Motif> {
  const forms = new Set<string>();
  for (const t of tokens) {
    forms.add(t);
    if (t.length > 3 && t.endsWith('s') && !t.endsWith('ss')) forms.add(t.slice(0, -1));
  }
  const found = new Set<Motif>();
  for (const [motif, words] of WORDS) if ([...forms].some((f) => words.has(f))) found.add(motif);
  return found;
}

const GROUND: readonly Motif[] = ['mountains', 'hills', 'dunes', 'water', 'waves', 'trees', 'city', 'grid'];

/** Family defaults used when the prompt names a mood but no scenery. */
function addDefaults(m: Set<Motif>, family: string, rng: Rng): void {
  const add = (...items: Motif[]): void => items.forEach((i) => m.add(i));
  switch (family) {
    case 'warm': add('sun', 'mountains'); if (rng.chance(0.6)) add('water'); break;
    case 'ocean': add('water', 'sun', 'clouds'); break;
    case 'forest': add('mountains', 'trees'); break;
    case 'night': add('stars', 'moon', 'mountains'); if (rng.chance(0.5)) add('water'); break;
    case 'desert': add('dunes', 'sun'); break;
    case 'snow': add('mountains', 'snow'); break;
    case 'neon': add('grid', 'sun'); if (rng.chance(0.5)) add('city'); break;
    case 'candy': add('hills', 'clouds', 'sun', 'trees', 'petals'); break;
    case 'storm': add('clouds', 'mountains', 'rain'); break;
    case 'magic': add('mountains', 'stars', 'fireflies'); break;
    default: {
      const template = rng.pick(['landscape', 'lake', 'abstract', 'hills'] as const);
      if (template === 'landscape') add('mountains', 'sun');
      else if (template === 'lake') add('mountains', 'water', 'moon');
      else if (template === 'abstract') add('abstract', 'bokeh');
      else add('hills', 'clouds', 'sun', 'trees');
    }
  }
}

function pickFloaters(m: Set<Motif>, kind: SceneKind, night: boolean): Floaters {
  if (m.has('snow')) return 'snow';
  if (m.has('rain')) return 'rain';
  if (m.has('fireflies')) return 'fireflies';
  if (m.has('petals')) return 'petals';
  if (m.has('leaves')) return 'leaves';
  if (m.has('bubbles')) return 'bubbles';
  if (m.has('bokeh') || kind === 'abstract') return 'bokeh';
  if (night && m.has('trees')) return 'fireflies';
  return 'none';
}

export function planScene(prompt: string, seed: number): VideoScene {
  const rng = new Rng(seed);
  const tokens = tokenize(prompt);
  const palette = choosePalette(tokens, rng.fork('palette'));
  const m = detectMotifs(tokens);
  const comp = rng.fork('composition');
  const motion = rng.fork('motion');

  const hasGround = GROUND.some((g) => m.has(g));
  const isSpace = m.has('space') && !hasGround;
  const isAbstract = !isSpace && !hasGround && m.has('abstract');
  if (!hasGround && !isSpace && !isAbstract) addDefaults(m, palette.family, comp.fork('defaults'));
  const kind: SceneKind = isSpace ? 'space' : isAbstract || (m.has('abstract') && !GROUND.some((g) => m.has(g))) ? 'abstract' : 'landscape';
  const night = palette.night || m.has('stars') || m.has('moon');

  let terrain: Terrain = 'none';
  if (kind === 'landscape') {
    if (m.has('mountains')) terrain = 'mountains';
    else if (m.has('dunes')) terrain = 'dunes';
    else if (m.has('hills') || (m.has('trees') && !m.has('city'))) terrain = 'hills';
  }
  const water = kind === 'landscape' && (m.has('water') || m.has('waves'));
  const grid = kind === 'landscape' && m.has('grid') && !water;
  const horizon = kind === 'landscape' ? comp.range(water ? 0.52 : 0.56, water ? 0.64 : 0.7) : comp.range(0.45, 0.6);

  let celestial: Celestial | null = null;
  const wantsMoon = m.has('moon') || (night && !m.has('sun') && !m.has('grid') && kind === 'landscape' && comp.chance(0.7));
  const wantsSun = m.has('sun') || m.has('grid') || (!night && kind === 'landscape' && palette.family !== 'storm' && comp.chance(water ? 0.75 : 0.5));
  if (kind !== 'abstract' && (wantsMoon || wantsSun)) {
    const isMoon = wantsMoon && !m.has('sun');
    const low = !isMoon && comp.chance(0.7);
    const setting = palette.family === 'warm' || tokens.includes('sunset') || tokens.includes('dusk');
    celestial = {
      kind: isMoon ? 'moon' : 'sun',
      x: comp.range(0.25, 0.75),
      y: low ? horizon - comp.range(0.08, 0.18) : comp.range(0.16, Math.max(0.2, horizon - 0.24)),
      // Suns set (or rise at dawn) slowly; moons glide sideways.
      dx: comp.range(0.03, 0.08) * comp.sign(),
      dy: isMoon ? -comp.range(0, 0.03) : (setting ? 1 : -1) * comp.range(0.03, 0.07),
      radius: isMoon ? comp.range(0.06, 0.09) : comp.range(0.08, 0.14),
      striped: m.has('grid') || palette.family === 'neon',
    };
  }

  const floaters = pickFloaters(m, kind, night);
  const tempo = m.has('fast') ? 1.8 : m.has('calm') ? 0.55 : 1;
  return {
    kind,
    palette,
    horizon,
    celestial,
    stars: night || isSpace ? comp.range(0.6, 1) : 0,
    nebula: isSpace,
    planet: isSpace && (tokens.some((t) => t.startsWith('planet') || t === 'saturn') || comp.chance(0.6)),
    aurora: m.has('aurora'),
    clouds: palette.family === 'storm' ? comp.range(0.8, 1) : m.has('clouds') ? comp.range(0.45, 0.8) : !night && kind === 'landscape' && comp.chance(0.5) ? comp.range(0.2, 0.4) : 0,
    terrain,
    ridgeLayers: terrain === 'none' ? 0 : comp.int(water ? 2 : 3, water ? 4 : 5),
    trees: m.has('trees') ? (tokens.includes('pine') || palette.family === 'snow' || comp.chance(0.55) ? 'pine' : 'round') : 'none',
    city: kind === 'landscape' && m.has('city'),
    water,
    waves: m.has('waves') ? comp.range(0.6, 1) : comp.range(0.15, 0.45),
    grid,
    floaters,
    floaterDensity: floaters === 'none' ? 0 : comp.range(0.5, 1),
    blobs: kind === 'abstract' ? comp.int(4, 7) : 0,
    pan: motion.range(0.012, 0.03) * motion.sign() * tempo,
    tempo,
  };
}
