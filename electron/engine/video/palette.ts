// The video engine paints with the image engine's palettes (keyword families, blends of the two
// strongest, a hashed synthesis for unknown words), so a prompt looks the same in both.
import type { Rng } from '../shared/random.js';
import { choosePalette as choose, type Palette } from '../images/palettes.js';

export type { Palette };

export function choosePalette(tokens: readonly string[], rng: Rng): Palette {
  return choose(tokens, rng).palette;
}
