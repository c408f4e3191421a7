/**
 * Keyword families -> colour palettes for animated scenes. Prompts are matched word by
 * word; prompts with no known word get a palette synthesised from their hash, so every
 * prompt still looks distinct but coherent.
 */
import { hex, hsl, mix, type Rgb } from './color.js';
import type { Rng } from '../shared/random.js';

export interface Palette {
  family: string;
  /** Sky stops from zenith to horizon. */
  sky: Rgb[];
  sun: Rgb;
  glow: Rgb;
  /** Farthest ridge colour before haze; nearest silhouette colour. */
  far: Rgb;
  near: Rgb;
  water: Rgb;
  accents: Rgb[];
  night: boolean;
}

interface Family {
  words: readonly string[];
  palette: Palette;
}

function family(name: string, words: string, p: Omit<Palette, 'family'>): Family {
  return { words: words.split(' '), palette: { family: name, ...p } };
}

const FAMILIES: readonly Family[] = [
  family('warm', 'sunset sunrise dusk dawn fire warm orange golden autumn fall evening amber flame summer lava volcano red', {
    sky: [hex('#2a1b4a'), hex('#8a2f62'), hex('#e8683f'), hex('#ffc46b')],
    sun: hex('#fff1c4'), glow: hex('#ff9a4a'), far: hex('#9b4a6a'), near: hex('#2b1230'),
    water: hex('#5a2448'), accents: [hex('#ffb347'), hex('#ff6f59'), hex('#f9d56e')], night: false,
  }),
  family('ocean', 'ocean sea water blue beach lake wave waves coast bay marine underwater river surf harbor island tropical aqua lagoon', {
    sky: [hex('#1c5fa8'), hex('#4e96d2'), hex('#9ccbeb'), hex('#e3f2f8')],
    sun: hex('#fffbea'), glow: hex('#fff2c9'), far: hex('#6f93b5'), near: hex('#1d3f5e'),
    water: hex('#11568f'), accents: [hex('#7fd3f7'), hex('#ffffff'), hex('#2ec4b6')], night: false,
  }),
  family('forest', 'forest tree trees green jungle meadow spring grass nature woods wood pine leaf leaves garden park valley moss emerald', {
    sky: [hex('#5d9fcf'), hex('#9fcde3'), hex('#dcefe4')],
    sun: hex('#fffbe0'), glow: hex('#fff0b3'), far: hex('#6d9c8a'), near: hex('#163a25'),
    water: hex('#2f6b6a'), accents: [hex('#b5e48c'), hex('#52b788'), hex('#ffe66d')], night: false,
  }),
  family('night', 'night space star stars starry galaxy moon cosmic cosmos midnight universe nebula planet astronaut milky moonlight moonlit aurora dark', {
    sky: [hex('#03040f'), hex('#0b1238'), hex('#1d2766'), hex('#3b3f8f')],
    sun: hex('#eef1ff'), glow: hex('#7d8cff'), far: hex('#2a3170'), near: hex('#05061a'),
    water: hex('#0a1440'), accents: [hex('#9bb1ff'), hex('#c77dff'), hex('#80ffdb')], night: true,
  }),
  family('desert', 'desert sand sandy dune dunes sahara canyon arid egypt pyramid savanna mesa cactus', {
    sky: [hex('#3f86c6'), hex('#8cc0e3'), hex('#f1dcae')],
    sun: hex('#fffae6'), glow: hex('#ffe3a1'), far: hex('#d9a86c'), near: hex('#9a5a2b'),
    water: hex('#3b7fa6'), accents: [hex('#e9b872'), hex('#c9773b'), hex('#fff3d1')], night: false,
  }),
  family('snow', 'snow snowy ice icy winter frost frozen arctic glacier cold polar alpine alps white', {
    sky: [hex('#7fa6cf'), hex('#b7cfe6'), hex('#eef4fa')],
    sun: hex('#ffffff'), glow: hex('#e8f1ff'), far: hex('#8fa6c0'), near: hex('#4a6078'),
    water: hex('#5f89ad'), accents: [hex('#ffffff'), hex('#bde0fe'), hex('#a2d2ff')], night: false,
  }),
  family('neon', 'neon cyber cyberpunk city synthwave retro vaporwave futuristic future tron arcade disco club electric urban skyline tokyo metropolis', {
    sky: [hex('#0b0221'), hex('#2b0a5c'), hex('#8c1c8c'), hex('#ff4f9a')],
    sun: hex('#ffd36b'), glow: hex('#ff3fa4'), far: hex('#3a1470'), near: hex('#0c0320'),
    water: hex('#1a0640'), accents: [hex('#00f0ff'), hex('#ff2bd6'), hex('#fffb00'), hex('#7b2bff')], night: true,
  }),
  family('candy', 'candy pink pastel sweet love flower flowers rose cherry blossom cute kawaii unicorn cotton valentine peach bubblegum', {
    sky: [hex('#ffc8dd'), hex('#ffafcc'), hex('#cdb4db'), hex('#bde0fe')],
    sun: hex('#fff5f8'), glow: hex('#ffe5ef'), far: hex('#e7a6c8'), near: hex('#9d5c8f'),
    water: hex('#a2d2ff'), accents: [hex('#ff8fab'), hex('#ffffff'), hex('#a2d2ff'), hex('#ffd6a5')], night: false,
  }),
  family('storm', 'storm stormy rain rainy fog foggy mist misty gloomy grey gray overcast thunder moody smoke', {
    sky: [hex('#2f3640'), hex('#57606f'), hex('#8e98a6'), hex('#c3c9d1')],
    sun: hex('#e9ecef'), glow: hex('#aab3bf'), far: hex('#6b7582'), near: hex('#1e242c'),
    water: hex('#3d4753'), accents: [hex('#dfe6e9'), hex('#74b9ff'), hex('#b2bec3')], night: false,
  }),
  family('magic', 'purple violet lavender dream dreamy magic magical fantasy fairy mystic mystical crystal enchanted spirit ethereal', {
    sky: [hex('#240046'), hex('#5a189a'), hex('#9d4edd'), hex('#e0aaff')],
    sun: hex('#fff0ff'), glow: hex('#e0aaff'), far: hex('#7b4fa6'), near: hex('#1d0933'),
    water: hex('#3c096c'), accents: [hex('#f72585'), hex('#4cc9f0'), hex('#ffd6ff')], night: false,
  }),
];

