/**
 * Fallback for instructions we cannot parse: a gentle, prompt-seeded colour grade plus
 * vignette. The result visibly reflects "something happened" while staying faithful
 * to the reference, and the same prompt always grades the same way.
 */
import { hsl } from '../shared/color.js';
import { saturationMatrix } from './edit-ops.js';
import { hashString, Rng } from '../shared/random.js';
import { stage, type RawImage } from './raw-image.js';

export async function stylize(img: RawImage, prompt: string): Promise<RawImage> {
  const rng = new Rng(hashString(prompt.trim().toLowerCase()));
  const tint = hsl(rng.range(0, 360), rng.range(0.45, 0.75), 0.5);
  const amount = rng.range(0.08, 0.16);
  const keep = 1 - amount;
  const saturation = rng.range(1.02, 1.2);
  // sharp runs recomb before linear: saturation first, then the tint.
  const graded = await stage(img, (p) =>
    p.recomb(saturationMatrix(saturation)).linear([keep, keep, keep], [tint[0] * 255 * amount, tint[1] * 255 * amount, tint[2] * 255 * amount]),
  );
  vignette(graded, rng.range(0.2, 0.35));
  return graded;
}

/** In-place radial darkening of the colour channels (alpha untouched). */
function vignette(img: RawImage, strength: number): void {
  const { data, width, height, channels } = img;
  const cx = width / 2;
  const cy = height / 2;
  const inv = 1 / (cx * cx + cy * cy);
  for (let y = 0; y < height; y++) {
    const dy2 = (y + 0.5 - cy) * (y + 0.5 - cy);
    let i = y * width * channels;
    for (let x = 0; x < width; x++, i += channels) {
      const dx = x + 0.5 - cx;
      const r2 = (dx * dx + dy2) * inv;
      const k = 1 - strength * r2 * r2;
      data[i] = data[i]! * k;
      data[i + 1] = data[i + 1]! * k;
      data[i + 2] = data[i + 2]! * k;
    }
  }
}
