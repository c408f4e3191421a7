/** Combining several reference images: collages (row, stack, grid) and pixel blends. */
import type { Sharp } from 'sharp';
import sharp from 'sharp';
import type { ComposeMode } from './edit-parse.js';
import { clampSize, stage, toRaw, type RawImage } from './raw-image.js';

export async function composeImages(images: readonly RawImage[], mode: ComposeMode): Promise<RawImage> {
  const first = images[0];
  if (first === undefined) throw new Error('composeImages needs at least one image');
  if (images.length === 1) return first;
  switch (mode) {
    case 'collage':
      return images.length > 3 ? grid(images) : strip(images, 'row');
    case 'stack':
      return strip(images, 'column');
    case 'grid':
      return grid(images);
    case 'blend':
      return average(await sameSize(images, first.width, first.height));
    case 'overlay':
    case 'multiply':
      return layer(await sameSize(images, first.width, first.height), mode);
  }
}

function channelsOf(images: readonly RawImage[]): 3 | 4 {
  return images.some((i) => i.channels === 4) ? 4 : 3;
}

/** Place pre-sized tiles on a blank canvas. */
async function paste(width: number, height: number, channels: 3 | 4, tiles: { img: RawImage; left: number; top: number }[]): Promise<RawImage> {
  const base: Sharp = sharp({ create: { width, height, channels, background: { r: 0, g: 0, b: 0, alpha: channels === 4 ? 0 : 1 } } });
  const composed = base.composite(
    tiles.map((t) => ({ input: t.img.data, raw: { width: t.img.width, height: t.img.height, channels: t.img.channels }, left: t.left, top: t.top })),
  );
  const out = await toRaw(composed);
  // sharp may add an alpha band while compositing; drop it again for opaque inputs.
  return channels === 3 && out.channels === 4 ? stage(out, (p) => p.removeAlpha()) : out;
}

/** Side by side (row) or stacked (column), all scaled to the first image's height/width. */
async function strip(images: readonly RawImage[], direction: 'row' | 'column'): Promise<RawImage> {
  const first = images[0]!;
  const row = direction === 'row';
  const cross = row ? first.height : first.width;
  const lengths = images.map((img) => (row ? (img.width * cross) / img.height : (img.height * cross) / img.width));
  const total = lengths.reduce((a, b) => a + b, 0);
  const fitted = row ? clampSize(total, cross) : clampSize(cross, total);
  const k = row ? fitted.height / cross : fitted.width / cross;
  const crossSize = Math.max(1, Math.round(cross * k));
  const tiles: { img: RawImage; left: number; top: number }[] = [];
  let offset = 0;
  for (const [index, img] of images.entries()) {
    const len = Math.max(1, Math.round((lengths[index] ?? 0) * k));
    const w = row ? len : crossSize;
    const h = row ? crossSize : len;
    tiles.push({ img: await stage(img, (p) => p.resize(w, h, { fit: 'fill' })), left: row ? offset : 0, top: row ? 0 : offset });
    offset += len;
  }
  return paste(row ? offset : crossSize, row ? crossSize : offset, channelsOf(images), tiles);
}

/** Uniform cells sized like the first image, cover-cropped, roughly square grid. */
async function grid(images: readonly RawImage[]): Promise<RawImage> {
  const first = images[0]!;
  const cols = Math.ceil(Math.sqrt(images.length));
  const rows = Math.ceil(images.length / cols);
  const whole = clampSize(first.width * cols, first.height * rows);
  const cw = Math.max(1, Math.floor(whole.width / cols));
  const ch = Math.max(1, Math.floor(whole.height / rows));
  const tiles = await Promise.all(
    images.map(async (img, i) => ({
      img: await stage(img, (p) => p.resize(cw, ch, { fit: 'cover' })),
      left: (i % cols) * cw,
      top: Math.floor(i / cols) * ch,
    })),
  );
  return paste(cw * cols, ch * rows, channelsOf(images), tiles);
}

/** Cover-resize every image to width x height with a common channel count. */
async function sameSize(images: readonly RawImage[], width: number, height: number): Promise<RawImage[]> {
  const channels = channelsOf(images);
  return Promise.all(
    images.map((img) =>
      stage(img, (p) => {
        const sized = img.width === width && img.height === height ? p : p.resize(width, height, { fit: 'cover' });
        return channels === 4 ? sized.ensureAlpha() : sized;
      }),
    ),
  );
}

/** Equal-weight mix of all images (a true "blend" of the references). */
function average(images: readonly RawImage[]): RawImage {
  const first = images[0]!;
  const n = images.length;
  const out = Buffer.allocUnsafe(first.data.length);
  const sum = new Uint16Array(first.data.length);
  for (const img of images) {
    const d = img.data;
    for (let i = 0; i < d.length; i++) sum[i] = sum[i]! + d[i]!;
  }
  for (let i = 0; i < out.length; i++) out[i] = Math.round(sum[i]! / n);
  return { data: out, width: first.width, height: first.height, channels: first.channels };
}

/** Photoshop-style blend modes via sharp's compositor, each later image over the result. */
async function layer(images: readonly RawImage[], mode: 'overlay' | 'multiply'): Promise<RawImage> {
  const first = images[0]!;
  const rest = images.slice(1).map((img) => ({ input: img.data, raw: { width: img.width, height: img.height, channels: img.channels }, blend: mode }));
  const out = await stage(first, (p) => p.composite(rest));
  return first.channels === 3 && out.channels === 4 ? stage(out, (p) => p.removeAlpha()) : out;
}