/** Colour words used when no family matched: they set the base hue of a synthesised palette. */
const HUE_WORDS: Readonly<Record<string, number>> = {
  crimson: 350, scarlet: 5, yellow: 50, gold: 45, lime: 90, olive: 70, teal: 175, turquoise: 172,
  cyan: 188, navy: 225, indigo: 245, magenta: 305, brown: 25, copper: 20, mint: 150, coral: 12,
};

/** Pick (or synthesise) the palette for a tokenised prompt. */
export function choosePalette(tokens: readonly string[], rng: Rng): Palette {
  const scored = FAMILIES.map((f, index) => {
    let score = 0;
    let first = Number.POSITIVE_INFINITY;
    tokens.forEach((token, position) => {
      if (!f.words.includes(token)) return;
      score += 1;
      first = Math.min(first, position);
    });
    return { f, index, score, first };
  }).filter((s) => s.score > 0);
  scored.sort((a, b) => b.score - a.score || a.first - b.first || a.index - b.index);
  const primary = scored[0];
  if (primary === undefined) return synthesise(tokens, rng);
  const base = jitter(primary.f.palette, rng);
  const secondary = scored[1];
  if (secondary === undefined) return base;
  // The strongest family keeps the sky; the runner-up lends water, accents and ground tint.
  const other = secondary.f.palette;
  return {
    ...base,
    water: mix(base.water, other.water, 0.6),
    far: mix(base.far, other.far, 0.35),
    near: mix(base.near, other.near, 0.3),
    accents: [...base.accents, ...other.accents],
    night: base.night || (other.night && other.family === 'night'),
  };
}

/** Small hash-driven drift so two prompts of the same family still differ. */
function jitter(p: Palette, rng: Rng): Palette {
  const k = rng.range(-0.06, 0.06);
  const shift = (c: Rgb): Rgb => (k >= 0 ? mix(c, p.glow, k) : mix(c, p.near, -k * 0.6));
  return { ...p, sky: p.sky.map(shift), far: shift(p.far) };
}

function synthesise(tokens: readonly string[], rng: Rng): Palette {
  const hueWord = tokens.find((t) => HUE_WORDS[t] !== undefined);
  const hue = hueWord !== undefined ? (HUE_WORDS[hueWord] ?? 0) : rng.range(0, 360);
  const scheme = rng.pick([20, 35, 150, 180, -40]);
  const dark = rng.chance(0.35);
  const sat = rng.range(0.45, 0.8);
  const sky: Rgb[] = dark
    ? [hsl(hue + scheme, sat, 0.08), hsl(hue + scheme * 0.6, sat, 0.22), hsl(hue, sat, 0.42), hsl(hue - 15, sat, 0.62)]
    : [hsl(hue + scheme, sat * 0.8, 0.42), hsl(hue + scheme * 0.5, sat, 0.6), hsl(hue, sat, 0.8)];
  return {
    family: 'synthetic',
    sky,
    sun: hsl(hue - 10, 0.9, 0.93),
    glow: hsl(hue - 20, 0.9, 0.72),
    far: hsl(hue + scheme * 0.5, sat * 0.6, dark ? 0.3 : 0.55),
    near: hsl(hue + scheme, sat * 0.7, dark ? 0.06 : 0.18),
    water: hsl(hue + scheme, sat * 0.7, dark ? 0.15 : 0.32),
    accents: [hsl(hue + 180, 0.85, 0.65), hsl(hue + scheme, 0.8, 0.7), hsl(hue, 0.9, 0.8)],
    night: dark,
  };
}
